/**
 * Folding (docs/fold.md): the samples of thousands of instances of one timer placed on one synthetic
 * instance, each at its offset from its own instance's start, normalised by that instance's length.
 * Reads the fold files `hyprof resolve` wrote beside the profile (src/profile/fold-file.ts); the
 * text is fold-text.ts, the viewer's Fold view uses the same data (src/view/).
 *
 * Decisions:
 * - Instances of very different lengths are split into classes where their sorted lengths jump by
 *   more than CLASS_GAP between neighbours (a 1 ms and a 10 ms variant of an iteration behave
 *   differently: folding them together would mix two shapes); within a class time is normalised
 *   (0-100 % of each instance), and shown as absolute time too when the class is narrow (p90/p10 at
 *   most SIMILAR), where a percentage maps onto one time.
 * - On the wall-clock axis, when CPU_TIME was measured too, instances whose thread ran less than RAN of
 *   their time (CPU_TIME / TIME) are folded apart from those that ran: an instance that waited (for a
 *   CPU on a loaded machine, or blocked) is stretched where it waited, and a sample timer that fires
 *   while its thread waits is delivered once, when it runs again, so its fold shows where the thread
 *   resumed rather than where the time went. Folding the two together would blur the shape of both.
 *   The length classes are made within each.
 * - A metric's rate per bin comes from the mean cumulative curve (BSC's folding of counters): each
 *   sample on the instance's own thread carries the counter since its instance's start; the mean of
 *   those values near each bin edge (plus 0 at the start and the instance's total at its end) gives
 *   the counter there, and the rate of a bin is the difference over its time. Its resolution is the
 *   bin, not the sampling interval, because the samples of different instances fall at different
 *   phases.
 * - Confidence: a bin's shares are proportions of its samples; the 95 % half-width of the top share
 *   (Wilson score interval) is given, and a bin with fewer than FEW samples says so instead.
 */
import { UserError } from '../base/errors.js';
import { listFoldFiles, readFoldFile, type FoldFile, type FoldSeries } from '../profile/fold-file.js';

export const CLASS_GAP = 1.5;
export const SIMILAR = 1.25;
export const FEW = 10;
/** An instance whose thread ran at least this share of its wall-clock time "ran"; others "waited". */
export const RAN = 0.9;

export interface FoldOptions {
  /** A series pattern (as given to HYPROF_FOLD) or the name of one of its timers. */
  name: string;
  bins?: number;
  /** Only the samples of this thread (default: every thread). */
  thread?: number;
  /** Only the processes of this node (MPI rank). */
  node?: number;
  /** The time axis: TIME (wall clock, the default) or a time metric measured with it (CPU_TIME). */
  time?: string;
}

export interface FoldShare {
  name: string;
  share: number;
  samples: number;
}

export interface FoldBin {
  /** Normalised time, per cent of the instance. */
  from: number;
  to: number;
  /** Absolute time in ms from the instance's start (classes of similar lengths only). */
  fromMs?: number;
  toMs?: number;
  samples: number;
  instances: number;
  functions: FoldShare[];
  lines: FoldShare[];
  /** By metric after TIME: the rate (a ratio for time metrics, per ms for counts), null when unknown. */
  rates: Record<string, number | null>;
  /** 95 % half-width of the top function's share, null when the bin has fewer than FEW samples. */
  confidence: number | null;
  note?: string;
}

export interface FoldThreadRow {
  thread: number;
  samples: number;
  /** Per bin, the top function's name, null without samples. */
  top: (string | null)[];
  /** Per bin, the samples of that top function (0 without samples): how much a bin's lead rests on. */
  topSamples: number[];
}

/** The functions of a class as shares of each bin: the STACK_FUNCTIONS most sampled, the rest as "other". */
export interface FoldStack {
  functions: string[];
  /** shares[f][bin]: the share of bin `bin`'s samples in function f (0 for a bin without samples). */
  shares: number[][];
}

export const STACK_FUNCTIONS = 8;

