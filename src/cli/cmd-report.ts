/**
 * `hyprof report`: a TAU profile directory (hyprof's or TAU's own) printed in the terminal in the
 * manner of TAU's pprof, plus event paths, hot lines per context, sample drops and user events.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { hasOpenmpFile, readOpenmpFile } from '../analysis/openmp.js';
import { UserError } from '../base/errors.js';
import { createProgress } from '../base/progress.js';
import { mpiAccounting, mpiDiagnoses, ranksReport, type RanksReport } from '../report/mpi-report.js';
import { scanRanks, workOf } from '../report/rank-scan.js';
import { assembleReport, parseThreadSelector, sampleCounts, selectThreads, ThreadReportBuilder, threadOptions } from '../report/report-data.js';
import type { ThreadReport } from '../report/report-data.js';
import type { SortKey, ThreadSelector } from '../report/report-data.js';
import { renderCommMatrix, renderMpiAccounting, renderMpiDiagnoses, renderRanks } from '../report/report-mpi.js';
import { commMatrix } from '../report/comm-matrix.js';
import { renderDiagnoses, renderOpenmpReport } from '../report/report-openmp.js';
import { buildGpuReport, renderGpuReport } from '../report/gpu-report.js';
import { reportPieces } from '../report/report-text.js';
import { jsonPieces } from '../base/json-pieces.js';
import { buildFunctionReport, renderFunctionReport } from '../report/report-functions.js';
import { eventAcrossThreads } from '../report/event-threads.js';
import { renderEventBars } from '../report/event-threads-text.js';
import { colourWanted } from '../report/term-colour.js';
import { foldReports } from '../report/fold.js';
import { renderFold } from '../report/fold-text.js';
import { threadLabel } from '../profile/tau-model.js';
import { listProfileFiles, readProfileHeader, readTauProfileDir, type MetricFiles } from '../profile/tau-reader.js';
import { RANK_RAW_DIR } from './mpi-launchers.js';
import { buildTraceReport, renderTraceReport } from '../report/report-trace.js';
import { hasTrace, readTrace, traceAnchor } from '../trace/otf2-index.js';
import { buildModel } from '../trace/trace-model.js';
import { rawFilesUnder } from './raw-inputs.js';
import { unitsOption } from './units-option.js';
import type { UnitChoice } from '../base/units.js';

interface ReportCliOptions {
  callpath?: boolean;
  thread?: string;
  metric?: string;
  sort: SortKey;
  limit?: number;
  hot: number;
  json?: boolean;
  openmp?: boolean;
  gpu?: boolean;
  mpi?: boolean;
  matrix?: boolean;
  diagnose?: boolean;
  functions?: boolean;
  event?: string;
  trace?: boolean;
  units?: UnitChoice;
  fold?: string;
  bins?: number;
  time?: string;
}

/** Profiles with more threads than this print the mean and the cross-rank views unless --thread asks for more. */
const ALL_THREADS_UP_TO = 16;

export function positiveInt(what: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < 1) {
      throw new InvalidArgumentError(`${what} must be a whole number of at least 1, not '${value}'.`);
    }
    return Number(value);
  };
}

/** Does the selection print thread t in full? */
function selects(sel: ThreadSelector, t: { node: number; context: number; thread: number }): boolean {
  switch (sel.kind) {
    case 'all':
      return true;
    case 'mean':
      return false;
    case 'thread':
      return t.thread === sel.thread;
    case 'nct':
      return t.node === sel.node && t.context === sel.context && t.thread === sel.thread;
  }
}

/** The metric set to report: --metric, else the first. */
function chooseMetric(sets: MetricFiles[], metric?: string): MetricFiles {
  if (metric === undefined) return sets[0];
  const set = sets.find((x) => x.metric === metric);
  if (!set) throw new UserError(`--metric ${metric}: not in this profile (it has ${sets.map((x) => x.metric).join(', ')})`);
  return set;
}

