/**
 * The CUDA layer's GPU records (CUDA section, src/samples/raw-cuda.ts) made into the parts of the
 * process the assembly already knows, as TAU shows GPUs:
 *
 * - one extra thread per GPU stream (device, context, stream), numbered after the host threads, with
 *   metadata naming them (`CUDA Device`, `CUDA Context`, `CUDA Stream`): each kernel, copy, set and
 *   synchronisation an event `[GPU] name` under the thread's root (calls, time), the root spanning
 *   the stream's first start to its last end (its exclusive time is the stream's idle time); each
 *   kernel's time and each copy's or set's bytes also as TAU atomic user events
 *   (`GPU Kernel Time (us) : name`, `GPU Bytes : name`);
 * - on the launching host thread, `[GPU] name` as a child of the context that launched it (the
 *   phase, timer and parameter value in force at the launch), so that
 *   `Iteration 1 => solve [ <n> = <4096> ] => [GPU] saxpy` reads as one path. Its time is the GPU's,
 *   which ran asynchronously; the values are made to add up afterwards (assemble-values.ts), so the
 *   launching contexts' inclusive times include it and the root's exclusive time gives it up
 *   (docs/gpu.md says what that means for reading the host thread).
 *
 * Records CUPTI dropped and aggregates the layer had no room for are counted as drops of the first GPU
 * thread, so that resolve says them; records whose launch was not seen are on their stream's thread
 * only, counted in its metadata (`hyprof GPU records without their launch`).
 *
 * The first GPU thread also carries the process's cut of the GPU's time by the host's waits (the
 * layer's sets of busy and waiting intervals: host waiting or not × GPU busy or idle), which
 * `report --gpu` prints (src/report/gpu-report.ts).
 */
import { EventKind, RawContexts, RawStats, type RawEvent, type RawProcess, type RawThread, type RawUserStat } from '../samples/raw-model.js';
import { GpuKind, NO_THREAD, type RawGpuRecord } from '../samples/raw-cuda.js';
import type { GpuSpans } from '../samples/raw-model.js';
import { gpuCut } from '../base/intervals.js';
import { demangleKernels, kernelName } from '../symbolize/kernel-names.js';

const GROUP = 'GPU';
/** Context ids the resolve makes: a high pattern no 64-bit hash of the runtime is likely to take, checked. */
const SYNTHETIC = 0xc0da_0000_0000_0000n;

