/** The metadata of the selected thread's file (the first thread's for a statistic), as ParaProf lists it. */
import { el, getJson } from './api.js';
import { state, showError } from './state.js';

export async function renderMetadata(root: HTMLElement): Promise<void> {
  let a: { thread: string; attributes: Array<[string, string]> };
  try {
    a = await getJson('/api/metadata', { metric: state.metric, thread: state.thread });
  } catch (e) {
    return showError(e);
  }
  root.replaceChildren();
  root.append(el('div', { class: 'controls' }, `metadata of ${a.thread} (${a.attributes.length} attributes)`));
  const table = el('table', { class: 'stats' });
  const head = el('tr');
  head.append(el('th', {}, 'Name'), el('th', {}, 'Value'));
  const thead = el('thead');
  thead.append(head);
  const body = el('tbody');
  const search = state.search.toLowerCase();
  for (const [k, v] of a.attributes) {
    if (search && !k.toLowerCase().includes(search) && !v.toLowerCase().includes(search)) continue;
    const tr = el('tr', { 'data-name': k });
    tr.append(el('td', {}, k), el('td', { class: 'value' }, v));
    body.append(tr);
  }
  table.append(thead, body);
  root.append(table);
}