function report(dir: string, opts: ReportCliOptions): void {
  if (opts.matrix && !opts.mpi) throw new UserError('--matrix is a part of the MPI accounting: give it with --mpi (hyprof report DIR --mpi --matrix)');
  let sets: MetricFiles[];
  try {
    sets = listProfileFiles(dir);
  } catch (e) {
    const note = existsSync(dir) ? (unresolvedRaw(dir) ?? rawBeside(dir)) : null;
    if (e instanceof UserError && note) throw new UserError(`${e.message}; ${note}`);
    throw e;
  }
  const set = chooseMetric(sets, opts.metric);
  // A merged file's thread count is known only once read: treat it as many.
  const many = set.merged !== undefined || set.files.length > ALL_THREADS_UP_TO;
  const sel = opts.thread !== undefined ? parseThreadSelector(opts.thread) : many ? ({ kind: 'mean' } as const) : ({ kind: 'all' } as const);
  if ((sel.kind === 'thread' || sel.kind === 'nct') && !set.merged) {
    if (!set.files.some((f) => selects(sel, f))) {
      const have =
        set.files.length > 40
          ? `${set.files.length} threads`
          : sel.kind === 'thread'
            ? set.files.map((f) => f.thread).join(', ')
            : set.files.map((f) => `${f.node},${f.context},${f.thread}`).join('; ');
      throw new UserError(`--thread ${opts.thread}: no such thread (the profile has ${have})`);
    }
  }
  const progress = createProgress();
  const common = threadOptions({ sort: opts.sort, limit: opts.limit, callpath: opts.callpath ?? false, hotLines: opts.hot });
  // The threads printed in full: each section is made as its file is read, line by line, and
  // finished at the file's end (what it needed only while reading is dropped then).
  const printed: ThreadReport[] = [];
  let firstMetadata: Array<[string, string]> | undefined;
  const unresolved = unresolvedRaw(dir);
  // --mpi and --diagnose print the cross-rank views only, not the sections of threads or the mean.
  const sectionsWanted = !opts.mpi && !opts.diagnose;
  // What is summed over threads costs an entry per event: only what this report prints is.
  const needs = {
    mean: sectionsWanted && (sel.kind === 'mean' || (sel.kind === 'all' && (set.merged !== undefined || set.files.length > 1))),
    spreads: opts.mpi === true || opts.diagnose === true || unresolved !== null || mayBeMultiRank(set),
    matrix: opts.matrix === true,
  };
  // One pass over the files: the threads printed in full get their sections, the rest is summed as it goes.
  const scan = scanRanks(
    set,
    (i, n) => progress.update(`hyprof: reading ${dir} (${i}/${n})`),
    (t) => {
      if (!sectionsWanted || !selects(sel, t)) return undefined;
      const b = new ThreadReportBuilder(common);
      b.begin(t);
      firstMetadata ??= t.metadata;
      return {
        begin: () => undefined,
        event: (name, calls, subrs, excl, incl, group) => b.event(name, calls, subrs, excl, incl, group),
        userEvent: (u) => b.userEvent(u),
        end: () => printed.push(b.finish(threadLabel(t), sampleCounts(t))),
      };
    },
    needs,
  );
  progress.done();
  const multiRank = scan.ranks.size > 1 || scan.records.some((r) => r.attributes.some(([k]) => k === 'MPI World Size'));

  if (opts.mpi || opts.diagnose) {
    const hasMpi = [...scan.ranks.values()].some((r) => r.mpiCalls > 0);
    const hasOmp = hasOpenmpFile(dir);
    if (opts.mpi && !hasMpi) {
      throw new UserError(
        `${dir}: no MPI events in this profile. They are recorded by hyprof's MPI layer: run the program under ` +
          '`hyprof run` (it preloads the layer), or link it with $(hyprof config --libs --mpi)',
      );
    }
    if (opts.diagnose && !hasMpi) {
      renderOpenmpOnly(dir, opts);
      return;
    }
    const ranks = withNote(ranksReport(scan, opts.limit), unresolved);
    const accounting = mpiAccounting(scan);
    const diagnoses = mpiDiagnoses(scan, (nodes, contexts) => workOf(set, nodes, contexts));
    if (opts.json) {
      const omp = opts.diagnose && hasOmp ? readOpenmpFile(dir) : undefined;
      const matrix = opts.matrix ? { matrix: commMatrix(scan) } : {};
      const body = opts.mpi ? { ranks, mpi: accounting, ...matrix, ...(opts.diagnose ? { diagnoses } : {}) } : { ...(omp ?? {}), mpi: diagnoses, ranks };
      process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
      return;
    }
    const parts: string[] = [];
    if (ranks.notes.length > 0) parts.push(`${ranks.notes.map((n) => `WARNING: ${n}`).join('\n')}\n`);
    if (opts.mpi) parts.push(renderMpiAccounting(accounting, { limit: opts.limit }));
    if (opts.matrix) parts.push(renderCommMatrix(commMatrix(scan), { limit: opts.limit }));
    if (opts.diagnose) {
      if (hasOmp) parts.push(renderDiagnoses(readOpenmpFile(dir)));
      parts.push(renderMpiDiagnoses(diagnoses, scan.ranks.size));
    }
    process.stdout.write(`${parts.map((p) => p.replace(/\n*$/, '\n')).join('\n')}`);
    return;
  }

  // A merged file's threads are known only once read: a thread not there is named now.
  if (printed.length === 0) selectThreads([], sel);
  const wantMean = sel.kind === 'mean' || (sel.kind === 'all' && scan.threads > 1);
  let mean;
  if (wantMean) {
    const b = new ThreadReportBuilder(common);
    scan.meanSums.feed(b, set.metric, scan.threads);
    mean = b.finish('mean', { taken: scan.samples.taken, drops: [...scan.samples.drops].map(([reason, count]) => ({ reason, count })) });
  }
  const built = assembleReport({
    dir,
    metrics: sets.map((x) => x.metric),
    metric: set.metric,
    sort: common.sort,
    firstMetadata,
    threads: printed,
    mean,
  });
  const ranks = multiRank || unresolved ? withNote(ranksReport(scan, opts.limit ?? 20), unresolved) : undefined;
  // In pieces: the text of millions of events may exceed what one string can hold. Standard output
  // is synchronous on Linux for files, pipes and terminals, so pieces do not pile up in memory.
  if (opts.json) {
    for (const piece of jsonPieces(ranks ? { ...built, ranks } : built, 2)) process.stdout.write(piece);
    process.stdout.write('\n');
    return;
  }
  for (const piece of reportPieces(built, opts.units)) process.stdout.write(piece);
  let text = '';
  if (opts.thread === undefined && many) {
    text += `\n(${scan.threads} threads: the mean is printed; each thread with --thread all, one with --thread n,c,t)\n`;
  }
  if (ranks) text += `${renderRanks(ranks, built.unit).map((l) => l.replace(/\s+$/, '')).join('\n')}\n`;
  process.stdout.write(text);
}