export function withGpu(proc: RawProcess): RawProcess {
  const cuda = proc.cuda;
  if (!cuda || cuda.records.length === 0) return proc;
  demangleKernels(cuda.records.map((r) => r.name));
  const nM = proc.info.metrics.length;
  const events: RawEvent[] = [...proc.events];
  const byName = new Map<string, number>();
  const eventOf = (name: string): number => {
    let id = byName.get(name);
    if (id === undefined) {
      id = events.length;
      events.push({ id, kind: EventKind.REGION, base: id, name, group: GROUP });
      byName.set(name, id);
    }
    return id;
  };
  let root = events.find((e) => e.kind === EventKind.ROOT)?.id;
  if (root === undefined) {
    root = events.length;
    events.push({ id: root, kind: EventKind.ROOT, base: root, name: '.TAU application', group: 'TAU_DEFAULT' });
  }

  // The new contexts: [GPU] children of host contexts, and of the root for the GPU threads.
  const added: Array<{ parent: bigint; event: number }> = [];
  const keyed = new Map<string, number>();
  const contextUnder = (parent: bigint, event: number): number => {
    const k = `${parent}:${event}`;
    let i = keyed.get(k);
    if (i === undefined) {
      i = added.length;
      added.push({ parent, event });
      keyed.set(k, i);
    }
    return i;
  };
  const old = proc.contexts;
  let rootContext = 0n;
  for (let r = 0; r < old.size && rootContext === 0n; r++) if (old.parentRow[r] < 0 && old.event[r] === root) rootContext = old.id(r);

  const hostAdds = new Map<number, Map<number, RawGpuRecord[]>>();
  const streams = new Map<string, RawGpuRecord[]>();
  for (const rec of cuda.records) {
    const ev = eventOf(`[GPU] ${kernelName(rec.name)}`);
    if (rec.thread !== NO_THREAD && rec.hostContext !== 0n && proc.threads.some((t) => t.index === rec.thread)) {
      const i = contextUnder(rec.hostContext, ev);
      const perThread = hostAdds.get(rec.thread) ?? new Map<number, RawGpuRecord[]>();
      perThread.set(i, [...(perThread.get(i) ?? []), rec]);
      hostAdds.set(rec.thread, perThread);
    }
    const sk = `${rec.device}:${rec.context}:${rec.stream}`;
    streams.set(sk, [...(streams.get(sk) ?? []), rec]);
  }
  const rootIndex = rootContext === 0n ? contextUnder(0n, root) : -1;
  const gpuContext = new Map<RawGpuRecord, number>();
  for (const recs of streams.values()) for (const rec of recs) gpuContext.set(rec, contextUnder(rootContext === 0n ? -1n : rootContext, eventOf(`[GPU] ${kernelName(rec.name)}`)));

  // A table of the old contexts (same rows) and the new ones.
  const contexts = new RawContexts(old.size + added.length);
  for (let r = 0; r < old.size; r++) contexts.add(old.idLo[r], old.idHi[r], old.event[r]);
  for (let r = 0; r < old.size; r++) contexts.parentRow[r] = old.parentRow[r];
  const rowOfAdded: number[] = [];
  let next = SYNTHETIC;
  for (const a of added) {
    while (old.rowOf(next) >= 0) next++;
    const row = contexts.add(Number(next & 0xffffffffn), Number(next >> 32n), a.event);
    next++;
    rowOfAdded.push(row);
  }
  added.forEach((a, i) => {
    const parent = a.parent === -1n ? rowOfAdded[rootIndex] : a.parent === 0n ? -1 : contexts.rowOf(a.parent);
    contexts.parentRow[rowOfAdded[i]] = parent;
  });
  const rootRow = rootContext === 0n ? rowOfAdded[rootIndex] : contexts.rowOf(rootContext);

  // Host threads: their statistics and the [GPU] children.
  const threads: RawThread[] = proc.threads.map((t) => {
    const adds = hostAdds.get(t.index);
    if (!adds) return t;
    const rows: Array<{ row: number; calls: number; childCalls: number; incl: number[]; excl: number[] }> = [];
    for (const [i, recs] of adds) {
      const ns = recs.reduce((s, r) => s + r.ns, 0);
      const v = [ns, ...new Array<number>(nM - 1).fill(0)];
      rows.push({ row: rowOfAdded[i], calls: recs.reduce((s, r) => s + r.count, 0), childCalls: 0, incl: v, excl: v });
    }
    return { ...t, stats: extend(contexts, t.stats, nM, rows) };
  });

  // GPU threads.
  const userEvents = new Map(proc.userEvents);
  let nextUser = Math.max(-1, ...userEvents.keys()) + 1;
  const userOf = new Map<string, number>();
  const userEvent = (name: string): number => {
    let id = userOf.get(name);
    if (id === undefined) {
      id = nextUser++;
      userEvents.set(id, name);
      userOf.set(name, id);
    }
    return id;
  };
  let index = Math.max(-1, ...proc.threads.map((t) => t.index)) + 1;
  let first = true;
  for (const recs of [...streams.values()].sort((a, b) => a[0].device - b[0].device || a[0].context - b[0].context || a[0].stream - b[0].stream)) {
    const { device, context, stream } = recs[0];
    const start = recs.reduce((m, r) => (r.firstStart < m ? r.firstStart : m), recs[0].firstStart);
    const end = recs.reduce((m, r) => (r.lastEnd > m ? r.lastEnd : m), recs[0].lastEnd);
    const span = Number(end - start);
    const perContext = new Map<number, { calls: number; ns: number }>();
    const userStats: RawUserStat[] = [];
    for (const r of recs) {
      const i = gpuContext.get(r) as number;
      const s = perContext.get(i) ?? { calls: 0, ns: 0 };
      s.calls += r.count;
      s.ns += r.ns;
      perContext.set(i, s);
      const name = kernelName(r.name);
      if (r.kind === GpuKind.KERNEL) addUser(userStats, { userEvent: userEvent(`GPU Kernel Time (us) : ${name}`), count: r.count, min: r.nsMin / 1e3, max: r.nsMax / 1e3, sum: r.ns / 1e3, sumsqr: r.us2 });
      if (r.kind === GpuKind.MEMCPY || r.kind === GpuKind.MEMSET) addUser(userStats, { userEvent: userEvent(`GPU Bytes : ${name}`), count: r.count, min: r.bytesMin, max: r.bytesMax, sum: r.bytes, sumsqr: r.bytes2 });
    }
    const busy = [...perContext.values()].reduce((s, c) => s + c.ns, 0);
    const zeros = new Array<number>(nM - 1).fill(0);
    const rows = [{ row: rootRow, calls: 1, childCalls: [...perContext.values()].reduce((s, c) => s + c.calls, 0), incl: [span, ...zeros], excl: [Math.max(0, span - busy), ...zeros] }];
    for (const [i, s] of perContext) rows.push({ row: rowOfAdded[i], calls: s.calls, childCalls: 0, incl: [s.ns, ...zeros], excl: [s.ns, ...zeros] });
    const isFirst = first;
    const drops: Array<[string, number]> = isFirst
      ? ([['CUDA records CUPTI dropped', cuda.droppedByCupti], ['CUDA records beyond the layer\'s table', cuda.droppedByHyprof], ['CUDA records not in the trace (handed over on a thread hyprof does not measure)', cuda.notTraced]] as Array<[string, number]>).filter(([, n]) => n > 0)
      : [];
    first = false;
    threads.push({
      index: index++,
      tid: 0,
      name: `GPU ${device} context ${context} stream ${stream}`,
      startNs: 0n,
      stopNs: 0n,
      flags: 0,
      stats: extend(contexts, new RawStats(contexts, 0, nM), nM, rows),
      open: [],
      userStats,
      drops,
      warnings: [],
      samples: [],
      metadata: [['CUDA Device', String(device)], ['CUDA Context', String(context)], ['CUDA Stream', String(stream)], ['hyprof GPU Busy (ns)', String(busy)], ['hyprof GPU Span (ns)', String(span)], ...(isFirst ? [['hyprof GPU records without their launch', String(cuda.uncorrelated)] as [string, string], ...cutMetadata(cuda.spans)] : [])],
    });
  }
  return { ...proc, events, contexts, threads, userEvents };
}

