/**
 * What the runtime's drop counters mean, in one place (docs/sampling.md, "What was dropped" says
 * the same): for each reason, what was dropped, whether it was a sample or a timer entry, and
 * whether it changes what the profile says about the program. `hyprof run` and `resolve` print
 * one line per reason from here.
 */

interface Reason {
  /** Sample reasons are shares of the samples taken; others are counted alone. */
  samples: boolean;
  /** The line after the count: `samples landed inside hyprof's own code`. */
  what: (n: number) => string;
  /** Whether the program's profile is affected, said after the share. */
  matters: string;
}

const s = (n: number): string => (n === 1 ? '' : 's');

export const DROP_REASONS: Record<string, Reason> = {
  in_tool: { samples: true, what: (n) => `sample${s(n)} landed inside hyprof's own code`, matters: "not charged to your program" },
  after_stop: { samples: true, what: (n) => `sample${s(n)} arrived after sampling stopped for the profile's dump`, matters: 'not charged to your program' },
  table_full: {
    samples: true,
    what: (n) => `sample${s(n)} lost: the sample table was full`,
    matters: 'your program is under-counted there; raise HYPROF_SAMPLE_TABLE',
  },
  no_thread_state: { samples: true, what: (n) => `sample${s(n)} lost on a thread hyprof had no state for yet`, matters: 'lost' },
  unwind_failed: { samples: true, what: (n) => `sample${s(n)} kept with a partial call stack (unwinding failed)`, matters: 'counted, callers missing' },
  unwind_truncated: { samples: true, what: (n) => `sample${s(n)} kept with a call stack cut at the fixed depth cap`, matters: 'counted, outer callers missing' },
  timers_nested_too_deep: { samples: false, what: (n) => `timer entr${n === 1 ? 'y' : 'ies'} not recorded: timers nested too deep`, matters: 'those timers are missing from the profile' },
  out_of_memory: { samples: false, what: (n) => `measurement${s(n)} not recorded: out of memory`, matters: 'missing from the profile' },
  warnings_not_kept: { samples: false, what: (n) => `runtime warning${s(n)} not kept`, matters: 'only the messages are lost' },
  mpi_call_sites_not_kept: { samples: false, what: (n) => `MPI call site${s(n)} not kept apart (the per-thread table was full)`, matters: 'their time is in the MPI totals, not per site' },
  trace_samples_lost: {
    samples: false,
    what: (n) => `sample${s(n)} of the profile not in the trace: the thread's trace buffer was full (a region ran longer than HYPROF_TRACE_BUFFER_KB holds samples without a probe)`,
    matters: 'the profile has them; the timeline lacks them there',
  },
  entries_possibly_torn: { samples: false, what: (n) => `timer entr${n === 1 ? 'y' : 'ies'} possibly torn by a signal during the dump`, matters: 'their values may be off' },
};

/** `0.3 %`, `<0.1 %`, as a share of `total`. */
function share(n: number, total: number): string {
  const p = (100 * n) / total;
  return p > 0 && p < 0.1 ? '<0.1 %' : `${p.toFixed(1)} %`;
}

/**
 * One line per reason with a count: `476 samples landed inside hyprof's own code (0.3 % of
 * samples; not charged to your program)`. `samples`: the samples the profile holds; a share is of
 * those plus the samples the sample reasons dropped. Reasons this table does not know are said by
 * their name.
 */
export function dropLines(drops: Record<string, number>, samples: number): string[] {
  const lost = Object.entries(drops).filter(([, n]) => n > 0);
  // Dropped samples were taken too: the share is of every sample taken (kept ones are in `samples`).
  const notKept = lost.filter(([r]) => DROP_REASONS[r]?.samples && !r.startsWith('unwind_')).reduce((t, [, n]) => t + n, 0);
  const taken = samples + notKept;
  return lost.map(([r, n]) => {
    const reason = DROP_REASONS[r];
    if (!reason) return `${n} measurement${s(n)} not recorded (${r.replace(/_/g, ' ')})`;
    const part = reason.samples && taken > 0 ? `${share(n, taken)} of samples; ` : '';
    return `${n} ${reason.what(n)} (${part}${reason.matters})`;
  });
}
