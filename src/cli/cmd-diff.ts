/**
 * `hyprof diff A B`: two profile directories (hyprof's or TAU's own) compared per event, per sampled
 * function and line within each sample context, and per user event; for the mean thread or one
 * thread. Text in the manner of pprof (coloured on a terminal), or `--json`.
 */
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { UserError } from '../base/errors.js';
import type { TauProfile } from '../profile/tau-model.js';
import { buildDiff } from '../report/diff.js';
import { renderDiff } from '../report/diff-text.js';
import { parseThreadSelector } from '../report/report-data.js';
import { colourWanted } from '../report/term-colour.js';
import { readProfileWithProgress } from '../view/read-profile.js';
import { positiveInt } from './cmd-report.js';
import { unitsOption } from './units-option.js';
import type { UnitChoice } from '../base/units.js';

interface DiffCliOptions {
  thread?: string;
  metric?: string;
  limit?: number;
  json?: boolean;
  units?: UnitChoice;
}

/** A profile directory, read; what is wrong with the argument is said with its role (A or B). */
export function readRun(dir: string, role: string) {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new UserError(`${role} ${dir}: no such directory`);
  }
  if (!isDir) throw new UserError(`${role} ${dir}: not a directory (give a profile directory)`);
  try {
    return readProfileWithProgress(dir);
  } catch (e) {
    if (e instanceof UserError) throw new UserError(`${role}: ${e.message}`, e.exitCode);
    throw e;
  }
}

/** --node n compares thread n,0,0: said as --node (not as the --thread it stands for) when a run lacks it. */
function requireNode(p: TauProfile, node: number, role: string): void {
  const threads = p.threads[0] ?? [];
  if (threads.some((t) => t.node === node && t.context === 0 && t.thread === 0)) return;
  const nodes = [...new Set(threads.map((t) => t.node))];
  const shown = nodes.slice(0, 20).join(', ') + (nodes.length > 20 ? ', …' : '');
  throw new UserError(`--node ${node}: ${role} ${p.dir} has no thread ${node},0,0 (its nodes: ${shown})`, 2);
}

export function register(program: Command): void {
  program
    .command('diff')
    .description('compare two TAU profile directories (before/after): per event, sampled function and line, user event; B relative to A')
    .argument('<a>', 'the first profile directory (the baseline)')
    .argument('<b>', 'the second profile directory (compared with A)')
    .option('--thread <sel>', 'compare this thread of both runs: N (thread number) or n,c,t; default the mean thread (totals divided by the thread count)')
    .option('--node <n>', 'compare thread 0 of this node (MPI rank) of both runs: the same as --thread n,0,0')
    .option('--metric <name>', 'metric to compare (default: the first of A; both runs must have it)')
    .option('--limit <n>', 'at most n rows per table (text only; default 20)', positiveInt('--limit'), 20)
    .option('--json', 'print the whole comparison as JSON (every row)')
    .addOption(unitsOption())
    .addHelpText(
      'after',
      '\nValues: TIME metrics in a unit chosen per table for its largest value (microseconds in --json), other metrics\n' +
        'as counts. Sampled values carry their sampling error (value/sqrt(samples) per run); a change within 3 errors\n' +
        'is marked noise and listed after the changes; timer values are probe-measured (exact). Rows present in one\n' +
        'run only are marked "only in A" / "only in B". Colours (red: B larger, green: B smaller) only on a terminal;\n' +
        'NO_COLOR turns them off, FORCE_COLOR on.',
    )
    .action((a: string, b: string, opts: DiffCliOptions & { node?: string }) => {
      if (opts.node !== undefined && opts.thread !== undefined) {
        throw new UserError(`--thread ${opts.thread} and --node ${opts.node}: give one of them (thread t of node n is --thread n,0,t)`, 2);
      }
      if (opts.node !== undefined && !/^\d+$/.test(opts.node.trim())) throw new UserError(`--node must be a whole number (an MPI rank), not '${opts.node}'`, 2);
      const thread = opts.node !== undefined ? parseThreadSelector(`${opts.node.trim()},0,0`) : opts.thread !== undefined ? parseThreadSelector(opts.thread) : { kind: 'mean' as const };
      if (thread.kind === 'all') throw new UserError('--thread all: diff compares one thread or the mean; give N, n,c,t or mean', 2);
      const pa = readRun(a, 'A');
      const pb = readRun(b, 'B');
      if (opts.node !== undefined) for (const [p, role] of [[pa, 'A'], [pb, 'B']] as const) requireNode(p, Number(opts.node.trim()), role);
      const d = buildDiff(pa, pb, { metric: opts.metric, thread });
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(d, null, 2)}\n`);
        return;
      }
      process.stdout.write(renderDiff(d, { limit: opts.limit, colour: colourWanted(process.stdout.isTTY, process.env), units: opts.units }));
    });
}