/** The metadata of the cut (ns), or why it is not known; none for a section without the sets. */
function cutMetadata(spans: GpuSpans | undefined): Array<[string, string]> {
  if (!spans) return [];
  if (!spans.whole) return [['hyprof GPU Cut', 'not known: the profile was written while the CUDA layer was recording (a signal)']];
  const rest = gpuCut(spans.busy, spans.wait, spans.settled || undefined);
  if (!rest) return [];
  // What the layer added up before `settled`, and the rest from there.
  const [wb, wi, nb, ni] = spans.parts;
  const cut = spans.settled
    ? { span: rest.span + (spans.settled - spans.first), hostWaitingGpuBusy: rest.hostWaitingGpuBusy + wb, hostWaitingGpuIdle: rest.hostWaitingGpuIdle + wi, hostNotWaitingGpuBusy: rest.hostNotWaitingGpuBusy + nb, hostNotWaitingGpuIdle: rest.hostNotWaitingGpuIdle + ni }
    : rest;
  return [
    ['hyprof GPU Cut Span (ns)', String(cut.span)],
    ['hyprof GPU Host Waiting GPU Busy (ns)', String(cut.hostWaitingGpuBusy)],
    ['hyprof GPU Host Waiting GPU Idle (ns)', String(cut.hostWaitingGpuIdle)],
    ['hyprof GPU Host Not Waiting GPU Busy (ns)', String(cut.hostNotWaitingGpuBusy)],
    ['hyprof GPU Host Not Waiting GPU Idle (ns)', String(cut.hostNotWaitingGpuIdle)],
    ['hyprof GPU Cut Late (ns)', String(spans.late)],
  ];
}

/** Add `u` to the statistic of its user event in `list` (a name launched from several contexts). */
function addUser(list: RawUserStat[], u: RawUserStat): void {
  const o = list.find((x) => x.userEvent === u.userEvent);
  if (!o) {
    list.push(u);
    return;
  }
  o.count += u.count;
  o.min = Math.min(o.min, u.min);
  o.max = Math.max(o.max, u.max);
  o.sum += u.sum;
  o.sumsqr += u.sumsqr;
}

/** Statistics `s` with `rows` after them, over the table `contexts` (whose rows extend s's). */
function extend(contexts: RawContexts, s: RawStats, nM: number, rows: Array<{ row: number; calls: number; childCalls: number; incl: number[]; excl: number[] }>): RawStats {
  const t = new RawStats(contexts, s.length + rows.length, nM);
  t.row.set(s.row);
  t.calls.set(s.calls);
  t.childCalls.set(s.childCalls);
  t.incl.set(s.incl);
  t.excl.set(s.excl);
  rows.forEach((r, k) => {
    const i = s.length + k;
    t.row[i] = r.row;
    t.calls[i] = r.calls;
    t.childCalls[i] = r.childCalls;
    for (let m = 0; m < nM; m++) {
      t.incl[i * nM + m] = r.incl[m];
      t.excl[i * nM + m] = r.excl[m];
    }
  });
  return t;
}


/** The GPU threads withGpu adds to the process: one per stream with records. */
export function gpuThreadCount(proc: RawProcess): number {
  return new Set((proc.cuda?.records ?? []).map((r) => `${r.device}:${r.context}:${r.stream}`)).size;
}