export interface FoldClass {
  instances: number;
  samples: number;
  lengthMs: { min: number; p10: number; median: number; p90: number; max: number };
  absolute: boolean;
  /** Wall-clock axis with CPU_TIME measured: true for instances whose thread ran less than RAN of their
   * time, false for those that ran; absent otherwise. */
  waited?: boolean;
  bins: FoldBin[];
  threads: FoldThreadRow[];
  stack: FoldStack;
}

export interface FoldReport {
  file: string;
  node: number;
  context: number;
  series: string;
  events: number;
  instanceThreads: number[];
  instances: number;
  samples: number;
  lost: FoldSeries['lost'];
  capacity: FoldSeries['capacity'];
  metrics: string[];
  /** The time axis: TIME, or the metric given with --time (e.g. CPU_TIME). */
  axis: string;
  /** Samples that cannot be placed on that axis (another thread's, whose metric is unknown). */
  offAxis: number;
  /** How the lengths were handled, in words. */
  classRule: string;
  classes: FoldClass[];
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))));
  return sorted[i];
}

/** The 95 % Wilson score interval's half-width for a share p of n samples: unlike the normal
 * approximation it is not 0 when every sample agrees (20 of 20 samples say "at least 84 %"). */
export function wilsonHalfWidth(p: number, n: number): number {
  const z = 1.96;
  const z2n = (z * z) / n;
  return (z * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n))) / (1 + z2n);
}

/** Instances (indexes) split into classes at gaps of their sorted lengths. */
export function lengthClasses(durations: number[], indexes: number[]): number[][] {
  const sorted = [...indexes].sort((a, b) => durations[a] - durations[b]);
  const out: number[][] = [];
  let cur: number[] = [];
  for (const i of sorted) {
    const prev = cur.length ? durations[cur[cur.length - 1]] : 0;
    if (cur.length && durations[i] > CLASS_GAP * Math.max(prev, 1)) {
      out.push(cur);
      cur = [];
    }
    cur.push(i);
  }
  if (cur.length) out.push(cur);
  return out;
}

const isTimeMetric = (m: string) => /TIME|task-clock|cpu-clock/i.test(m);

function findSeries(f: FoldFile, name: string): FoldSeries | undefined {
  return f.series.find((s) => s.name === name) ?? f.series.find((s) => s.events.includes(name));
}

