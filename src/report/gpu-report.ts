/**
 * `hyprof report --gpu`: the GPU part of a profile (docs/gpu.md) as three tables — per kernel (and
 * copy, set, synchronisation), per GPU stream (busy, idle), per launching host context — and the
 * time the host spent waiting for the GPU beside the time the GPU streams were idle.
 *
 * Read from the TAU profile as resolve wrote it: the GPU threads are those with the `CUDA Stream`
 * metadata, their `[GPU] name` events and `GPU ...` user events; the launching contexts are the host
 * threads' paths that end in `=> [GPU] name`. Times in the metric's unit (TIME: µs).
 *
 * Then, per process, the GPU's time cut by the host's waits — host waiting or not × GPU busy or idle —
 * which the resolve wrote into the first GPU thread's metadata from the CUDA layer's sets of busy and
 * waiting intervals (src/resolve/assemble-gpu.ts): how much of the host's wait the GPU was idle, and
 * how much of the GPU's idle time the host was not waiting.
 */
import { displayName, type TauThreadProfile } from '../profile/tau-model.js';
import type { GpuCut } from '../base/intervals.js';

/** One process's cut (ns) and its two shares. */
export interface GpuCutRow extends GpuCut {
  process: string;
  /** Of the host's wait, the share with the GPU idle (0 with no wait). */
  idleShareOfWait: number;
  /** Of the GPU's idle time in the span, the share with the host not waiting (0 with no idle time). */
  notWaitingShareOfIdle: number;
  /** GPU activity or waits that reached the CUDA layer after it had added up their time (ns),
   * counted from then on: the cut's uncertainty. */
  late: number;
}

export interface GpuKernelRow {
  name: string;
  calls: number;
  time: number;
  mean: number;
  min: number | null;
  max: number | null;
  bytes: number | null;
  streams: string[];
}

export interface GpuStreamRow {
  thread: number;
  device: string;
  context: string;
  stream: string;
  busy: number;
  span: number;
  idleShare: number;
}

export interface GpuLaunchRow {
  thread: number;
  context: string;
  name: string;
  calls: number;
  time: number;
}

export interface GpuReport {
  kernels: GpuKernelRow[];
  streams: GpuStreamRow[];
  launches: GpuLaunchRow[];
  /** Time in the synchronisations (`[GPU] [CUDA context synchronize]` and the like, not
   * `[CUDA stream wait event]`, where the GPU waits): the host waiting for the GPU. */
  hostWait: number;
  /** Busy and span summed over the streams: the GPU's idle share of the time its streams were in use. */
  gpuIdleShare: number;
  /** Per process: host waiting or not × GPU busy or idle (ns). */
  cut: GpuCutRow[];
  /** Processes whose cut is not known, and why. */
  cutNotes: string[];
}

const meta = (t: TauThreadProfile, k: string) => t.metadata.find(([key]) => key === k)?.[1];

/** The report of one metric's threads; null when the profile has no GPU thread. */
export function buildGpuReport(threads: TauThreadProfile[]): GpuReport | null {
  const gpu = threads.filter((t) => meta(t, 'CUDA Stream') !== undefined);
  if (gpu.length === 0) return null;
  const kernels = new Map<string, GpuKernelRow>();
  const streams: GpuStreamRow[] = [];
  let hostWait = 0;
  for (const t of gpu) {
    const label = `${meta(t, 'CUDA Device')}/${meta(t, 'CUDA Context')}/${meta(t, 'CUDA Stream')}`;
    for (const e of t.events) {
      const n = displayName(e.name);
      if (!n.startsWith('[GPU] ') || n.includes(' => ')) continue;
      const name = n.slice(6);
      const row = kernels.get(name) ?? { name, calls: 0, time: 0, mean: 0, min: null, max: null, bytes: null, streams: [] };
      row.calls += e.calls;
      row.time += e.incl;
      if (!row.streams.includes(label)) row.streams.push(label);
      const time = t.userEvents.find((u) => u.name === `GPU Kernel Time (us) : ${name}`);
      if (time) {
        row.min = Math.min(row.min ?? Infinity, time.min);
        row.max = Math.max(row.max ?? -Infinity, time.max);
      }
      const bytes = t.userEvents.find((u) => u.name === `GPU Bytes : ${name}`);
      if (bytes) row.bytes = (row.bytes ?? 0) + Math.round(bytes.mean * bytes.count);
      if (/^\[CUDA (\w+ )?synchronize\]$/.test(name)) hostWait += e.incl;
      kernels.set(name, row);
    }
    const root = t.events.find((e) => displayName(e.name) === '.TAU application');
    const span = root?.incl ?? 0;
    const idle = root?.excl ?? 0;
    streams.push({ thread: t.thread, device: meta(t, 'CUDA Device') ?? '', context: meta(t, 'CUDA Context') ?? '', stream: meta(t, 'CUDA Stream') ?? '', busy: span - idle, span, idleShare: span > 0 ? idle / span : 0 });
  }
  for (const k of kernels.values()) k.mean = k.calls > 0 ? k.time / k.calls : 0;
  const launches: GpuLaunchRow[] = [];
  for (const t of threads) {
    if (gpu.includes(t)) continue;
    for (const e of t.events) {
      const n = displayName(e.name);
      const at = n.lastIndexOf(' => [GPU] ');
      if (at < 0) continue;
      launches.push({ thread: t.thread, context: n.slice(0, at), name: n.slice(at + 10), calls: e.calls, time: e.incl });
    }
  }
  const span = streams.reduce((s, r) => s + r.span, 0);
  const busy = streams.reduce((s, r) => s + r.busy, 0);
  return {
    kernels: [...kernels.values()].sort((a, b) => b.time - a.time),
    streams,
    launches: launches.sort((a, b) => b.time - a.time),
    hostWait,
    gpuIdleShare: span > 0 ? 1 - busy / span : 0,
    ...cutRows(gpu),
  };
}

