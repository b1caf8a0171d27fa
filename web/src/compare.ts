/**
 * The compare mode: run A (the baseline) beside run B. The statistics table of both runs with the
 * change (B − A) and ratio (B / A) per event, sampled function and sampled line, largest change
 * first (the data of `hyprof diff`), and a differential flame graph: frames and widths of run B,
 * colour from the change against run A (red slower, green faster). Sampled values carry their
 * sampling error; a change within it is noise (grey, listed after the changes); timer values are
 * probe-measured, exact.
 */
import * as d3 from 'd3';
import { count, el, fmt, frameText, getJson, ratioText, signed, unitOf, val, type FrameRole, paren } from './api.js';
import { state, showError } from './state.js';

interface Compared {
  a?: number;
  b?: number;
  delta: number;
  ratio: number | null;
  exact?: true;
  error?: number;
  noise?: boolean;
}
interface DiffAnswer {
  metric: string;
  thread: string;
  a: { dir: string; thread: string; threads: number };
  b: { dir: string; thread: string; threads: number };
  events: Array<{ name: string; kind: string; only?: 'a' | 'b'; excl: Compared; incl: Compared; calls: Compared }>;
  functions: Array<{ function: string; context: string | null; only?: 'a' | 'b'; self: Compared; samples: Compared }>;
  lines: Array<{ line: string; context: string; only?: 'a' | 'b'; value: Compared; samples: Compared }>;
  userEvents: Array<{ name: string; only?: 'a' | 'b'; count: Compared; mean: Compared; max: Compared }>;
}

const LIMIT = 200;

function changeClass(c: Compared): string {
  if (c.noise) return 'noise';
  return c.delta > 0 ? 'worse' : c.delta < 0 ? 'better' : '';
}

/** The error cell of a sampled value: `±1.2 ms`, `noise` when the change is within 3 of them. */
function errorCell(c: Compared, metric: string): HTMLTableCellElement {
  const text = c.error === undefined ? '' : `±${val(c.error, metric)}${c.noise ? ' noise' : ''}`;
  return el('td', { class: `num error${c.noise ? ' noise' : ''}`, 'data-value': String(c.error ?? '') }, text);
}

function table(cls: string, heads: string[], rows: HTMLTableRowElement[]): HTMLTableElement {
  const t = el('table', { class: `stats ${cls}` });
  const tr = el('tr');
  heads.forEach((h, i) => tr.append(el('th', { class: i === 0 ? '' : 'num' }, h)));
  const thead = el('thead');
  thead.append(tr);
  const body = el('tbody');
  body.append(...rows);
  t.append(thead, body);
  return t;
}

/**
 * One row: name, then A, B, change and ratio of the compared value, then extra cells. `metric`:
 * values in its units (undefined: as recorded, for user events).
 */
function row(name: string, c: Compared, only: 'a' | 'b' | undefined, extra: Array<string | HTMLTableCellElement>, attrs: Record<string, string>, metric?: string): HTMLTableRowElement {
  const v = (x: number): string => (metric === undefined ? fmt(x) : val(x, metric));
  const tr = el('tr', { ...attrs, ...(c.noise ? { class: `${attrs.class ?? ''} noise`.trim() } : {}) });
  tr.append(el('td', { class: 'name', title: name }, name));
  tr.append(el('td', { class: 'num a', 'data-value': String(c.a ?? '') }, c.a === undefined ? '–' : v(c.a)));
  tr.append(el('td', { class: 'num b', 'data-value': String(c.b ?? '') }, c.b === undefined ? '–' : v(c.b)));
  tr.append(el('td', { class: `num delta ${changeClass(c)}`, 'data-value': String(c.delta) }, metric === undefined ? (c.delta > 0 ? `+${fmt(c.delta)}` : fmt(c.delta)) : signed(c.delta, metric)));
  tr.append(el('td', { class: `num ratio ${changeClass(c)}`, 'data-value': String(c.ratio ?? '') }, ratioText(c.ratio, only)));
  for (const x of extra) tr.append(typeof x === 'string' ? el('td', { class: 'num' }, x) : x);
  return tr;
}