/** Fold one series of one fold file. */
export function foldSeries(f: FoldFile, s: FoldSeries, file: string, opts: FoldOptions): FoldReport {
  const nBins = opts.bins ?? 20;
  const frameName = (i: number) => f.frames[i][0];
  const lineName = (i: number) => {
    const [fn, file, line] = f.frames[i];
    return file ? `${fn} [${file.slice(file.lastIndexOf('/') + 1)}:${line}]` : fn;
  };
  const axis = opts.time ?? 'TIME';
  const axisM = axis === 'TIME' ? -1 : f.metrics.indexOf(axis) - 1;
  if (axisM < -1 || (axis !== 'TIME' && !isTimeMetric(axis))) {
    throw new UserError(`--time ${axis}: not a time metric of this fold (it has ${f.metrics.filter(isTimeMetric).join(', ')})`);
  }
  const extra = f.metrics.slice(1).filter((m) => m !== axis);
  const extraIdx = extra.map((m) => f.metrics.indexOf(m) - 1);
  const inst = s.instances;
  const duration = axisM < 0 ? inst.duration : inst.metrics[axisM];
  const offsetOf = (i: number) => (axisM < 0 ? s.samples.offset[i] : s.samples.metrics[axisM][i]);
  const all = duration.map((_, i) => i).filter((i) => duration[i] > 0);
  // ran / waited (see the decisions above): on the wall-clock axis with the thread's CPU time known
  const cpuM = axisM < 0 ? f.metrics.indexOf('CPU_TIME') - 1 : -1;
  const waitedOf = (i: number) => inst.metrics[cpuM][i] < RAN * inst.duration[i];
  const parts = cpuM < 0 ? [all] : [all.filter((i) => !waitedOf(i)), all.filter(waitedOf)];
  const groups = parts.flatMap((part) => lengthClasses(duration, part));
  let offAxis = 0;
  const sampleIdx = s.samples.thread.map((_, i) => i).filter((i) => {
    if (opts.thread !== undefined && s.samples.thread[i] !== opts.thread) return false;
    if (offsetOf(i) < 0) offAxis++;
    return offsetOf(i) >= 0;
  });
  const byInstance = new Map<number, number[]>();
  for (const i of sampleIdx) {
    const k = s.samples.instance[i];
    let l = byInstance.get(k);
    if (!l) byInstance.set(k, (l = []));
    l.push(i);
  }
  const classes: FoldClass[] = groups.map((members) => {
    const durs = members.map((i) => duration[i]).sort((a, b) => a - b);
    const ms = (ns: number) => ns / 1e6;
    const lengthMs = { min: ms(durs[0]), p10: ms(quantile(durs, 0.1)), median: ms(quantile(durs, 0.5)), p90: ms(quantile(durs, 0.9)), max: ms(durs[durs.length - 1]) };
    const absolute = quantile(durs, 0.9) <= SIMILAR * Math.max(quantile(durs, 0.1), 1);
    const meanDur = durs.reduce((a, b) => a + b, 0) / durs.length;
    const fnCount = Array.from({ length: nBins }, () => new Map<number, number>());
    const lineCount = Array.from({ length: nBins }, () => new Map<number, number>());
    const instSeen = Array.from({ length: nBins }, () => new Set<number>());
    const perThread = new Map<number, Map<number, number>[]>();
    const counts = new Array<number>(nBins).fill(0);
    // counter points per metric: x (0..1), y (value since the instance's start)
    const edgeSum = extra.map(() => new Array<number>(nBins + 1).fill(0));
    const edgeN = extra.map(() => new Array<number>(nBins + 1).fill(0));
    let samples = 0;
    for (const k of members) {
      const d = duration[k];
      extraIdx.forEach((mi, m) => {
        edgeN[m][0]++;
        edgeN[m][nBins]++;
        edgeSum[m][nBins] += inst.metrics[mi][k];
      });
      for (const i of byInstance.get(k) ?? []) {
        const x = Math.min(Math.max(offsetOf(i) / d, 0), 0.999999);
        const b = Math.floor(x * nBins);
        samples++;
        counts[b]++;
        instSeen[b].add(k);
        const fn = s.samples.function[i];
        fnCount[b].set(fn, (fnCount[b].get(fn) ?? 0) + 1);
        lineCount[b].set(s.samples.leaf[i], (lineCount[b].get(s.samples.leaf[i]) ?? 0) + 1);
        const t = s.samples.thread[i];
        let rows = perThread.get(t);
        if (!rows) perThread.set(t, (rows = Array.from({ length: nBins }, () => new Map<number, number>())));
        rows[b].set(fn, (rows[b].get(fn) ?? 0) + 1);
        // the nearest inner edge, when the sample lies within half a bin of it
        const e = Math.round(x * nBins);
        if (e > 0 && e < nBins && Math.abs(x * nBins - e) < 0.5 && s.samples.thread[i] === inst.thread[k]) {
          extraIdx.forEach((mi, m) => {
            const v = s.samples.metrics[mi][i];
            if (v >= 0) {
              edgeSum[m][e] += v;
              edgeN[m][e]++;
            }
          });
        }
      }
    }
    const top = (c: Map<number, number>, n: number, name: (i: number) => string, total: number): FoldShare[] =>
      [...c].sort((a, b) => b[1] - a[1]).slice(0, n).map(([i, v]) => ({ name: name(i), share: v / total, samples: v }));
    const binMs = meanDur / 1e6 / nBins;
    const bins: FoldBin[] = counts.map((n, b) => {
      const functions = n ? top(fnCount[b], 3, frameName, n) : [];
      const rates: Record<string, number | null> = {};
      extra.forEach((m, mi) => {
        const ok = (e: number) => edgeN[mi][e] >= 5;
        if (!ok(b) || !ok(b + 1)) {
          rates[m] = null;
          return;
        }
        const delta = edgeSum[mi][b + 1] / edgeN[mi][b + 1] - edgeSum[mi][b] / edgeN[mi][b];
        rates[m] = isTimeMetric(m) ? delta / (binMs * 1e6) : delta / binMs;
      });
      const confidence = n >= FEW ? wilsonHalfWidth(functions[0]?.share ?? 0, n) : null;
      return {
        from: (100 * b) / nBins,
        to: (100 * (b + 1)) / nBins,
        ...(absolute ? { fromMs: b * binMs, toMs: (b + 1) * binMs } : {}),
        samples: n,
        instances: instSeen[b].size,
        functions,
        lines: n ? top(lineCount[b], 1, lineName, n) : [],
        rates,
        confidence,
        ...(n === 0 ? { note: 'no samples' } : n < FEW ? { note: `too few samples (${n})` } : {}),
      };
    });
    const threads: FoldThreadRow[] = [...perThread]
      .sort((a, b) => a[0] - b[0])
      .map(([thread, rows]) => {
        const lead = rows.map((r) => (r.size ? [...r].sort((a, b) => b[1] - a[1])[0] : null));
        return {
          thread,
          samples: rows.reduce((a, r) => a + [...r.values()].reduce((x, y) => x + y, 0), 0),
          top: lead.map((l) => (l ? frameName(l[0]) : null)),
          topSamples: lead.map((l) => (l ? l[1] : 0)),
        };
      });
    const totals = new Map<number, number>();
    for (const m of fnCount) for (const [fn, n] of m) totals.set(fn, (totals.get(fn) ?? 0) + n);
    const chosen = [...totals].sort((a, b) => b[1] - a[1]).slice(0, STACK_FUNCTIONS).map(([fn]) => fn);
    const shares = chosen.map((fn) => fnCount.map((m, b) => (counts[b] ? (m.get(fn) ?? 0) / counts[b] : 0)));
    const names = chosen.map(frameName);
    if (totals.size > chosen.length) {
      names.push('other');
      shares.push(counts.map((n, b) => (n ? 1 - chosen.reduce((a, fn) => a + (fnCount[b].get(fn) ?? 0), 0) / n : 0)));
    }
    const waited = cpuM < 0 ? {} : { waited: waitedOf(members[0]) };
    return { instances: members.length, samples, lengthMs, absolute, ...waited, bins, threads, stack: { functions: names, shares } };
  });
  const ranRule =
    cpuM < 0
      ? ''
      : `; instances whose thread ran less than ${RAN * 100} % of their time (CPU_TIME/TIME: ${parts[1].length} of ${all.length}) ` +
        'waited, for a CPU or blocked, and are folded apart from those that ran (a waiting thread\'s samples fall where it resumed)';
  const classRule =
    (groups.length <= 1
      ? `one class: no jump of more than ${CLASS_GAP}x between neighbouring lengths; time normalised to 0-100 % of each instance`
      : `${groups.length} classes: the sorted lengths jump by more than ${CLASS_GAP}x between them (instances that differ this much ` +
        'do different work); each class folded alone, time normalised to 0-100 % of each instance') + ranRule;
  return {
    file,
    node: f.node,
    context: f.context,
    series: s.name,
    events: s.events.length,
    instanceThreads: [...new Set(inst.thread)].sort((a, b) => a - b),
    instances: all.length,
    samples: classes.reduce((a, c) => a + c.samples, 0),
    lost: s.lost,
    capacity: s.capacity,
    metrics: extra,
    axis,
    offAxis,
    classRule,
    classes,
  };
}

/** The folds of series `opts.name` in every fold file of a profile directory (one per process). */
export function foldReports(dir: string, opts: FoldOptions): FoldReport[] {
  const files = listFoldFiles(dir);
  if (files.length === 0) {
    throw new UserError(`${dir}: no fold files (fold.<node>.<context>.json): run the program with HYPROF_FOLD=<timer> set (docs/fold.md)`);
  }
  const out: FoldReport[] = [];
  const names = new Set<string>();
  for (const file of files) {
    const f = readFoldFile(file);
    if (opts.node !== undefined && f.node !== opts.node) continue;
    for (const s of f.series) names.add(s.name);
    const s = findSeries(f, opts.name);
    if (s) out.push(foldSeries(f, s, file, opts));
  }
  if (out.length === 0) {
    throw new UserError(`--fold ${opts.name}: no such folded timer in ${dir} (folded: ${[...names].map((n) => `'${n}'`).join(', ') || 'none'})`);
  }
  return out;
}
