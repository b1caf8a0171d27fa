/** The page's only way to the data: small JSON answers from the hyprof server. */
import { formatCount, formatMetric, isTimeMetricName, timeUnitFor } from '../../src/base/units.js';
import { state } from './state.js';

/** What a frame is (src/view/labels.ts): hyprof's contexts, a timer's own samples, or sampled code. */
export type FrameRole = 'timer' | 'phase' | 'param' | 'samples' | 'code';

export interface NodeInfo {
  path: string;
  /** TAU's node name; `label` is what the page writes (function name, timer name). */
  name: string;
  label: string;
  role: FrameRole;
  kind: 'timer' | 'context' | 'unwind' | 'sample';
  calls: number;
  subrs: number;
  excl: number;
  incl: number;
  derived: boolean;
  childCount: number;
  source?: { file: string; line: number };
  settle?: SettleInfo;
}

/** An async region's settle time (wall time from start to settlement, microseconds) over its
 * instances: the region's, not one path's (src/profile/settle-events.ts). */
export interface SettleInfo {
  count: number;
  mean: number;
  min: number;
  max: number;
  unsettled: number;
}

/** The settle time as a line of a tooltip or details box. */
export function settleText(s: SettleInfo): string {
  const pending = s.unsettled > 0 ? `; ${formatCount(s.unsettled, 'auto')} unsettled at exit` : '';
  if (s.count === 0) return `settle time: none settled${pending}`;
  return `settle time (start to settlement, all instances of the region): mean ${val(s.mean, 'TIME')}, min ${val(s.min, 'TIME')}, max ${val(s.max, 'TIME')} over ${formatCount(s.count, 'auto')}${pending}`;
}

export interface FlameNode {
  name: string;
  label: string;
  role: FrameRole;
  file?: string;
  line?: number;
  /** Absent for the frames of complete stacks: the parent's path and the name (flame.ts fills it in). */
  path?: string;
  kind: NodeInfo['kind'];
  value: number;
  self: number;
  incl: number;
  calls: number;
  children: FlameNode[];
}

export async function getJson<T>(path: string, params: Record<string, string | number | undefined> = {}): Promise<T> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const res = await fetch(`${path}?${q}`);
  const body = (await res.json()) as T & { error?: string };
  if (!res.ok) throw new Error(body.error ?? `${path}: HTTP ${res.status}`);
  return body;
}

/** Numbers as the tables show them (the tests format the profile's numbers the same way). */
export function fmt(v: number): string {
  return v.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

export function pct(v: number): string {
  return `${v.toFixed(1)}%`;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * The unit a header names: the forced time unit (the header's unit switch), `counts` for other
 * metrics, or `by size` when each time value carries its own (ns, µs, ms, s).
 */
export function unitOf(metric: string): string {
  if (!isTimeMetricName(metric)) return 'counts';
  return state.units === 'auto' ? AUTO_UNITS : timeUnitFor(0, state.units).symbol;
}

/** What unitOf says when each value carries its own unit. */
export const AUTO_UNITS = 'ns, µs, ms or s by size';

/** ` (ms)` after a header; nothing when each value carries its own unit. */
export function paren(unit: string, more = ''): string {
  return unit === AUTO_UNITS ? (more ? ` (${more.trim()})` : '') : ` (${unit}${more})`;
}

/** A value of the shown metric with its unit, chosen for its size (src/base/units.ts): `1.35 s`, `12.3 k`. */
export function val(v: number, metric: string = state.metricName): string {
  return formatMetric(v, metric, state.units);
}

/** Calls and sample counts: `845`, `12.3 k`. */
export function count(v: number): string {
  return formatCount(v, state.units);
}

/** A change with its sign, in the metric's unit. */
export function signed(v: number, metric: string = state.metricName): string {
  return v > 0 ? `+${val(v, metric)}` : val(v, metric);
}

/** Marks of hyprof's contexts on frames and rows: timers, phases, parameter values. Sampled code has none. */
export const ROLE_MARK: Record<FrameRole, string> = { timer: '◆', phase: '▣', param: '◈', samples: '◆', code: '' };

/** A frame's text: the mark of a context, then its label. */
export function frameText(n: { label: string; role: FrameRole }): string {
  // A timer's own [CONTEXT] row in the tree holds the samples taken in it.
  if (n.role === 'samples') return `${ROLE_MARK.samples} samples in ${n.label}`;
  const m = ROLE_MARK[n.role];
  return m ? `${m} ${n.label}` : n.label;
}

/** The tooltip of a frame or row: what it is, where its code is, and TAU's node name. */
export function frameTitle(n: { label: string; role: FrameRole; name: string; file?: string; line?: number }): string {
  const what = n.role === 'code' ? 'sampled code' : n.role === 'samples' ? 'samples taken in this timer' : n.role === 'param' ? 'parameter value (hyprof context)' : `${n.role} (hyprof context)`;
  const where = n.file !== undefined ? `\n${n.file}:${n.line}` : '';
  return `${n.label} — ${what}${where}\nTAU node: ${n.name}`;
}

/** b / a as the tables show it, or what stands instead. */
export function ratioText(ratio: number | null, only?: 'a' | 'b'): string {
  if (only === 'a') return 'only in A';
  if (only === 'b') return 'only in B';
  return ratio === null ? '–' : `${ratio.toFixed(2)}×`;
}