export async function renderDiffTable(root: HTMLElement): Promise<void> {
  let d: DiffAnswer;
  try {
    d = await getJson<DiffAnswer>('/api/diff', { metric: state.metric, thread: state.thread === 'mean' || /^\d+$/.test(state.thread) ? state.thread : 'mean' });
  } catch (e) {
    return showError(e);
  }
  const unit = unitOf(d.metric);
  const q = state.search.toLowerCase();
  const match = (s: string) => !q || s.toLowerCase().includes(q);
  root.replaceChildren();
  root.append(
    el(
      'div',
      { class: 'controls' },
      `A: ${d.a.dir} (${d.a.thread})  ·  B: ${d.b.dir} (${d.b.thread})  ·  metric ${d.metric}, values in ${unit}; largest change first; red: B larger, green: B smaller; ` +
        'sampled values ± their sampling error, changes within 3 errors grey (noise) and listed last',
    ),
  );
  const m = d.metric;
  root.append(el('h3', { class: 'run-title' }, `Events: exclusive ${d.metric}${paren(unit)}, measured by probes: exact`));
  const ev = d.events.filter((e) => match(e.name)).slice(0, LIMIT);
  root.append(
    table(
      'diff-events',
      ['Event', `A${paren(unit)}`, `B${paren(unit)}`, `B − A${paren(unit)}`, 'B / A', `A incl.${paren(unit)}`, `B incl.${paren(unit)}`, 'A calls', 'B calls'],
      ev.map((e) =>
        row(e.name, e.excl, e.only, [e.incl.a === undefined ? '–' : val(e.incl.a, m), e.incl.b === undefined ? '–' : val(e.incl.b, m), e.calls.a === undefined ? '–' : count(e.calls.a), e.calls.b === undefined ? '–' : count(e.calls.b)], {
          'data-name': e.name,
          class: `kind-${e.kind}`,
        }, m),
      ),
    ),
  );
  if (d.functions.length > 0) {
    root.append(el('h3', { class: 'run-title' }, `Sampled functions: self ${d.metric}${paren(unit, ' sampled')} per sample context`));
    const fns = d.functions.filter((f) => match(f.function) || match(f.context ?? '')).slice(0, LIMIT);
    root.append(
      table(
        'diff-functions',
        ['Function', `A${paren(unit)}`, `B${paren(unit)}`, `B − A${paren(unit)}`, 'B / A', 'error (±1σ)', 'A samples', 'B samples', 'Context'],
        fns.map((f) => {
          const tr = row(f.function, f.self, f.only, [errorCell(f.self, m), f.samples.a === undefined ? '–' : count(f.samples.a), f.samples.b === undefined ? '–' : count(f.samples.b)], {
            'data-name': f.function,
            'data-context': f.context ?? '',
          }, m);
          tr.append(el('td', { class: 'context' }, f.context ?? 'all contexts'));
          return tr;
        }),
      ),
    );
  }
  if (d.lines.length > 0) {
    root.append(el('h3', { class: 'run-title' }, `Sampled lines: ${d.metric}${paren(unit, ' sampled')} per sample context`));
    const ls = d.lines.filter((l) => match(l.line) || match(l.context)).slice(0, LIMIT);
    root.append(
      table(
        'diff-lines',
        ['Line', `A${paren(unit)}`, `B${paren(unit)}`, `B − A${paren(unit)}`, 'B / A', 'error (±1σ)', 'A samples', 'B samples', 'Context'],
        ls.map((l) => {
          const tr = row(l.line, l.value, l.only, [errorCell(l.value, m), l.samples.a === undefined ? '–' : count(l.samples.a), l.samples.b === undefined ? '–' : count(l.samples.b)], { 'data-name': l.line, 'data-context': l.context }, m);
          tr.append(el('td', { class: 'context' }, l.context));
          return tr;
        }),
      ),
    );
  }
  if (d.userEvents.length > 0) {
    root.append(el('h3', { class: 'run-title' }, 'User events: mean value (in the unit the program recorded)'));
    root.append(
      table(
        'diff-user',
        ['User event', 'A mean', 'B mean', 'B − A', 'B / A', 'A count', 'B count'],
        d.userEvents.map((u) => row(u.name, u.mean, u.only, [u.count.a === undefined ? '–' : fmt(u.count.a), u.count.b === undefined ? '–' : fmt(u.count.b)], { 'data-name': u.name })),
      ),
    );
  }
}

interface DiffFlameNode {
  name: string;
  label: string;
  role: FrameRole;
  path: string;
  kind: string;
  value: number;
  other: number;
  incl: number;
  children: DiffFlameNode[];
}

const ROW = 18;

/** Which run gives the frames and widths of the differential flame graph. */
let widthFrom: 'a' | 'b' = 'b';

/** B's and A's widths of a frame, whichever run gives the widths. */
function bAndA(n: DiffFlameNode): [number, number] {
  return widthFrom === 'b' ? [n.value, n.other] : [n.other, n.value];
}

