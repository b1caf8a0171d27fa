/** hyprof's viewer page: wires the header controls to the views. */
import { el, getJson } from './api.js';
import { renderBars } from './bars.js';
import { renderFlame } from './flame.js';
import { state, showError } from './state.js';
import { renderTable, resetTable } from './table.js';
import { renderMatrix } from './matrix.js';
import { renderTree } from './tree.js';
import { renderMetadata } from './metadata.js';
import { renderFunctions, resetFunctions } from './functions.js';
import { compareBox, renderDiffFlame } from './compare.js';
import { renderEvent } from './event.js';
import { renderUserEvents } from './userevents.js';
import { renderTimeline, traceSummary } from './timeline.js';
import { renderFold } from './fold.js';

interface Summary {
  dir: string;
  metrics: string[];
  threadCount: number;
  stats: string[];
  /** An MPI run: its ranks, and what is wrong with them (a rank lost, files of another run). */
  ranks?: { count: number; worldSize?: number; notes: string[]; mpiShare?: string };
  /** Run B of the compare mode. */
  compare?: { dir: string; metrics: string[]; threadCount: number; common: string[] };
}

type Tab = 'threads' | 'table' | 'tree' | 'flame' | 'functions' | 'event' | 'userevents' | 'fold' | 'matrix' | 'metadata' | 'timeline';
const TABS: Tab[] = ['threads', 'table', 'tree', 'flame', 'functions', 'event', 'userevents', 'fold', 'matrix', 'metadata', 'timeline'];
let tab: Tab = 'threads';

function section(t: Tab): HTMLElement {
  return document.getElementById(`tab-${t}`)!;
}

async function render(): Promise<void> {
  document.body.dataset.ready = '0';
  const root = section(tab);
  if (tab === 'threads') await renderThreads(root);
  else if (tab === 'table') await renderTable(root);
  else if (tab === 'tree') await renderTree(root);
  else if (tab === 'flame') await (state.compare ? renderDiffFlame(root) : renderFlame(root));
  else if (tab === 'functions') await renderFunctions(root);
  else if (tab === 'event') await renderEvent(root);
  else if (tab === 'userevents') await renderUserEvents(root);
  else if (tab === 'timeline') await renderTimeline(root);
  else if (tab === 'fold') await renderFold(root);
  else if (tab === 'matrix') await renderMatrix(root);
  else await renderMetadata(root);
  document.body.dataset.ready = '1';
}

/** The thread bars; in the compare mode those of run A, then those of run B. */
async function renderThreads(root: HTMLElement): Promise<void> {
  if (!state.compare) return renderBars(root, pickThread);
  root.replaceChildren();
  const a = el('div', { id: 'bars-a' });
  const b = el('div', { id: 'bars-b' });
  root.append(a, b);
  await renderBars(a, pickThread, 0, 'a', `A: ${runs.a}`);
  await renderBars(b, pickThread, 0, 'b', `B: ${runs.b}`);
}

const runs = { a: '', b: '' };

/** Enter the compare mode with run B as the summary gives it. */
function showCompare(s: Summary): void {
  if (!s.compare) return;
  state.compare = true;
  runs.a = s.dir;
  runs.b = s.compare.dir;
  const r = document.getElementById('runs')!;
  r.textContent = `A: ${s.dir}  vs  B: ${s.compare.dir}`;
  r.hidden = false;
  document.getElementById('dir')!.hidden = true;
  document.title = `hyprof view — ${s.dir} vs ${s.compare.dir}`;
}

function select(t: Tab): void {
  tab = t;
  for (const b of document.querySelectorAll<HTMLButtonElement>('#tabs button')) b.classList.toggle('active', b.dataset.tab === t);
  for (const s of TABS) section(s).hidden = s !== t;
  void render();
}

function pickThread(thread: string, label?: string): void {
  state.thread = thread;
  const sel = document.getElementById('thread') as HTMLSelectElement;
  // The selector lists the first 1,000 threads; a bar further down adds its own entry.
  if (![...sel.options].some((o) => o.value === thread)) sel.append(el('option', { value: thread }, label ?? thread));
  sel.value = thread;
  resetTable();
  select('table');
}

async function start(): Promise<void> {
  let s: Summary;
  try {
    s = await getJson<Summary>('/api/summary');
  } catch (e) {
    return showError(e);
  }
  document.getElementById('dir')!.textContent = s.dir;
  if (s.ranks) {
    const r = s.ranks;
    document.getElementById('ranks')!.textContent = `${r.count} rank${r.count === 1 ? '' : 's'}${r.worldSize !== undefined ? ` of ${r.worldSize}` : ''}`;
    const notes = document.getElementById('notes')!;
    notes.textContent = r.notes.join(' ');
    notes.hidden = r.notes.length === 0;
    // The one MPI share, the line `hyprof report` prints in RANKS and --mpi.
    const share = document.getElementById('mpi-share')!;
    share.textContent = r.mpiShare ?? '';
    share.hidden = r.mpiShare === undefined;
  }
  // The communication matrix is a view of an MPI run (it says there how to record one when it has none).
  document.querySelector<HTMLButtonElement>('#tabs button[data-tab="matrix"]')!.hidden = !s.ranks;
  document.title = `hyprof view — ${s.dir}`;
  showCompare(s);
  document.getElementById('compare-slot')!.append(
    compareBox(() => {
      void getJson<Summary>('/api/summary').then((again) => {
        showCompare(again);
        select('table');
      });
    }),
  );
  const metric = document.getElementById('metric') as HTMLSelectElement;
  s.metrics.forEach((m, i) => metric.append(el('option', { value: String(i) }, m)));
  state.metricName = s.metrics[0] ?? 'TIME';
  document.getElementById('metric-box')!.hidden = s.metrics.length < 2;
  metric.onchange = () => {
    state.metric = metric.value;
    state.metricName = s.metrics[Number(metric.value)] ?? state.metricName;
    resetTable();
    void render();
  };
  const thread = document.getElementById('thread') as HTMLSelectElement;
  for (const st of s.stats) thread.append(el('option', { value: st }, st));
  // Thread labels come from /api/threads a page at a time; the selector lists indexes up to a bound.
  const threads = await getJson<{ rows: Array<{ key: string; label: string }> }>('/api/threads', { limit: 1000, labels: 1 });
  for (const r of threads.rows) thread.append(el('option', { value: r.key }, r.label));
  state.thread = s.threadCount === 1 ? '0' : 'mean';
  thread.value = state.thread;
  thread.onchange = () => {
    state.thread = thread.value;
    resetTable();
    resetFunctions();
    void render();
  };
  const units = document.getElementById('units') as HTMLSelectElement;
  units.onchange = () => {
    state.units = units.value as typeof state.units;
    void render();
  };
  const search = document.getElementById('search') as HTMLInputElement;
  let timer: ReturnType<typeof setTimeout> | undefined;
  search.oninput = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      state.search = search.value.trim();
      resetTable();
      if (tab === 'threads' && state.search) select('table');
      else void render();
    }, 250);
  };
  for (const b of document.querySelectorAll<HTMLButtonElement>('#tabs button')) b.onclick = () => select(b.dataset.tab as Tab);
  // The Timeline tab only for a run with a trace (the server says why there is none otherwise).
  try {
    const trace = await traceSummary();
    document.querySelector<HTMLButtonElement>('#tabs button[data-tab="timeline"]')!.hidden = trace === null;
  } catch (e) {
    showError(e);
  }
  await render();
}

void start();
