/**
 * `hyprof report` on a profile directory, as the pieces of text (or JSON) it prints: TAU pprof's
 * tables per thread and the mean, the event-path tree, the cross-rank views of an MPI run, the MPI
 * accounting and communication matrix, the diagnoses, the OpenMP analysis, the samples by function,
 * one event across threads, the trace's findings or a fold, as the options ask. Pieces, printed as
 * they come: the report of millions of events may exceed what one string can hold, and each
 * thread's section is made as its file is read. The command (cli/cmd-report.ts) prints them.
 */
import { hasOpenmpFile, readOpenmpFile } from '../analysis/openmp.js';
import { UserError } from '../base/errors.js';
import { jsonPieces } from '../base/json-pieces.js';
import { createProgress } from '../base/progress.js';
import type { UnitChoice } from '../base/units.js';
import { chooseMetric, listProfileDir, mayBeMultiRank, unresolvedRaw } from '../profile/profile-dir.js';
import { threadLabel } from '../profile/tau-model.js';
import { readTauProfileDir } from '../profile/tau-reader.js';
import { hasTrace, readTrace, traceAnchor } from '../trace/otf2-index.js';
import { buildModel } from '../trace/trace-model.js';
import { commMatrix } from './comm-matrix.js';
import { eventAcrossThreads } from './event-threads.js';
import { renderEventBars } from './event-threads-text.js';
import { foldReports } from './fold.js';
import { renderFold } from './fold-text.js';
import { mpiAccounting, mpiDiagnoses, ranksReport, type RanksReport } from './mpi-report.js';
import { scanRanks, workOf } from './rank-scan.js';
import { assembleReport, parseThreadSelector, sampleCounts, selectThreads, ThreadReportBuilder, threadOptions } from './report-data.js';
import type { SortKey, ThreadReport, ThreadSelector } from './report-data.js';
import { buildFunctionReport, renderFunctionReport } from './report-functions.js';
import { renderCommMatrix, renderMpiAccounting, renderMpiDiagnoses, renderRanks } from './report-mpi.js';
import { renderDiagnoses, renderOpenmpReport } from './report-openmp.js';
import { buildGpuReport, renderGpuReport } from './gpu-report.js';
import { reportPieces } from './report-text.js';
import { buildTraceReport, renderTraceReport } from './report-trace.js';

export interface ReportOptions {
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
  /** Bars of --event in colour (a terminal that shows it). */
  colour?: boolean;
  fold?: string;
  bins?: number;
  time?: string;
}

/** Profiles with more threads than this print the mean and the cross-rank views unless --thread asks for more. */
export const ALL_THREADS_UP_TO = 16;