/** Red for a frame wider in B than in A, green for narrower, grey for the same; saturating at 2× and ½×. */
function diffColour(n: DiffFlameNode): string {
  const [b, a] = bAndA(n);
  if (a === 0) return '#c0392b';
  if (b === 0) return '#2b8a47';
  const r = Math.log2(b / a);
  const t = Math.max(-1, Math.min(1, r));
  return t >= 0 ? d3.interpolateRgb('#f2f2f2', '#c0392b')(t) : d3.interpolateRgb('#f2f2f2', '#2b8a47')(-t);
}

export async function renderDiffFlame(root: HTMLElement): Promise<void> {
  let f: DiffFlameNode;
  try {
    f = await getJson<DiffFlameNode>('/api/diff-flame', { metric: state.metric, thread: state.thread, width: widthFrom });
  } catch (e) {
    return showError(e);
  }
  root.replaceChildren();
  const info = el('div', { class: 'controls muted' });
  const legend = el('span', { class: 'diff-legend' });
  legend.append('B faster', el('i'), 'B slower');
  const pick = el('select', { id: 'width-from' });
  pick.append(el('option', { value: 'b' }, 'widths from run B'), el('option', { value: 'a' }, 'widths from run A'));
  pick.value = widthFrom;
  pick.onchange = () => {
    widthFrom = pick.value === 'a' ? 'a' : 'b';
    void renderDiffFlame(root);
  };
  const [tb, ta] = bAndA(f);
  info.append(pick, ` Differential flame graph: widths from run ${widthFrom.toUpperCase()} (run B total ${val(tb)}, run A ${val(ta)}), colour from the change B against A  `, legend);
  root.append(info);
  const holder = el('div', { id: 'flame' });
  root.append(holder);
  type Laid = { n: DiffFlameNode; x0: number; depth: number };
  const nodes: Laid[] = [];
  const walk = (n: DiffFlameNode, x0: number, depth: number): void => {
    nodes.push({ n, x0, depth });
    let at = x0;
    for (const c of n.children) {
      walk(c, at, depth + 1);
      at += c.value;
    }
  };
  walk(f, 0, 0);
  const width = Math.max(300, holder.clientWidth || 1000);
  const depth = d3.max(nodes, (d) => d.depth) ?? 0;
  const x = d3.scaleLinear().domain([0, f.value || 1]).range([0, width]);
  const svg = d3.select(holder).append('svg').attr('width', width).attr('height', (depth + 1) * ROW);
  const g = svg
    .selectAll<SVGGElement, Laid>('g')
    .data(nodes.filter((d) => x(d.x0 + d.n.value) - x(d.x0) >= 0.5))
    .join('g')
    .attr('data-path', (d) => d.n.path ?? null)
    .attr('data-label', (d) => d.n.label)
    .attr('data-value', (d) => String(d.n.value))
    .attr('data-other', (d) => String(d.n.other))
    .attr('transform', (d) => `translate(${x(d.x0)},${d.depth * ROW})`);
  g.append('rect')
    .attr('height', ROW - 1)
    .attr('width', (d) => Math.max(0, x(d.x0 + d.n.value) - x(d.x0)))
    .attr('fill', (d) => diffColour(d.n));
  g.append('text')
    .attr('x', 3)
    .attr('y', ROW - 5)
    .text((d) => {
      const chars = Math.floor((x(d.x0 + d.n.value) - x(d.x0) - 6) / 6.6);
      const text = frameText(d.n);
      return chars < 3 ? '' : text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
    });
  g.append('title').text((d) => {
    const [b, a] = bAndA(d.n);
    const r = a > 0 ? `${(b / a).toFixed(2)}×` : 'only in B';
    return `${frameText(d.n)}\nTAU node: ${d.n.name}\nB ${val(b)}   A ${val(a)}   B − A ${signed(b - a)}   B / A ${b === 0 ? 'only in A' : r}`;
  });
}

/** The header's "compare with" box: opens a second profile directory as run B. */
export function compareBox(onOpened: () => void): HTMLElement {
  const box = el('form', { class: 'compare-box', id: 'compare-form' });
  const input = el('input', { type: 'text', id: 'compare-dir', placeholder: 'compare with profile dir…', autocomplete: 'off' });
  const go = el('button', { type: 'submit' }, 'compare');
  box.append(input, go);
  box.onsubmit = (ev) => {
    ev.preventDefault();
    const dir = input.value.trim();
    if (!dir) return;
    void fetch(`/api/open?${new URLSearchParams({ dir })}`, { method: 'POST', headers: { 'x-hyprof-page': '1' } })
      .then(async (res) => {
        const body = (await res.json()) as { error?: string };
        if (!res.ok) throw new Error(body.error ?? `HTTP ${res.status}`);
        onOpened();
      })
      .catch(showError);
  };
  return box;
}
