/** The page's only way to the data: small JSON answers from the hyprof server. */
export interface NodeInfo {
  path: string;
  name: string;
  kind: 'timer' | 'context' | 'unwind' | 'sample';
  calls: number;
  subrs: number;
  excl: number;
  incl: number;
  derived: boolean;
  childCount: number;
  source?: { file: string; line: number };
}

export interface FlameNode {
  name: string;
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

/** The unit of a metric's values as TAU stores them: TIME metrics in microseconds, others counts. */
export function unitOf(metric: string): string {
  return /TIME/i.test(metric) ? 'µs' : 'counts';
}

/** A value with its unit: `1,234.5 µs`. */
export function withUnit(v: number, unit: string): string {
  return `${fmt(v)} ${unit}`;
}

/** A change with its sign. */
export function signed(v: number): string {
  return v > 0 ? `+${fmt(v)}` : fmt(v);
}

/** b / a as the tables show it, or what stands instead. */
export function ratioText(ratio: number | null, only?: 'a' | 'b'): string {
  if (only === 'a') return 'only in A';
  if (only === 'b') return 'only in B';
  return ratio === null ? '–' : `${ratio.toFixed(2)}×`;
}
