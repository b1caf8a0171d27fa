/**
 * Flame graph (root on top) of the same tree: a timer's width holds its sub-timers and its
 * samples, so the hybrid structure reads from top to bottom. Frames read as in perf, pprof and
 * speedscope: sampled code by function name (warm colours), hyprof's contexts (timers, phases,
 * parameter values) in blues with a mark. Click zooms and shows the frame's TAU node name and
 * source; search highlights.
 */
import * as d3 from 'd3';
import { count, el, frameText, frameTitle, getJson, val, type FlameNode } from './api.js';
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

/** Contexts in blues (a hue per role), sampled code in perf's warm flame colours, by name. */
export function colour(n: Pick<FlameNode, 'label' | 'role'>): string {
  let h = 0;
  for (let i = 0; i < n.label.length; i++) h = (h * 31 + n.label.charCodeAt(i)) >>> 0;
  const jitter = (h % 1000) / 1000;
  switch (n.role) {
    case 'phase':
      return d3.hsl(245, 0.45, 0.7 + 0.08 * jitter).toString();
    case 'param':
      return d3.hsl(185, 0.45, 0.6 + 0.1 * jitter).toString();
    case 'timer':
    case 'samples':
      return d3.hsl(212, 0.55, 0.68 + 0.1 * jitter).toString();
    default:
      return d3.hsl(10 + 45 * jitter, 0.85, 0.58 + 0.08 * jitter).toString();
  }
}

/** The line under the controls that tells about the clicked frame: TAU's node name and its source. */
function details(box: HTMLElement, n: FlameNode, total: number): void {
  box.replaceChildren();
  box.append(el('b', {}, frameText(n)), ` ${val(n.value)} (${((100 * n.value) / (total || 1)).toFixed(1)}%)`);
  if (n.file !== undefined) {
    const src = el('span', { class: 'src-link' }, `${n.file}:${n.line}`);
    const f = n.file;
    src.onclick = () => void showSource(f, n.line ?? 0);
    box.append('  ', src);
  }
  box.append(el('div', { class: 'tau-name' }, `TAU node: ${n.name}`));
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
  info.textContent = `metric ${state.metricName}: total ${val(data.value)} — click a frame to zoom (and see its TAU node name), the top frame to zoom out; ◆ timers, ▣ phases, ◈ parameter values in blue; sampled functions in warm colours`;
  root.append(info);
  const box = el('div', { id: 'flame-details', class: 'details' });
  root.append(box);
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
    .attr('class', (d) => `role-${d.n.role}${!search ? '' : d.n.name.toLowerCase().includes(search) || d.n.label.toLowerCase().includes(search) ? ' hit' : ' miss'}`)
    .attr('data-path', (d) => d.n.path ?? null)
    .attr('data-label', (d) => d.n.label);
  g.append('rect').attr('height', ROW - 1).attr('fill', (d) => colour(d.n));
  g.append('text').attr('x', 3).attr('y', ROW - 5);
  g.append('title').text((d) => `${frameTitle(d.n)}\nwidth ${val(d.n.value)} (${((100 * d.n.value) / (data.value || 1)).toFixed(1)}%)  inclusive ${val(d.n.incl)}  own ${val(d.n.self)}  ${d.n.kind === 'timer' ? 'calls' : 'samples'} ${count(d.n.calls)}`);
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
      const text = frameText(d.n);
      return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
    });
  };
  g.on('click', (_ev, d) => {
    details(box, d.n, data.value);
    if (d.n.kind === 'sample' && d.n.file !== undefined) void showSource(d.n.file, d.n.line ?? 0);
    draw(d.depth === 0 ? nodes[0] : d);
  });
  draw(nodes[0]);
}
