/** ParaProf's thread statistics table: sorted and searched on the server, a page at a time. */
import { el, fmt, getJson, pct, unitOf } from './api.js';
import { renderDiffTable } from './compare.js';
import { state, showError } from './state.js';

interface TableRow {
  name: string;
  group: string;
  kind: string;
  calls: number;
  subrs: number;
  excl: number;
  incl: number;
  percall: number;
  exclPct: number;
  inclPct: number;
}
interface TableAnswer {
  metric: string;
  total: number;
  offset: number;
  rows: TableRow[];
}

const PAGE = 100;
const view = { sort: 'excl', order: 'desc', offset: 0, paths: false };

const COLUMNS: Array<[key: string, label: string, num: boolean]> = [
  ['name', 'Name', false],
  ['excl', 'Exclusive', true],
  ['exclPct', '%', true],
  ['incl', 'Inclusive', true],
  ['inclPct', '%', true],
  ['calls', 'Calls', true],
  ['subrs', 'Child calls', true],
  ['percall', 'Incl/call', true],
];

export function resetTable(): void {
  view.offset = 0;
}

export async function renderTable(root: HTMLElement): Promise<void> {
  // Two runs open: the table of both with the change (compare.ts).
  if (state.compare) return renderDiffTable(root);
  let a: TableAnswer;
  try {
    a = await getJson<TableAnswer>('/api/table', {
      metric: state.metric,
      thread: state.thread,
      q: state.search,
      sort: view.sort,
      order: view.order,
      offset: view.offset,
      limit: PAGE,
      paths: view.paths ? 1 : 0,
    });
  } catch (e) {
    return showError(e);
  }
  root.replaceChildren();
  const controls = el('div', { class: 'controls' });
  const box = el('input', { type: 'checkbox', id: 'paths' });
  box.checked = view.paths;
  box.onchange = () => {
    view.paths = box.checked;
    view.offset = 0;
    void renderTable(root);
  };
  const lab = el('label', { for: 'paths' }, ' event paths (a => b)');
  const unit = unitOf(a.metric);
  controls.append(el('span', {}, `${a.total} events${state.search ? ` matching "${state.search}"` : ''}; metric ${a.metric}, values in ${unit}`), box, lab);
  root.append(controls);
  const table = el('table', { class: 'stats' });
  const head = el('tr');
  for (const [key, label, num] of COLUMNS) {
    const sortKey = key === 'exclPct' ? 'excl' : key === 'inclPct' ? 'incl' : key;
    const units: Record<string, string> = { excl: ` (${unit})`, incl: ` (${unit})`, percall: ` (${unit})`, calls: '', subrs: '' };
    const th = el('th', { class: num ? 'num' : '', 'data-sort': sortKey }, label + (units[key] ?? '') + (view.sort === sortKey && key !== 'exclPct' && key !== 'inclPct' ? (view.order === 'desc' ? ' ▼' : ' ▲') : ''));
    th.onclick = () => {
      view.order = view.sort === sortKey && view.order === 'desc' ? 'asc' : 'desc';
      view.sort = sortKey;
      view.offset = 0;
      void renderTable(root);
    };
    head.append(th);
  }
  const thead = el('thead');
  thead.append(head);
  table.append(thead);
  const body = el('tbody');
  for (const r of a.rows) {
    const tr = el('tr', { class: `kind-${r.kind}`, 'data-name': r.name });
    tr.append(el('td', { class: 'name', title: `${r.name}\ngroup ${r.group}` }, r.name));
    for (const [key, , ] of COLUMNS.slice(1)) {
      const v = r[key as keyof TableRow] as number;
      tr.append(el('td', { class: `num ${key}`, 'data-value': String(v) }, key.endsWith('Pct') ? pct(v) : fmt(v)));
    }
    body.append(tr);
  }
  table.append(body);
  root.append(table);
  if (a.total > PAGE) {
    const pager = el('div', { class: 'pager' });
    const prev = el('button', {}, '◀ previous');
    const next = el('button', {}, 'next ▶');
    prev.disabled = view.offset === 0;
    next.disabled = view.offset + PAGE >= a.total;
    prev.onclick = () => {
      view.offset = Math.max(0, view.offset - PAGE);
      void renderTable(root);
    };
    next.onclick = () => {
      view.offset += PAGE;
      void renderTable(root);
    };
    pager.append(prev, el('span', {}, `rows ${view.offset + 1}–${Math.min(a.total, view.offset + PAGE)} of ${a.total}`), next);
    root.append(pager);
  }
}
