/**
 * The Fold view (docs/fold.md): the instances of a timer folded with HYPROF_FOLD onto one synthetic
 * instance. A stacked area of the functions' shares over the synthetic time (0-100 % of an
 * instance), a curve per metric rate (each scaled to its own maximum, the value in its title), and
 * the spread of the instances' lengths; per bin the samples and instances behind it.
 */
import { el, getJson } from './api.js';
import { showError } from './state.js';

interface FoldBin {
  functions: Array<{ name: string; share: number }>;
  lines: Array<{ name: string; share: number }>;
  from: number;
  to: number;
  samples: number;
  instances: number;
  rates: Record<string, number | null>;
  confidence: number | null;
  note?: string;
}
interface FoldClass {
  instances: number;
  samples: number;
  lengthMs: { min: number; p10: number; median: number; p90: number; max: number };
  waited?: boolean;
  absolute: boolean;
  bins: FoldBin[];
  stack: { functions: string[]; shares: number[][] };
}
interface FoldReport {
  node: number;
  context: number;
  series: string;
  instances: number;
  samples: number;
  metrics: string[];
  axis: string;
  classRule: string;
  classes: FoldClass[];
}
interface FoldAnswer {
  series: string[];
  axes: string[];
  name?: string;
  reports: FoldReport[];
}

const COLOURS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f'];
const RATE_COLOURS = ['#111111', '#8c1515', '#1b5e20'];
const NS = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

const view = { name: '', time: '' };

export async function renderFold(root: HTMLElement): Promise<void> {
  let a: FoldAnswer;
  try {
    a = await getJson<FoldAnswer>('/api/fold', { name: view.name, time: view.time });
  } catch (e) {
    return showError(e);
  }
  root.replaceChildren();
  if (a.series.length === 0) {
    root.append(el('p', { class: 'muted' }, 'No folds in this profile: run the program with HYPROF_FOLD=<timer> (docs/fold.md).'));
    return;
  }
  const controls = el('div', { class: 'controls' });
  const pick = el('select', { id: 'fold-series' });
  for (const s of a.series) pick.append(el('option', { value: s }, s));
  pick.value = a.name ?? a.series[0];
  pick.onchange = () => {
    view.name = pick.value;
    void renderFold(root);
  };
  controls.append(el('label', {}, 'folded timer '), pick);
  if (a.axes.length > 1) {
    const axis = el('select', { id: 'fold-axis' });
    for (const m of a.axes) axis.append(el('option', { value: m }, m));
    axis.value = view.time || 'TIME';
    axis.onchange = () => {
      view.time = axis.value;
      void renderFold(root);
    };
    controls.append(el('label', {}, ' time axis '), axis);
  }
  root.append(controls);
  for (const r of a.reports) {
    root.append(el('h3', { class: 'run-title' }, `node ${r.node}, context ${r.context}: ${r.instances} instances, ${r.samples} samples (time: ${r.axis})`));
    root.append(el('p', { class: 'muted fold-rule' }, r.classRule));
    r.classes.forEach((c, k) => root.append(classView(r, c, k)));
  }
}

