/** Source lines around a sampled line, when the server can read the file the sample names. */
import { el, getJson } from './api.js';

interface SourceAnswer {
  file: string;
  line: number;
  lines: Array<{ line: number; text: string }>;
}

export async function showSource(file: string, line: number): Promise<void> {
  const box = document.getElementById('source')!;
  box.replaceChildren();
  const head = el('header');
  const close = el('button', {}, '×');
  close.onclick = () => (box.hidden = true);
  head.append(el('span', {}, `${file}:${line}`), close);
  box.append(head);
  box.hidden = false;
  try {
    const a = await getJson<SourceAnswer>('/api/source', { file, line, context: 10 });
    const pre = el('pre');
    for (const l of a.lines) {
      const row = el('span', { class: l.line === line ? 'hot' : '', 'data-line': String(l.line) });
      row.append(el('span', { class: 'ln' }, String(l.line)), document.createTextNode(`${l.text}\n`));
      pre.append(row);
    }
    box.append(pre);
  } catch (e) {
    box.append(el('div', { class: 'muted', style: 'padding:6px' }, `source not shown: ${(e as Error).message}`));
  }
}
