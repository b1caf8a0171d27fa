/**
 * Flame graph (root on top) of the same tree: a timer's width holds its sub-timers and its
 * [CONTEXT] samples, so the hybrid structure reads from top to bottom. Click zooms, search
 * highlights.
 */
import * as d3 from 'd3';
import { fmt, getJson, unitOf, type FlameNode } from './api.js';
import { showSource } from './source.js';
import { state, showError } from './state.js';

const ROW = 18;

interface Laid {
  n: FlameNode;
  x0: number;
  x1: number;
  depth: number;
}

function layout(root: FlameNode): Laid[] {
  const out: Laid[] = [];
  const walk = (n: FlameNode, x0: number, depth: number): void => {
    out.push({ n, x0, x1: x0 + n.value, depth });
    let at = x0;
    for (const c of n.children) {
      c.path ??= n.path ? `${n.path} => ${c.name}` : c.name;
      walk(c, at, depth + 1);
      at += c.value;
    }
  };
  walk(root, 0, 0);
  return out;
}

function colour(n: FlameNode): string {
  let h = 0;
  for (let i = 0; i < n.name.length; i++) h = (h * 31 + n.name.charCodeAt(i)) >>> 0;
  const jitter = (h % 1000) / 1000;
  switch (n.kind) {
    case 'context':
      return d3.hsl(210, 0.55, 0.62 + 0.1 * jitter).toString();
    case 'unwind':
      return d3.hsl(270, 0.35, 0.7 + 0.1 * jitter).toString();
    case 'sample':
      return d3.hsl(130, 0.45, 0.55 + 0.12 * jitter).toString();
    default:
      return d3.hsl(20 + 30 * jitter, 0.8, 0.6).toString();
  }
}

export async function renderFlame(root: HTMLElement): Promise<void> {
  let data: FlameNode;
  try {
    data = await getJson<FlameNode>('/api/flame', { metric: state.metric, thread: state.thread });
  } catch (e) {
    return showError(e);
  }
  root.replaceChildren();
  const info = document.createElement('div');
  info.className = 'controls muted';
  const unit = unitOf(state.metricName);
  info.textContent = `metric ${state.metricName}: total ${fmt(data.value)} ${unit} — click a frame to zoom, click the top frame to zoom out; timers orange, [CONTEXT] blue, [UNWIND] violet, [SAMPLE] green`;
  root.append(info);
  const holder = document.createElement('div');
  holder.id = 'flame';
  root.append(holder);
  const nodes = layout(data);
  const depth = d3.max(nodes, (d) => d.depth) ?? 0;
  const width = Math.max(300, holder.clientWidth || 1000);
  const svg = d3.select(holder).append('svg').attr('width', width).attr('height', (depth + 1) * ROW);
  const x = d3.scaleLinear().domain([0, data.value || 1]).range([0, width]);
  const search = state.search.toLowerCase();
  const g = svg
    .selectAll<SVGGElement, Laid>('g')
    .data(nodes)
    .join('g')
    .attr('class', (d) => (!search ? '' : d.n.name.toLowerCase().includes(search) ? 'hit' : 'miss'))
    .attr('data-path', (d) => d.n.path ?? null);
  g.append('rect').attr('height', ROW - 1).attr('fill', (d) => colour(d.n));
  g.append('text').attr('x', 3).attr('y', ROW - 5);
  g.append('title').text((d) => `${d.n.name}\nwidth ${fmt(d.n.value)} ${unit} (${((100 * d.n.value) / (data.value || 1)).toFixed(1)}%)  inclusive ${fmt(d.n.incl)} ${unit}  own ${fmt(d.n.self)} ${unit}  ${d.n.kind === 'timer' ? 'calls' : 'samples'} ${fmt(d.n.calls)}`);
  const draw = (focus: Laid): void => {
    x.domain([focus.x0, focus.x1 || 1]);
    g.attr('transform', (d) => `translate(${x(d.x0)},${d.depth * ROW})`)
      .attr('display', (d) => (d.x1 <= focus.x0 || d.x0 >= focus.x1 || x(d.x1) - x(d.x0) < 0.5 ? 'none' : null))
      .classed('dim', (d) => d.depth < focus.depth);
    g.select('rect').attr('width', (d) => Math.max(0, x(d.x1) - x(d.x0)));
    g.select('text').text((d) => {
      const w = x(d.x1) - x(d.x0);
      const chars = Math.floor((w - 6) / 6.6);
      if (chars < 3) return '';
      return d.n.name.length > chars ? `${d.n.name.slice(0, chars - 1)}…` : d.n.name;
    });
  };
  g.on('click', (_ev, d) => {
    if (d.n.kind === 'sample') {
      const m = /\[\{([^{}]+)\} \{(\d+)\}\]\s*$/.exec(d.n.name);
      if (m) void showSource(m[1], Number(m[2]));
    }
    draw(d.depth === 0 ? nodes[0] : d);
  });
  draw(nodes[0]);
}
