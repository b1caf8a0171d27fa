/**
 * ParaProf's main window: one stacked bar per thread (and per statistic) of the exclusive value of
 * the top events, same colour for the same event on every row. Threads arrive a page at a time.
 */
import * as d3 from 'd3';
import { el, getJson, unitOf, val } from './api.js';
import { state, showError } from './state.js';

interface Row {
  key: string;
  label: string;
  values: number[];
  other: number;
  total: number;
}
/** A block of consecutive threads (ranks) of a profile of many threads. */
interface Range extends Row {
  first: number;
  last: number;
  threads: number;
  /** The chosen timer (or the total) over the block's threads: min, quartiles, mean, max and who has the min and max. */
  chosen: { threads: number; mean: number; min: number; q1: number; median: number; q3: number; max: number; minAt?: string; minLabel?: string; maxAt?: string; maxLabel?: string };
}
interface ThreadsAnswer {
  metric: string;
  top: string[];
  total: number;
  offset: number;
  stats: Row[];
  rows: Row[];
  /** Many threads: their ranges (the rows are one page of threads, read when asked for). */
  ranges?: { block: number; timer: string | null; timers: string[]; blocks: Range[] };
}

/** The timer whose spread (min, quartiles, max, mean) the ranges show ('' : the threads' totals). */
let rangeTimer = '';

const PAGE = 100;
const palette = [...d3.schemeTableau10, ...d3.schemeSet3];
export const colorOf = (i: number): string => palette[i % palette.length];
/** One colour per event name for the life of the page, so run A's and run B's bars agree. */
const byName = new Map<string, string>();
const colourOfName = (name: string): string => {
  let c = byName.get(name);
  if (!c) byName.set(name, (c = colorOf(byName.size)));
  return c;
};

/** The bars of run A, or of run B (`run` 'b') in the compare mode, into `root`. */
export async function renderBars(root: HTMLElement, onPick: (thread: string, label: string) => void, offset = 0, run: 'a' | 'b' = 'a', title?: string): Promise<void> {
  const kind = (root.querySelector('select.kind') as HTMLSelectElement | null)?.value ?? 'timers';
  let a: ThreadsAnswer;
  try {
    a = await getJson<ThreadsAnswer>('/api/threads', {
      metric: state.metric,
      kind,
      offset,
      limit: PAGE,
      ...(run === 'b' ? { run: 'b' } : {}),
      ...(rangeTimer ? { timer: rangeTimer } : {}),
    });
  } catch (e) {
    return showError(e);
  }
  const sampled = kind === 'samples' ? ' sampled' : '';
  root.replaceChildren();
  if (title) root.append(el('h3', { class: 'run-title' }, title));
  const controls = el('div', { class: 'controls' });
  const sel = el('select', { class: 'kind' });
  for (const k of ['timers', 'samples']) sel.append(el('option', { value: k, ...(k === kind ? { selected: '' } : {}) }, k === 'timers' ? 'timers (exclusive)' : 'samples'));
  sel.onchange = () => void renderBars(root, onPick, 0, run, title);
  controls.append(el('span', {}, `${a.total} thread${a.total === 1 ? '' : 's'}, metric ${a.metric}, exclusive values in ${unitOf(a.metric)}; bars: `), sel);
  root.append(controls);

  const legend = el('div', { class: 'legend' });
  a.top.forEach((name) => {
    const s = el('span', { title: name });
    s.append(el('i', { class: 'swatch', style: `background:${colourOfName(name)}` }), name);
    legend.append(s);
  });
  const o = el('span');
  o.append(el('i', { class: 'swatch', style: 'background:#c8ccd4' }), 'other');
  legend.append(o);
  root.append(legend);

  if (a.ranges) root.append(renderRanges(a, kind, (first) => void renderBars(root, onPick, first, run, title)));

  const rows = [...a.stats.map((r) => ({ ...r, stat: true })), ...a.rows.map((r) => ({ ...r, stat: false }))];
  const max = d3.max(rows, (r) => r.total) ?? 1;
  const x = d3.scaleLinear().domain([0, max || 1]).range([0, 100]);
  const list = el('div', { class: 'bars' });
  // Columns as wide as their longest entry: thread names and totals with units are never cut.
  list.style.setProperty('--label-w', `${Math.max(8, ...rows.map((r) => r.label.length)) + 1}ch`);
  list.style.setProperty('--total-w', `${Math.max(8, ...rows.map((r) => val(r.total, a.metric).length)) + 1}ch`);
  for (const r of rows) {
    const row = el('div', { class: `row${r.stat ? ' stat' : ''}`, 'data-thread': r.key, title: `${r.label}: click for its statistics` });
    row.append(el('span', { class: 'label' }, r.label), el('span', { class: 'total', title: `${val(r.total, a.metric)}${sampled}` }, val(r.total, a.metric)));
    const svg = d3.select(row).append('svg').attr('viewBox', '0 0 100 10').attr('preserveAspectRatio', 'none');
    let at = 0;
    const parts = [...r.values.map((v, i) => ({ v, c: colourOfName(a.top[i]), n: a.top[i] })), { v: r.other, c: '#c8ccd4', n: 'other' }];
    for (const p of parts) {
      if (p.v <= 0) continue;
      svg.append('rect').attr('x', x(at)).attr('y', 0).attr('width', x(p.v)).attr('height', 10).attr('fill', p.c).append('title').text(`${p.n}: ${val(p.v, a.metric)}${sampled}`);
      at += p.v;
    }
    row.onclick = () => onPick(r.key, r.label);
    list.append(row);
  }
  root.append(list);
  if (a.total > PAGE) {
    const pager = el('div', { class: 'pager' });
    const prev = el('button', {}, '◀ previous');
    const next = el('button', {}, 'next ▶');
    prev.disabled = offset === 0;
    next.disabled = offset + PAGE >= a.total;
    const go = (to: number): void => void renderBars(root, onPick, to, run, title).then(() => window.scrollTo(0, 0));
    prev.onclick = () => go(Math.max(0, offset - PAGE));
    next.onclick = () => go(offset + PAGE);
    pager.append(prev, el('span', {}, `threads ${offset + 1}–${Math.min(a.total, offset + PAGE)} of ${a.total}`), next);
    root.append(pager);
  }
}