/**
 * Whether the report may print the cross-rank views (several nodes, or a rank of an MPI run): known
 * from the file names and the first lines of each rank's first thread, before the files are read.
 */
function mayBeMultiRank(set: MetricFiles): boolean {
  if (set.merged) return true;
  if (new Set(set.files.map((f) => f.node)).size > 1) return true;
  return set.files.some((f) => f.context === 0 && f.thread === 0 && readProfileHeader(f.file).metadata.some(([k]) => k === 'MPI World Size'));
}

/**
 * Raw files that ranks of an MPI job left unresolved in the profile directory (the launcher stopped
 * them first): a note with the command that resolves them, or null.
 */
function unresolvedRaw(dir: string): string | null {
  const raw = join(dir, RANK_RAW_DIR);
  if (!existsSync(raw)) return null;
  const files = rawFilesUnder(raw);
  if (files.length === 0) return null;
  return (
    `${files.length} raw measurement file${files.length === 1 ? '' : 's'} in ${raw} ${files.length === 1 ? 'was' : 'were'} not resolved ` +
    `(the launcher stopped those ranks first): hyprof resolve ${raw} -o ${dir}`
  );
}

/**
 * Raw files directly in a directory that holds no profile: what processes stopped by a signal leave
 * (a linked program's ranks that the launcher stopped write their raw file and cannot resolve it in
 * the signal handler). A note with the command that resolves them all at once, or null.
 */