/** The cut each process's first GPU thread carries. */
function cutRows(gpu: TauThreadProfile[]): { cut: GpuCutRow[]; cutNotes: string[] } {
  const cut: GpuCutRow[] = [];
  const cutNotes: string[] = [];
  for (const t of gpu) {
    const process = `process ${t.node}.${t.context}`;
    const why = meta(t, 'hyprof GPU Cut');
    if (why !== undefined) cutNotes.push(`${process}: ${why}`);
    const n = (k: string) => Number(meta(t, `hyprof GPU ${k} (ns)`));
    if (meta(t, 'hyprof GPU Cut Span (ns)') === undefined) continue;
    const c: GpuCut = { span: n('Cut Span'), hostWaitingGpuBusy: n('Host Waiting GPU Busy'), hostWaitingGpuIdle: n('Host Waiting GPU Idle'), hostNotWaitingGpuBusy: n('Host Not Waiting GPU Busy'), hostNotWaitingGpuIdle: n('Host Not Waiting GPU Idle') };
    const wait = c.hostWaitingGpuBusy + c.hostWaitingGpuIdle;
    const idle = c.hostWaitingGpuIdle + c.hostNotWaitingGpuIdle;
    cut.push({ process, ...c, idleShareOfWait: wait > 0 ? c.hostWaitingGpuIdle / wait : 0, notWaitingShareOfIdle: idle > 0 ? c.hostNotWaitingGpuIdle / idle : 0, late: n('Cut Late') });
  }
  return { cut, cutNotes };
}

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i]))).join('  ').trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

const num = (n: number | null) => (n === null ? '-' : n.toFixed(n >= 100 ? 0 : 2));

export function renderGpuReport(r: GpuReport, unit: string, limit?: number): string {
  const cut = <T>(l: T[]) => (limit === undefined ? l : l.slice(0, limit));
  return [
    `GPU KERNELS AND COPIES (${unit})`,
    table(['calls', 'time', 'mean', 'min', 'max', 'bytes', 'streams (device/context/stream)', 'name'], cut(r.kernels).map((k) => [String(k.calls), num(k.time), num(k.mean), num(k.min), num(k.max), k.bytes === null ? '-' : String(k.bytes), k.streams.join(' '), k.name])),
    '',
    `GPU STREAMS (${unit})`,
    table(['thread', 'device', 'context', 'stream', 'busy', 'span', 'idle %'], r.streams.map((s) => [String(s.thread), s.device, s.context, s.stream, num(s.busy), num(s.span), (s.idleShare * 100).toFixed(1)])),
    '',
    `LAUNCHED FROM (${unit} of GPU time per host context)`,
    table(['thread', 'calls', 'time', 'name', 'context'], cut(r.launches).map((l) => [String(l.thread), String(l.calls), num(l.time), l.name, l.context])),
    '',
    `host waiting for the GPU (synchronisations): ${num(r.hostWait)} ${unit}; GPU streams idle ${(r.gpuIdleShare * 100).toFixed(1)} % of their spans`,
    '',
    ...r.cut.flatMap(renderCut),
    ...r.cutNotes.map((n) => `the GPU's time cut by the host's waits: ${n}`),
  ].join('\n');
}

const pct = (part: number, whole: number) => (whole > 0 ? ((part / whole) * 100).toFixed(1) : '0.0');

/** One process's cut of its GPU time (µs). */
function renderCut(o: GpuCutRow): string[] {
  const us = (ns: number) => num(ns / 1e3);
  const rows: Array<[string, number, string]> = [
    ['host waiting, GPU busy', o.hostWaitingGpuBusy, ''],
    ['host waiting, GPU idle', o.hostWaitingGpuIdle, `${(o.idleShareOfWait * 100).toFixed(1)} % of the host's wait: the GPU idle while the host waited`],
    ['host not waiting, GPU busy', o.hostNotWaitingGpuBusy, ''],
    ['host not waiting, GPU idle', o.hostNotWaitingGpuIdle, `${(o.notWaitingShareOfIdle * 100).toFixed(1)} % of the GPU's idle time: the GPU starved while the host did other work`],
  ];
  return [
    `GPU AND HOST OVER TIME (µs): ${o.process}, ${us(o.span)} µs from its first GPU activity or wait to its last`,
    table(['', 'time', '% of span', ''], rows.map(([what, ns, note]) => [what, us(ns), pct(ns, o.span), note])),
    ...(o.late > 0 ? [`(${us(o.late)} µs of GPU activity or waits reached hyprof after their time had been added up, and are counted from then on: the parts may be off by that much)`] : []),
    '',
  ];
}