/**
 * The ranges of a profile of many threads: one row per block of consecutive ranks, its bar the
 * block's mean of the top events, over it a box plot of the chosen timer (or total) over the block
 * (whiskers min – max, box Q1 – Q3, the median and the mean marked); a click shows the block's
 * first page of threads below.
 */
function renderRanges(a: ThreadsAnswer, kind: string, onBlock: (first: number) => void): HTMLElement {
  const r = a.ranges!;
  const box = el('div', { class: 'ranges', id: 'ranges' });
  const sel = el('select', { class: 'range-timer' });
  sel.append(el('option', { value: '' }, kind === 'samples' ? 'sampled total' : 'total of the timers'));
  for (const t of r.timers) sel.append(el('option', { value: t, ...(t === r.timer ? { selected: '' } : {}) }, t));
  sel.onchange = () => {
    rangeTimer = sel.value;
    onBlock(a.offset);
  };
  const head = el('div', { class: 'controls' });
  head.append(el('span', {}, `${a.total} threads in ranges of ${r.block}: bar = the range's mean; min · Q1 · median · Q3 · max (box) of `), sel, el('span', {}, ' (click a range for its threads)'));
  box.append(head);
  const max = d3.max(r.blocks, (b) => Math.max(b.total, b.chosen.max)) || 1;
  const x = d3.scaleLinear().domain([0, max]).range([0, 100]);
  const list = el('div', { class: 'bars' });
  list.style.setProperty('--label-w', `${Math.max(8, ...r.blocks.map((b) => b.label.length)) + 1}ch`);
  list.style.setProperty('--total-w', '52ch');
  for (const b of r.blocks) {
    const c = b.chosen;
    const spread = [c.min, c.q1, c.median, c.q3, c.max].map((v) => val(v, a.metric)).join(' · ');
    const tip =
      `${b.label} (${b.threads} threads): ${sel.selectedOptions[0]?.textContent}: min ${val(c.min, a.metric)}${c.minLabel ? ` (${c.minLabel})` : ''}, ` +
      `Q1 ${val(c.q1, a.metric)}, median ${val(c.median, a.metric)}, Q3 ${val(c.q3, a.metric)}, max ${val(c.max, a.metric)}${c.maxLabel ? ` (${c.maxLabel})` : ''}, mean ${val(c.mean, a.metric)}`;
    const row = el('div', { class: 'row range', 'data-first': String(b.first), title: tip });
    row.append(el('span', { class: 'label' }, b.label), el('span', { class: 'total' }, spread));
    const svg = d3.select(row).append('svg').attr('viewBox', '0 0 100 10').attr('preserveAspectRatio', 'none');
    let at = 0;
    const parts = [...b.values.map((v, i) => ({ v, c: colourOfName(a.top[i]), n: a.top[i] })), { v: b.other, c: '#c8ccd4', n: 'other' }];
    for (const p of parts) {
      if (p.v <= 0) continue;
      svg.append('rect').attr('x', x(at)).attr('y', 2).attr('width', x(p.v)).attr('height', 6).attr('fill', p.c).append('title').text(`${p.n}: mean ${val(p.v, a.metric)}`);
      at += p.v;
    }
    // the chosen value's spread over the block, a box plot: whiskers min – max, a box Q1 – Q3, the
    // median a tick across it, the mean a thinner tick in red
    svg.append('line').attr('x1', x(c.min)).attr('x2', x(c.max)).attr('y1', 5).attr('y2', 5).attr('stroke', '#222').attr('stroke-width', 0.8);
    svg.append('rect').attr('class', 'quartiles').attr('x', x(c.q1)).attr('y', 1.5).attr('width', Math.max(0.3, x(c.q3) - x(c.q1))).attr('height', 7).attr('fill', 'none').attr('stroke', '#222').attr('stroke-width', 0.6);
    svg.append('rect').attr('class', 'median').attr('x', x(c.median) - 0.3).attr('y', 1.5).attr('width', 0.6).attr('height', 7).attr('fill', '#222');
    svg.append('rect').attr('class', 'mean').attr('x', x(c.mean) - 0.15).attr('y', 0).attr('width', 0.3).attr('height', 10).attr('fill', '#c0392b');
    row.onclick = () => onBlock(b.first);
    list.append(row);
  }
  box.append(list);
  return box;
}
