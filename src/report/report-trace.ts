/**
 * `hyprof report DIR --trace`: what the run's trace shows that its profile cannot (src/trace/
 * wait-states.ts): MPI wait states per call site and rank, OpenMP task suspensions per task
 * construct and the task problems located in time, each phase's slowest instance against its median.
 */
import { taskProblems, type TaskProblem } from '../trace/task-problems.js';
import { traceNotes, type TraceModel } from '../trace/trace-model.js';
import { phaseInstances, taskSuspensions, waitStates, type PhaseRow, type TaskSuspensionRow, type WaitRow } from '../trace/wait-states.js';

export interface TraceReport {
  trace: string;
  /** Span of the trace, ns. */
  span: number;
  lanes: number;
  messages: number;
  collectives: number;
  notes: string[];
  waitStates: WaitRow[];
  taskSuspensions: TaskSuspensionRow[];
  taskProblems: TaskProblem[];
  phases: PhaseRow[];
}

export function buildTraceReport(model: TraceModel): TraceReport {
  return {
    trace: model.anchor,
    span: model.last - model.first,
    lanes: model.lanes.length,
    messages: model.messages.length,
    collectives: model.collectives.length,
    notes: traceNotes(model),
    waitStates: waitStates(model),
    taskSuspensions: taskSuspensions(model),
    taskProblems: taskProblems(model),
    phases: phaseInstances(model),
  };
}

function table(head: string[], rows: string[][]): string[] {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padStart(w[i]))).join('  ').trimEnd();
  return [line(head), ...rows.map(line)];
}

/** Milliseconds of a nanosecond value, 3 decimals. */
const ms = (ns: number): string => (ns / 1e6).toFixed(3);

export function renderTraceReport(r: TraceReport, opts: { limit?: number } = {}): string {
  const limit = opts.limit ?? 20;
  const out: string[] = [];
  out.push(
    `TRACE ${r.trace}: ${ms(r.span)} ms, ${r.lanes} threads, ${r.messages} messages, ${r.collectives} collective operations (times in msec from the trace's start)`,
  );
  for (const n of r.notes) out.push(`  NOTE: ${n}`);
  out.push('', 'MPI WAIT STATES (Scalasca: late sender, late receiver, wait at N×N, late broadcast, early reduce), per call site and rank:');
  if (r.waitStates.length === 0) out.push('  none (no MPI call waited for another rank)');
  else {
    const shown = r.waitStates.slice(0, limit);
    out.push(
      ...table(
        ['Wait', 'Count', 'Max', 'Max at', 'Rank', 'Kind', 'Call site'],
        shown.map((w) => [ms(w.time), String(w.count), ms(w.max), ms(w.maxAt), w.rank >= 0 ? String(w.rank) : w.lane, w.kind, `${w.call}${w.caller ? ` in ${w.caller}` : ''}`]),
      ).map((l) => `  ${l}`),
    );
    if (shown.length < r.waitStates.length) out.push(`  (${shown.length} of ${r.waitStates.length} rows; --limit)`);
  }
  out.push('', 'OPENMP TASK SUSPENSIONS per task construct (a task suspended at a scheduling point and resumed later):');
  if (r.taskSuspensions.length === 0) out.push('  none (no explicit tasks in the trace)');
  else {
    out.push(
      ...table(
        ['Tasks', 'Suspended', 'Suspensions', 'Suspended ms', 'Longest', 'Migrated', 'Executing ms', 'Task construct'],
        r.taskSuspensions
          .slice(0, limit)
          .map((s) => [String(s.tasks), String(s.suspended), String(s.suspensions), ms(s.time), ms(s.max), String(s.migrated), ms(s.executing), s.construct]),
      ).map((l) => `  ${l}`),
    );
  }
  out.push('', 'OPENMP TASK PROBLEMS (too fine, too coarse, creation bottleneck), located in time:');
  if (r.taskProblems.length === 0) out.push('  none found');
  for (const p of r.taskProblems) out.push(`  ${p.kind}: ${ms(p.from)}–${ms(p.to)} ms on ${p.where}: ${p.why}`);
  out.push('', 'PHASES: the slowest instance of each phase against its median instance:');
  if (r.phases.length === 0) out.push('  none (no TAU_PHASE regions in the trace)');
  for (const p of r.phases) {
    out.push(
      `  ${p.phase}: ${p.instances} instances, median ${ms(p.median)} ms (${p.medianInstance.name} on ${p.medianInstance.lane}); ` +
        `slowest ${ms(p.slowest.duration)} ms (${p.slowest.name} on ${p.slowest.lane} at ${ms(p.slowest.start)} ms)`,
    );
    for (const d of p.differences.slice(0, 5)) {
      const delta = d.slowest - d.median;
      out.push(`    ${delta >= 0 ? '+' : '-'}${ms(Math.abs(delta))} ms in ${d.region} (${ms(d.slowest)} against ${ms(d.median)})`);
    }
  }
  return `${out.join('\n')}\n`;
}
