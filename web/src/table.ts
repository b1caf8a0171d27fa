/**
 * ParaProf's thread statistics table: sorted and searched on the server, a page at a time. Timers
 * by default; the sampled code (by function, with file:line) on its own switch, so the two kinds of
 * measurement are not ranked against each other.
 */
import { count, el, frameText, getJson, pct, settleText, unitOf, val, type FrameRole, type SettleInfo, paren } from './api.js';
import { renderDiffTable } from './compare.js';
import { state, showError } from './state.js';

interface TableRow {
  name: string;
  label: string;
  role: FrameRole;
  file?: string;
  line?: number;
  group: string;
  kind: string;
  calls: number;
  subrs: number;
  excl: number;
  incl: number;
  percall: number;
  exclPct: number;
  inclPct: number;
  /** An async region's settle time (its flat row only). */
  settle?: SettleInfo;
}
interface TableAnswer {
  metric: string;
  total: number;
  offset: number;
  rows: TableRow[];
  /** Whether the profile has async regions with a settle time (the column is shown then). */
  settled: boolean;
}

const PAGE = 100;
const view: { sort: string; order: string; offset: number; paths: boolean; kind: 'timers' | 'samples' } = { sort: 'excl', order: 'desc', offset: 0, paths: false, kind: 'timers' };

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
      kind: view.kind,
    });
  } catch (e) {
    return showError(e);
  }
  root.replaceChildren();
  const controls = el('div', { class: 'controls' });
  const kinds = el('span', { class: 'switch', id: 'table-kind' });
  for (const [k, text] of [['timers', 'Timers'], ['samples', 'Sampled code']] as const) {
    const b = el('button', { 'data-kind': k, class: view.kind === k ? 'active' : '' }, text);
    b.onclick = () => {
      view.kind = k;
      view.offset = 0;
      void renderTable(root);
    };
    kinds.append(b);
  }
  controls.append(kinds, ' ');
  const box = el('input', { type: 'checkbox', id: 'paths' });
  box.checked = view.paths;
  box.onchange = () => {
    view.paths = box.checked;
    view.offset = 0;
    void renderTable(root);
  };
  const lab = el('label', { for: 'paths' }, ' event paths (a => b)');
  const unit = unitOf(a.metric);
  const what = view.kind === 'timers' ? 'timers' : 'sampled lines';
  controls.append(el('span', {}, `${a.total} ${what}${state.search ? ` matching "${state.search}"` : ''}; metric ${a.metric}, values in ${unit}`), box, lab);
  root.append(controls);
  const table = el('table', { class: 'stats' });
  const head = el('tr');
  // The settle time of async regions (wall time from start to settlement), when the profile has any.
  const columns = a.settled ? [...COLUMNS, ['settle', 'Settle mean', true] as [string, string, boolean]] : COLUMNS;
  for (const [key, label, num] of columns) {
    const sortKey = key === 'exclPct' ? 'excl' : key === 'inclPct' ? 'incl' : key;
    const units: Record<string, string> = { excl: `${paren(unit)}`, incl: `${paren(unit)}`, percall: `${paren(unit)}`, calls: '', subrs: '', settle: '' };
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
    const tr = el('tr', { class: `kind-${r.kind} role-${r.role}`, 'data-name': r.name });
    const settled = r.settle ? `\n${settleText(r.settle)}` : '';
    const name = el('td', { class: 'name', title: `${r.label}${r.file !== undefined ? `\n${r.file}:${r.line}` : ''}\nTAU name: ${r.name}\ngroup ${r.group}${settled}` }, view.paths && r.name.includes('=>') ? r.name : frameText(r));
    if (r.file !== undefined) name.append(el('span', { class: 'where muted' }, ` ${r.file.slice(r.file.lastIndexOf('/') + 1)}:${r.line}`));
    tr.append(name);
    for (const [key, , ] of COLUMNS.slice(1)) {
      const v = r[key as keyof TableRow] as number;
      const text = key.endsWith('Pct') ? pct(v) : key === 'calls' || key === 'subrs' ? count(v) : val(v, a.metric);
      tr.append(el('td', { class: `num ${key}`, 'data-value': String(v) }, text));
    }
    if (a.settled) {
      // settle time is always wall time (TIME), whatever metric the other columns show
      const cell = el('td', { class: 'num settle', 'data-value': r.settle ? String(r.settle.mean) : '' }, r.settle && r.settle.count > 0 ? val(r.settle.mean, 'TIME') : '');
      if (r.settle) cell.title = settleText(r.settle);
      tr.append(cell);
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
