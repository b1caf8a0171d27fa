/**
 * The Communication matrix tab: a heat map of bytes (or messages) sent per sender rank (rows) ×
 * receiver rank (columns), as ParaProf's communication matrix window shows TAU_COMM_MATRIX. The
 * server groups many ranks into blocks of consecutive ranks (src/view/matrix-api.ts), so the map has
 * at most 64 × 64 cells whatever the run. A cell's title names its pair, bytes and messages.
 */
import * as d3 from 'd3';
import { formatBytes, grouped } from '../../src/base/units.js';
import { el, getJson } from './api.js';
import type { MatrixAnswer } from '../../src/view/matrix-api.js';

const view = { value: 'bytes' as 'bytes' | 'messages' };

export async function renderMatrix(root: HTMLElement): Promise<void> {
  const m = await getJson<MatrixAnswer>('/api/matrix');
  root.replaceChildren();
  if (m.none) {
    root.append(el('p', { class: 'note', id: 'matrix-none' }, m.none));
    return;
  }
  const what = m.block === 1 ? `${m.ranks} ranks` : `${m.ranks} ranks in blocks of ${m.block}`;
  root.append(
    el('p', { id: 'matrix-summary' }, `${grouped(m.totalMessages)} messages, ${formatBytes(m.totalBytes)} sent between ${m.cells.length} ${m.block === 1 ? 'sender → receiver pairs' : 'block pairs'} (${what}); rows: sender, columns: receiver.`),
  );
  const pick = el('select', { id: 'matrix-value' });
  for (const v of ['bytes', 'messages']) pick.append(el('option', { value: v }, v));
  pick.value = view.value;
  pick.onchange = () => {
    view.value = pick.value as typeof view.value;
    void renderMatrix(root);
  };
  const bar = el('div', { class: 'controls' });
  bar.append(el('label', {}, 'Colour by '), pick);
  root.append(bar);

  const n = m.labels.length;
  const cell = Math.max(8, Math.min(36, Math.floor(640 / n)));
  const left = 70;
  const top = 60;
  const of = (c: MatrixAnswer['cells'][number]) => (view.value === 'bytes' ? c[3] : c[2]);
  const max = Math.max(1, ...m.cells.map(of));
  // Logarithmic: volumes of a run span orders of magnitude (a halo exchange beside a few small sends).
  const colour = d3.scaleSequentialLog(d3.interpolateBlues).domain([1, Math.max(2, max)]);
  const svg = d3
    .create('svg')
    .attr('id', 'matrix-map')
    .attr('width', left + n * cell + 20)
    .attr('height', top + n * cell + 20);
  const every = Math.ceil(n / Math.max(1, Math.floor((n * cell) / 40)));
  const rowLabels = svg.append('g').attr('class', 'matrix-rows');
  const colLabels = svg.append('g').attr('class', 'matrix-cols');
  m.labels.forEach((label, i) => {
    if (i % every !== 0) return;
    rowLabels.append('text').attr('x', left - 6).attr('y', top + i * cell + cell / 2 + 4).attr('text-anchor', 'end').attr('font-size', 11).text(label);
    colLabels
      .append('text')
      .attr('transform', `translate(${left + i * cell + cell / 2 + 4},${top - 6}) rotate(-60)`)
      .attr('font-size', 11)
      .text(label);
  });
  svg
    .append('rect')
    .attr('x', left)
    .attr('y', top)
    .attr('width', n * cell)
    .attr('height', n * cell)
    .attr('fill', '#fafafa')
    .attr('stroke', '#ccc');
  const side = m.block === 1 ? 'rank' : 'ranks';
  svg
    .append('g')
    .selectAll('rect')
    .data(m.cells)
    .join('rect')
    .attr('class', 'matrix-cell')
    .attr('x', (c) => left + c[1] * cell)
    .attr('y', (c) => top + c[0] * cell)
    .attr('width', cell - 1)
    .attr('height', cell - 1)
    .attr('fill', (c) => colour(Math.max(1, of(c))))
    .attr('data-from', (c) => m.labels[c[0]])
    .attr('data-to', (c) => m.labels[c[1]])
    .attr('data-messages', (c) => c[2])
    .attr('data-bytes', (c) => c[3])
    .append('title')
    .text((c) => `${side} ${m.labels[c[0]]} → ${side} ${m.labels[c[1]]}: ${formatBytes(c[3])} in ${grouped(c[2])} messages`);
  root.append(svg.node()!);
  root.append(el('p', { class: 'note', id: 'matrix-legend' }, `Colour: ${view.value} per cell on a logarithmic scale, from 1 (lightest) to ${view.value === 'bytes' ? formatBytes(max) : grouped(max)} (darkest).`));
  if (m.beyond.length > 0) {
    const lost = m.beyond.map((b) => `rank ${b.from}: ${grouped(b.count)} messages, ${formatBytes(b.bytes)}`).join('; ');
    root.append(el('p', { class: 'note', id: 'matrix-beyond' }, `Sent to destinations beyond the layer's fixed row (counted, not placed): ${lost}.`));
  }
}
