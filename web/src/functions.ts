/**
 * The samples by function, as perf report shows them: self (the function's own samples, perf's
 * --no-children) and total (samples with the function anywhere in the chain, --children), over all
 * contexts or in one context (the timer that was running). Sorted on the server; click a column.
 */
import { count, el, getJson, pct, unitOf, val, paren } from './api.js';
import { state, showError } from './state.js';

interface FunctionRow {
  function: string;
  file: string;
  selfSamples: number;
  self: number;
  totalSamples: number;
  total: number;
  selfPercent: number;
  totalPercent: number;
}

interface FunctionsAnswer {
  sort: 'self' | 'total';
  contexts: Array<{ context: string; samples: number; value: number }>;
  scope: { context: string | null; samples: number; value: number; rows: FunctionRow[]; more: number };
}

const view: { sort: 'self' | 'total'; context: string } = { sort: 'self', context: '' };

export function resetFunctions(): void {
  view.context = '';
}

export async function renderFunctions(root: HTMLElement): Promise<void> {
  let a: FunctionsAnswer;
  try {
    a = await getJson<FunctionsAnswer>('/api/functions', {
      metric: state.metric,
      thread: state.thread,
      sort: view.sort,
      context: view.context,
      q: state.search,
    });
  } catch (e) {
    view.context = '';
    return showError(e);
  }
  root.replaceChildren();
  const controls = el('div', { class: 'controls' });
  const pick = el('select', { id: 'fn-context' });
  pick.append(el('option', { value: '' }, 'all contexts'));
  for (const c of a.contexts) pick.append(el('option', { value: c.context }, `[CONTEXT] ${c.context} (${c.samples} samples)`));
  pick.value = view.context;
  pick.onchange = () => {
    view.context = pick.value;
    void renderFunctions(root);
  };
  const unit = unitOf(state.metricName);
  controls.append(el('span', {}, `${count(a.scope.samples)} samples, ${val(a.scope.value)} of ${state.metricName} in `), pick);
  root.append(controls);
  if (a.scope.samples === 0) {
    root.append(el('p', { class: 'muted' }, 'No samples in this profile: measure with sampling on (hyprof run samples by default).'));
    return;
  }
  const table = el('table', { class: 'stats functions' });
  const head = el('tr');
  const sortable = (label: string, key: 'self' | 'total') => {
    const th = el('th', { class: 'num', 'data-sort': key }, label + (view.sort === key ? ' ▼' : ''));
    th.onclick = () => {
      view.sort = key;
      void renderFunctions(root);
    };
    return th;
  };
  head.append(el('th', {}, 'Function'), sortable(`Self${paren(unit)}`, 'self'), el('th', { class: 'num' }, '%'), sortable(`Total${paren(unit)}`, 'total'), el('th', { class: 'num' }, '%'), el('th', { class: 'num' }, 'Samples'), el('th', {}, 'File'));
  const thead = el('thead');
  thead.append(head);
  const body = el('tbody');
  for (const r of a.scope.rows) {
    const tr = el('tr', { 'data-name': r.function });
    tr.append(
      el('td', { class: 'name' }, r.function),
      el('td', { class: 'num self', 'data-value': String(r.self) }, val(r.self)),
      el('td', { class: 'num' }, pct(r.selfPercent)),
      el('td', { class: 'num total', 'data-value': String(r.total) }, val(r.total)),
      el('td', { class: 'num' }, pct(r.totalPercent)),
      el('td', { class: 'num' }, count(r.totalSamples)),
      el('td', { class: 'file muted' }, r.file),
    );
    body.append(tr);
  }
  table.append(thead, body);
  root.append(table);
  if (a.scope.more > 0) root.append(el('p', { class: 'muted' }, `${a.scope.more} more functions`));
}