function classView(r: FoldReport, c: FoldClass, k: number): HTMLElement {
  const box = el('div', { class: 'fold-class', 'data-class': String(k) });
  const l = c.lengthMs;
  box.append(
    el(
      'p',
      { class: 'fold-lengths', 'data-median': String(l.median) },
      `Class ${k + 1}${c.waited === undefined ? '' : c.waited ? ' (waited)' : ' (ran)'}: ${c.instances} instances, ${c.samples} samples; lengths ${l.min.toFixed(2)} / ${l.p10.toFixed(2)} / ${l.median.toFixed(2)} / ` +
        `${l.p90.toFixed(2)} / ${l.max.toFixed(2)} ms (min / p10 / median / p90 / max)${c.absolute ? '' : ': spread, time normalised'}`,
    ),
  );
  const W = 900, H = 260, X0 = 40, Y0 = 10, PW = W - X0 - 10, PH = H - Y0 - 40;
  const s = svg('svg', { class: 'fold-chart', width: W, height: H + 40, viewBox: `0 0 ${W} ${H + 40}` });
  const n = c.bins.length;
  const x = (i: number) => X0 + (PW * i) / n;
  const y = (v: number) => Y0 + PH * (1 - v);
  // stacked areas: each bin's shares, drawn as steps (a bin is a constant)
  const base = new Array<number>(n).fill(0);
  c.stack.functions.forEach((fn, f) => {
    const top = base.map((b, i) => b + c.stack.shares[f][i]);
    let d = '';
    for (let i = 0; i < n; i++) d += `${i === 0 ? 'M' : 'L'}${x(i)},${y(top[i])}L${x(i + 1)},${y(top[i])}`;
    for (let i = n - 1; i >= 0; i--) d += `L${x(i + 1)},${y(base[i])}L${x(i)},${y(base[i])}`;
    const p = svg('path', { d: `${d}Z`, fill: COLOURS[f % COLOURS.length], class: 'fold-area', 'data-function': fn });
    const title = svg('title', {});
    title.textContent = fn;
    p.append(title);
    s.append(p);
    for (let i = 0; i < n; i++) base[i] = top[i];
  });
  // bins without enough samples: hatched over
  c.bins.forEach((b, i) => {
    if (b.samples >= 10) return;
    s.append(svg('rect', { x: x(i), y: Y0, width: x(i + 1) - x(i), height: PH, class: 'fold-few', fill: '#ffffff', 'fill-opacity': 0.6, 'pointer-events': 'none' }));
  });
  // a curve per metric rate, scaled to its maximum
  r.metrics.forEach((m, mi) => {
    const vals = c.bins.map((b) => b.rates[m]);
    const max = Math.max(...vals.map((v) => v ?? 0), 0);
    if (max <= 0) return;
    let d = '';
    vals.forEach((v, i) => {
      if (v === null) return;
      d += `${d === '' ? 'M' : 'L'}${(x(i) + x(i + 1)) / 2},${y(Math.max(v, 0) / max)}`;
    });
    const p = svg('path', { d, fill: 'none', stroke: RATE_COLOURS[mi % RATE_COLOURS.length], 'stroke-width': 2, class: 'fold-rate', 'data-metric': m, 'data-max': String(max), 'pointer-events': 'none' });
    const title = svg('title', {});
    title.textContent = `${m} rate (max ${max.toPrecision(3)})`;
    p.append(title);
    s.append(p);
  });
  // axes
  s.append(svg('line', { x1: X0, y1: y(0), x2: X0 + PW, y2: y(0), stroke: '#333' }));
  s.append(svg('line', { x1: X0, y1: y(0), x2: X0, y2: y(1), stroke: '#333' }));
  for (let p = 0; p <= 100; p += 25) {
    const anchor = p === 0 ? 'start' : p === 100 ? 'end' : 'middle';
    const t = svg('text', { x: X0 + (PW * p) / 100, y: y(0) + 14, 'text-anchor': anchor, 'font-size': 11 });
    t.textContent = c.absolute ? `${p} % (${((l.median * p) / 100).toFixed(2)} ms)` : `${p} %`;
    s.append(t);
  }
  const yl = svg('text', { x: 4, y: y(1) + 10, 'font-size': 11 });
  yl.textContent = '100 %';
  s.append(yl);
  // the spread of the lengths, as a box on the time axis (relative to the median)
  const spreadY = H + 20;
  const rel = (v: number) => X0 + PW * Math.min(1, v / (2 * l.median));
  s.append(svg('line', { x1: rel(l.min), y1: spreadY, x2: rel(l.max), y2: spreadY, stroke: '#555', class: 'fold-spread' }));
  s.append(svg('rect', { x: rel(l.p10), y: spreadY - 6, width: Math.max(1, rel(l.p90) - rel(l.p10)), height: 12, fill: '#ccc', stroke: '#555' }));
  s.append(svg('line', { x1: rel(l.median), y1: spreadY - 8, x2: rel(l.median), y2: spreadY + 8, stroke: '#000', 'stroke-width': 2 }));
  const st = svg('text', { x: X0 + PW, y: spreadY + 18, 'text-anchor': 'end', 'font-size': 10 });
  st.textContent = 'instance lengths: 0 to 2x the median (box p10-p90, bar median)';
  s.append(st);
  box.append(s);
  // legend
  const legend = el('div', { class: 'fold-legend' });
  c.stack.functions.forEach((fn, f) => {
    const item = el('span', { class: 'fold-key', 'data-function': fn });
    const sw = el('span', { class: 'swatch' });
    sw.style.background = COLOURS[f % COLOURS.length];
    item.append(sw, document.createTextNode(` ${fn}  `));
    legend.append(item);
  });
  r.metrics.forEach((m, mi) => {
    const item = el('span', { class: 'fold-key rate' }, ` — ${m} rate  `);
    item.style.color = RATE_COLOURS[mi % RATE_COLOURS.length];
    legend.append(item);
  });
  box.append(legend);
  // the numbers behind the picture
  const t = el('table', { class: 'stats fold-bins' });
  const hr = el('tr');
  for (const h of ['bin', 'samples', 'instances', 'top functions', 'top line', ...r.metrics.map((m) => `${m} rate`), 'confidence']) hr.append(el('th', {}, h));
  const thead = el('thead');
  thead.append(hr);
  t.append(thead);
  const tb = el('tbody');
  for (const b of c.bins) {
    const tr = el('tr', { 'data-from': String(b.from) });
    tr.append(el('td', {}, `${b.from.toFixed(0)}-${b.to.toFixed(0)} %`), el('td', { class: 'num' }, String(b.samples)), el('td', { class: 'num' }, String(b.instances)));
    tr.append(el('td', { class: 'name' }, b.functions.map((f) => `${f.name} ${Math.round(f.share * 100)}%`).join(', ')), el('td', { class: 'name' }, b.lines[0]?.name ?? ''));
    for (const m of r.metrics) tr.append(el('td', { class: 'num' }, b.rates[m] === null ? '–' : (b.rates[m] as number).toPrecision(3)));
    tr.append(el('td', {}, b.note ?? (b.confidence !== null ? `±${Math.round(b.confidence * 100)}%` : '')));
    tb.append(tr);
  }
  t.append(tb);
  box.append(t);
  return box;
}
