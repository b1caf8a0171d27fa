/**
 * The event-path tree: timers, and under them the [CONTEXT] of their samples, unwound [UNWIND]
 * frames and [SAMPLE] lines, each labelled by its function (or timer) name with file:line beside
 * it; clicking a row shows its TAU node name above the table. Children are fetched when a node is
 * opened, so a tree of 100,000 nodes costs what is on screen; it opens along the hottest path.
 */
import { count, el, frameText, frameTitle, getJson, settleText, unitOf, val, type NodeInfo, paren } from './api.js';
import { showSource } from './source.js';
import { state, showError } from './state.js';

interface TreeAnswer {
  node?: NodeInfo;
  total: number;
  offset: number;
  children: NodeInfo[];
}

const PAGE = 200;
/** How deep the tree opens along its hottest path when drawn. */
const HOT_DEPTH = 40;
let rootTotal = 0;
let detailsBox: HTMLElement | undefined;

function showDetails(n: NodeInfo): void {
  if (!detailsBox) return;
  detailsBox.replaceChildren(el('b', {}, frameText(n)), ` inclusive ${val(n.incl)}`);
  if (n.source) detailsBox.append(`  ${n.source.file}:${n.source.line}`);
  if (n.settle) detailsBox.append(el('div', { class: 'settle' }, settleText(n.settle)));
  detailsBox.append(el('div', { class: 'tau-name' }, `TAU node: ${n.name}`));
}

function row(n: NodeInfo, depth: number, body: HTMLElement): HTMLTableRowElement {
  const tr = el('tr', { class: `kind-${n.kind} role-${n.role}`, 'data-path': n.path, 'data-depth': String(depth) });
  const settled = n.settle ? `\n${settleText(n.settle)}` : '';
  const name = el('td', { class: 'name', title: `${frameTitle({ ...n, ...(n.source ?? {}) })}\npath: ${n.path}${settled}` });
  name.style.paddingLeft = `${6 + depth * 16}px`;
  const toggle = el('span', { class: 'toggle' }, n.childCount > 0 ? '▸' : '');
  name.append(toggle);
  name.append(el('span', { class: 'label' }, frameText(n)));
  if (n.source) name.append(el('span', { class: 'where muted' }, ` ${n.source.file.slice(n.source.file.lastIndexOf('/') + 1)}:${n.source.line}`));
  if (n.source) {
    const src = el('span', { class: 'src-link' }, 'source');
    const s = n.source;
    src.onclick = (ev) => {
      ev.stopPropagation();
      void showSource(s.file, s.line);
    };
    name.append(src);
  }
  tr.append(name);
  const cells: Array<[string, number]> = [
    ['incl', n.incl],
    ['excl', n.excl],
    ['calls', n.calls],
  ];
  for (const [k, v] of cells) tr.append(el('td', { class: `num ${k}`, 'data-value': String(v) }, k === 'calls' ? count(v) : val(v)));
  tr.append(el('td', { class: 'num pct' }, rootTotal > 0 ? `${((100 * n.incl) / rootTotal).toFixed(1)}%` : ''));
  tr.style.cursor = 'pointer';
  tr.onclick = () => {
    showDetails(n);
    if (n.childCount > 0) void toggleNode(tr, n, depth, body);
  };
  return tr;
}

function descendants(tr: HTMLTableRowElement): HTMLTableRowElement[] {
  const depth = Number(tr.dataset.depth);
  const out: HTMLTableRowElement[] = [];
  for (let r = tr.nextElementSibling as HTMLTableRowElement | null; r && Number(r.dataset.depth) > depth; r = r.nextElementSibling as HTMLTableRowElement | null) out.push(r);
  return out;
}

async function toggleNode(tr: HTMLTableRowElement, n: NodeInfo, depth: number, body: HTMLElement, offset = 0): Promise<void> {
  const toggle = tr.querySelector('.toggle')!;
  if (tr.dataset.open === '1' && offset === 0) {
    for (const d of descendants(tr)) d.remove();
    tr.dataset.open = '0';
    toggle.textContent = '▸';
    return;
  }
  await openNode(tr, n.path, depth, body, offset);
}

