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
  path: string;
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