function rawBeside(dir: string): string | null {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  } catch {
    return null;
  }
  if (files.length === 0) return null;
  return (
    `it holds ${files.length} raw measurement file${files.length === 1 ? '' : 's'} (*.raw) not resolved yet ` +
    `(processes stopped by a signal write them): hyprof resolve ${dir} -o ${dir}`
  );
}

function withNote(r: RanksReport, note: string | null): RanksReport {
  return note ? { ...r, notes: [...r.notes, note] } : r;
}

/** --diagnose on a profile without MPI: the OpenMP analysis beside it (an error when there is none either). */
function renderOpenmpOnly(dir: string, opts: ReportCliOptions): void {
  const data = readOpenmpFile(dir);
  process.stdout.write(opts.json ? `${JSON.stringify(data, null, 2)}\n` : renderDiagnoses(data).replace(/\n*$/, '\n'));
}

export function register(program: Command): void {
  program
    .command('report')
    .description('print a TAU profile directory as tables (in the manner of TAU pprof)')
    .argument('[dir]', 'profile directory (profile.<node>.<context>.<thread> files or MULTI__<metric> subdirectories)', '.')
    .option('--callpath', 'also print the event-path tree (a => b), with sample contexts, hot lines and unwound chains')
    .option(
      '--thread <sel>',
      `threads to print: N (thread number), n,c,t, all (each thread and the mean) or mean (default: all up to ${ALL_THREADS_UP_TO} threads, else mean)`,
    )
    .option('--metric <name>', 'metric to print (default: the first)')
    .addOption(new Option('--sort <key>', 'order of the flat table').choices(['excl', 'incl', 'calls', 'name']).default('excl'))
    .option('--limit <n>', 'at most n rows per flat table', positiveInt('--limit'))
    .option('--hot <n>', 'sampled lines shown per context', positiveInt('--hot'), 5)
    .option('--json', 'print the same data as JSON')
    .addOption(unitsOption())
    .option('--gpu', 'GPU analysis instead: per kernel and copy, per GPU stream (busy, idle), per launching context (docs/gpu.md)')
    .option('--openmp', 'OpenMP analysis instead: blame metrics, overhead classes per region, constructs, tasks')
    .option('--mpi', 'MPI accounting instead: time and bytes per rank, per call, per calling context and parallel region, call sites')
    .option('--matrix', 'with --mpi: the communication matrix, bytes and messages per sender × receiver rank (recorded with HYPROF_COMM_MATRIX=1 or TAU_COMM_MATRIX=1)')
    .option('--diagnose', 'problems found, with their code locations: OpenMP (imbalance, serial sections, lock contention ...) and MPI load imbalance between ranks')
    .option(
      '--functions',
      'the samples by function instead: self and total (callers included) per function, over all contexts and per context, ' +
        'like perf report --no-children (--sort excl, the default) and --children (--sort incl)',
    )
    .option('--event <name>', 'one timer (or event path, or sampled function) on every thread instead: bars of its exclusive value, with mean, min, max, std. dev.')
    .option(
      '--trace',
      "the run's trace instead (DIR/traces.otf2): MPI wait states (late sender, late receiver, wait at N×N, late broadcast) per call site and rank, " +
        'OpenMP task suspensions and task problems in time, the slowest instance of each phase against the median one',
    )
    .option('--fold <name>', 'the fold of a timer recorded with HYPROF_FOLD instead: its instances folded onto one, as bins of 0-100 % with top functions and metric rates (docs/fold.md)')
    .option('--time <metric>', 'the time axis of the fold (--fold): TIME (default) or CPU_TIME when measured (HYPROF_METRICS=TIME:CPU_TIME): preemption then does not stretch instances')
    .option('--bins <n>', 'bins of the fold (--fold; default 20, 5 % each)', positiveInt('--bins'))
    .addHelpText(
      'after',
      '\nA profile of several ranks (MPI) also gets a RANKS section: ranks lost, the slowest rank, and per event\nthe mean, std. dev., min and max over all threads (ParaProf\'s mean and std. dev. views).',
    )
    .action(async (dir: string, opts: ReportCliOptions) => {
      if (opts.trace) {
        if (!hasTrace(dir)) throw new UserError(`--trace: ${dir} has no trace (${traceAnchor(dir)} is missing; record one with HYPROF_TRACE=1)`);
        const r = buildTraceReport(buildModel(await readTrace(dir)));
        process.stdout.write(opts.json ? `${JSON.stringify(r, null, 2)}\n` : renderTraceReport(r, { limit: opts.limit }));
        return;
      }
      if (opts.fold !== undefined) {
        const thread = opts.thread === undefined ? undefined : Number(opts.thread);
        if (thread !== undefined && !Number.isInteger(thread)) throw new UserError(`--thread ${opts.thread}: with --fold, a thread number`);
        const r = foldReports(dir, { name: opts.fold, bins: opts.bins, thread, time: opts.time });
        process.stdout.write(opts.json ? `${JSON.stringify(r, null, 2)}\n` : renderFold(r));
        return;
      }
      if (opts.gpu) {
        const profile = readTauProfileDir(dir);
        const r = buildGpuReport(profile.threads[0]);
        if (!r) throw new UserError(`--gpu: ${dir} has no GPU threads (a CUDA program run with \`hyprof run\` where the CUDA layer was built: docs/gpu.md)`);
        const unit = /(^|_)TIME$/.test(profile.metrics[0]) ? 'µs' : profile.metrics[0];
        process.stdout.write(opts.json ? `${JSON.stringify(r, null, 2)}\n` : renderGpuReport(r, unit, opts.limit));
        return;
      }
      if (opts.openmp) {
        // The analysis `hyprof resolve` wrote beside the profile (openmp.json).
        const data = readOpenmpFile(dir);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
          return;
        }
        const parts = [renderOpenmpReport(data, { limit: opts.limit })];
        if (opts.diagnose) parts.push(renderDiagnoses(data));
        process.stdout.write(`${parts.map((p) => p.replace(/\n*$/, '\n')).join('\n')}`);
        return;
      }
      if (opts.event !== undefined) {
        const profile = readTauProfileDir(dir);
        const mi = opts.metric === undefined ? 0 : profile.metrics.indexOf(opts.metric);
        if (mi < 0) throw new UserError(`--metric ${opts.metric}: not in this profile (it has ${profile.metrics.join(', ')})`);
        const e = eventAcrossThreads(profile, mi, opts.event);
        process.stdout.write(opts.json ? `${JSON.stringify(e, null, 2)}\n` : renderEventBars(e, { colour: colourWanted(process.stdout.isTTY, process.env), units: opts.units }));
        return;
      }
      if (opts.functions) {
        const profile = readTauProfileDir(dir);
        const f = buildFunctionReport(profile, {
          metric: opts.metric,
          thread: parseThreadSelector(opts.thread ?? 'all'),
          sort: opts.sort === 'incl' ? 'total' : 'self',
          limit: opts.limit,
        });
        process.stdout.write(opts.json ? `${JSON.stringify(f, null, 2)}\n` : renderFunctionReport(f, opts.units));
        return;
      }
      report(dir, opts);
    });
}