/** Open a node; answers its children (undefined when the request failed). */
async function openNode(tr: HTMLTableRowElement, path: string, depth: number, body: HTMLElement, offset = 0): Promise<NodeInfo[] | undefined> {
  let a: TreeAnswer;
  try {
    a = await getJson<TreeAnswer>('/api/tree', { metric: state.metric, thread: state.thread, path, offset, limit: PAGE });
  } catch (e) {
    showError(e);
    return undefined;
  }
  tr.dataset.open = '1';
  tr.querySelector('.toggle')!.textContent = '▾';
  // Further pages go after what is already open (the "more" row was removed by its click).
  let after: Element = offset === 0 ? tr : (descendants(tr).at(-1) ?? tr);
  for (const c of a.children) {
    const r = row(c, depth + 1, body);
    after.after(r);
    after = r;
  }
  if (a.offset + a.children.length < a.total) {
    const more = el('tr', { class: 'more', 'data-depth': String(depth + 1) });
    const td = el('td', { colspan: '5' }, `… ${a.total - a.offset - a.children.length} more`);
    td.style.paddingLeft = `${6 + (depth + 1) * 16}px`;
    more.append(td);
    more.style.cursor = 'pointer';
    more.onclick = () => {
      more.remove();
      void openNode(tr, path, depth, body, a.offset + a.children.length);
    };
    after.after(more);
  }
  return a.children;
}

/** The child with the largest inclusive value, as pprof's and ParaProf's trees open. */
function hottest(list: NodeInfo[]): NodeInfo | undefined {
  let best: NodeInfo | undefined;
  for (const c of list) if (!best || c.incl > best.incl) best = c;
  return best;
}

/** Open the tree along its hottest path: the hottest root, its hottest child, and so on. */
async function openHottest(roots: NodeInfo[], body: HTMLElement): Promise<void> {
  let n = hottest(roots);
  for (let depth = 0; n && n.childCount > 0 && n.incl > 0 && depth < HOT_DEPTH; depth++) {
    const tr = body.querySelector<HTMLTableRowElement>(`tr[data-path="${CSS.escape(n.path)}"]`);
    if (!tr) return;
    const kids = await openNode(tr, n.path, depth, body);
    if (!kids) return;
    n = hottest(kids);
  }
}

/** Open every ancestor of a node (search results), then scroll it into view. */
async function expandTo(path: string, body: HTMLElement): Promise<void> {
  const parts = path.split(' => ');
  for (let i = 1; i < parts.length; i++) {
    const prefix = parts.slice(0, i).join(' => ');
    const tr = body.querySelector<HTMLTableRowElement>(`tr[data-path="${CSS.escape(prefix)}"]`);
    if (!tr) return;
    if (tr.dataset.open !== '1') await openNode(tr, prefix, Number(tr.dataset.depth), body);
  }
  const target = body.querySelector<HTMLTableRowElement>(`tr[data-path="${CSS.escape(path)}"]`);
  if (target) {
    target.scrollIntoView({ block: 'center' });
    target.style.outline = '2px solid #d08000';
  }
}

export async function renderTree(root: HTMLElement): Promise<void> {
  let a: TreeAnswer;
  try {
    a = await getJson<TreeAnswer>('/api/tree', { metric: state.metric, thread: state.thread, limit: PAGE });
  } catch (e) {
    return showError(e);
  }
  rootTotal = a.children.reduce((m, c) => Math.max(m, c.incl), 0);
  root.replaceChildren();
  const results = el('div', { class: 'results' });
  detailsBox = el('div', { id: 'tree-details', class: 'details muted' }, 'click a row for its TAU node name; ◆ timers, ▣ phases, ◈ parameter values are hyprof\'s contexts');
  root.append(detailsBox, results);
  const table = el('table', { class: 'tree' });
  const head = el('tr');
  const unit = unitOf(state.metricName);
  for (const [label, num] of [['Event path', false], [`Inclusive ${state.metricName}${paren(unit)}`, true], [`Exclusive ${state.metricName}${paren(unit)}`, true], ['Calls / samples', true], ['% of root', true]] as const) head.append(el('th', { class: num ? 'num' : '' }, label));
  const thead = el('thead');
  thead.append(head);
  const body = el('tbody');
  for (const c of a.children) body.append(row(c, 0, body));
  table.append(thead, body);
  root.append(table);
  if (!state.search) await openHottest(a.children, body);
  if (state.search) {
    try {
      const s = await getJson<{ total: number; nodes: NodeInfo[] }>('/api/search', { metric: state.metric, thread: state.thread, q: state.search, limit: 50 });
      results.append(el('div', { class: 'muted' }, `${s.total} node${s.total === 1 ? '' : 's'} match "${state.search}"${s.total > 50 ? ' (first 50)' : ''}`));
      for (const n of s.nodes) {
        const d = el('div', { title: n.path }, `${val(n.incl)}  ${frameText(n)}`);
        d.append(el('span', { class: 'path' }, `in ${n.path.split(' => ').slice(0, -1).join(' => ') || '(root)'}`));
        d.onclick = () => void expandTo(n.path, body);
        results.append(d);
      }
    } catch (e) {
      showError(e);
    }
  }
}