/** The report of the profile directory `dir`, in the pieces to print one after the other. */
export async function* reportDir(dir: string, opts: ReportOptions): AsyncGenerator<string> {
  if (opts.trace) {
    if (!hasTrace(dir)) throw new UserError(`--trace: ${dir} has no trace (${traceAnchor(dir)} is missing; record one with HYPROF_TRACE=1)`);
    const r = buildTraceReport(buildModel(await readTrace(dir)));
    yield opts.json ? `${JSON.stringify(r, null, 2)}\n` : renderTraceReport(r, { limit: opts.limit });
    return;
  }
  if (opts.fold !== undefined) {
    const thread = opts.thread === undefined ? undefined : Number(opts.thread);
    if (thread !== undefined && !Number.isInteger(thread)) throw new UserError(`--thread ${opts.thread}: with --fold, a thread number`);
    const r = foldReports(dir, { name: opts.fold, bins: opts.bins, thread, time: opts.time });
    yield opts.json ? `${JSON.stringify(r, null, 2)}\n` : renderFold(r);
    return;
  }
  if (opts.gpu) {
    const profile = readTauProfileDir(dir);
    const r = buildGpuReport(profile.threads[0]);
    if (!r) throw new UserError(`--gpu: ${dir} has no GPU threads (a CUDA program run with \`hyprof run\` where the CUDA layer was built: docs/gpu.md)`);
    const unit = /(^|_)TIME$/.test(profile.metrics[0]) ? 'µs' : profile.metrics[0];
    yield opts.json ? `${JSON.stringify(r, null, 2)}\n` : renderGpuReport(r, unit, opts.limit);
    return;
  }
  if (opts.openmp) {
    // The analysis `hyprof resolve` wrote beside the profile (openmp.json).
    const data = readOpenmpFile(dir);
    if (opts.json) {
      yield `${JSON.stringify(data, null, 2)}\n`;
      return;
    }
    const parts = [renderOpenmpReport(data, { limit: opts.limit })];
    if (opts.diagnose) parts.push(renderDiagnoses(data));
    yield `${parts.map((p) => p.replace(/\n*$/, '\n')).join('\n')}`;
    return;
  }
  if (opts.event !== undefined) {
    const profile = readTauProfileDir(dir);
    const mi = opts.metric === undefined ? 0 : profile.metrics.indexOf(opts.metric);
    if (mi < 0) throw new UserError(`--metric ${opts.metric}: not in this profile (it has ${profile.metrics.join(', ')})`);
    const e = eventAcrossThreads(profile, mi, opts.event);
    yield opts.json ? `${JSON.stringify(e, null, 2)}\n` : renderEventBars(e, { colour: opts.colour ?? false, units: opts.units });
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
    yield opts.json ? `${JSON.stringify(f, null, 2)}\n` : renderFunctionReport(f, opts.units);
    return;
  }
  yield* profileReport(dir, opts);
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

async function* profileReport(dir: string, opts: ReportOptions): AsyncGenerator<string> {
  if (opts.matrix && !opts.mpi) throw new UserError('--matrix is a part of the MPI accounting: give it with --mpi (hyprof report DIR --mpi --matrix)');
  const sets = listProfileDir(dir);
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
  const multiRank = scan.ranks.size > 1 || scan.records.summary().worldSize !== undefined;

  if (opts.mpi || opts.diagnose) {
    const hasMpi = scan.totals.withMpi > 0;
    const hasOmp = hasOpenmpFile(dir);
    if (opts.mpi && !hasMpi) {
      throw new UserError(
        `${dir}: no MPI events in this profile. They are recorded by hyprof's MPI layer: run the program under ` +
          '`hyprof run` (it preloads the layer), or link it with $(hyprof config --libs --mpi)',
      );
    }
    if (opts.diagnose && !hasMpi) {
      const data = readOpenmpFile(dir);
      yield opts.json ? `${JSON.stringify(data, null, 2)}\n` : renderDiagnoses(data).replace(/\n*$/, '\n');
      return;
    }
    const ranks = withNote(ranksReport(scan, opts.limit), unresolved);
    const accounting = mpiAccounting(scan);
    const diagnoses = mpiDiagnoses(scan, (nodes, contexts) => workOf(set, nodes, contexts));
    if (opts.json) {
      const omp = opts.diagnose && hasOmp ? readOpenmpFile(dir) : undefined;
      const matrix = opts.matrix ? { matrix: commMatrix(scan.matrix) } : {};
      const body = opts.mpi ? { ranks, mpi: accounting, ...matrix, ...(opts.diagnose ? { diagnoses } : {}) } : { ...(omp ?? {}), mpi: diagnoses, ranks };
      yield `${JSON.stringify(body, null, 2)}\n`;
      return;
    }
    const parts: string[] = [];
    if (ranks.notes.length > 0) parts.push(`${ranks.notes.map((n) => `WARNING: ${n}`).join('\n')}\n`);
    if (opts.mpi) parts.push(renderMpiAccounting(accounting, { limit: opts.limit }));
    if (opts.matrix) parts.push(renderCommMatrix(commMatrix(scan.matrix), { limit: opts.limit }));
    if (opts.diagnose) {
      if (hasOmp) parts.push(renderDiagnoses(readOpenmpFile(dir)));
      parts.push(renderMpiDiagnoses(diagnoses, scan.ranks.size));
    }
    yield `${parts.map((p) => p.replace(/\n*$/, '\n')).join('\n')}`;
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
    for (const piece of jsonPieces(ranks ? { ...built, ranks } : built, 2)) yield piece;
    yield '\n';
    return;
  }
  for (const piece of reportPieces(built, opts.units)) yield piece;
  let text = '';
  if (opts.thread === undefined && many) {
    text += `\n(${scan.threads} threads: the mean is printed; each thread with --thread all, one with --thread n,c,t)\n`;
  }
  if (ranks) text += `${renderRanks(ranks, built.unit).map((l) => l.replace(/\s+$/, '')).join('\n')}\n`;
  yield text;
}

function withNote(r: RanksReport, note: string | null): RanksReport {
  return note ? { ...r, notes: [...r.notes, note] } : r;
}
