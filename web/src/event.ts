/**
 * ParaProf's function window: one event — a timer (or event path) or a sampled function — on every
 * thread / rank as bars, with the mean, min, max and standard deviation over threads.
 */
import { el, getJson, unitOf, val } from './api.js';
import { state, showError } from './state.js';

interface EventAnswer {
  name: string;
  kind: 'timer' | 'function';
  metric: string;
  threads: Array<{ key: string; label: string; excl?: number; incl?: number; calls?: number }>;
  excl: { mean: number; min: number; max: number; std: number };
  incl: { mean: number; min: number; max: number; std: number };
  present: number;
}

const view: { name: string; kind: string } = { name: '', kind: '' };

/** Show this event next time the window opens (a click in another view). */
export function pickEvent(name: string, kind: 'timer' | 'function'): void {
  view.name = name;
  view.kind = kind;
}

export async function renderEvent(root: HTMLElement): Promise<void> {
  let choices: { timers: string[]; functions: string[] };
  try {
    choices = await getJson('/api/event', { metric: state.metric });
  } catch (e) {
    return showError(e);
  }
  if (!view.name) {
    view.name = choices.timers.find((n) => !n.includes('=>') && n !== '.TAU application') ?? choices.timers[0] ?? choices.functions[0] ?? '';
    view.kind = choices.timers.includes(view.name) ? 'timer' : 'function';
  }
  root.replaceChildren();
  const controls = el('div', { class: 'controls' });
  const pick = el('select', { id: 'event-pick' });
  const group = (label: string, names: string[], kind: string) => {
    if (names.length === 0) return;
    const g = el('optgroup', { label });
    for (const n of names) g.append(el('option', { value: `${kind}\u0000${n}` }, n));
    pick.append(g);
  };
  group('timers and event paths', choices.timers, 'timer');
  group('sampled functions', choices.functions, 'function');
  pick.value = `${view.kind}\u0000${view.name}`;
  pick.onchange = () => {
    [view.kind, view.name] = pick.value.split('\u0000');
    void renderEvent(root);
  };
  controls.append(el('span', {}, 'event '), pick);
  root.append(controls);
  if (!view.name) {
    root.append(el('p', { class: 'muted' }, 'No events in this profile.'));
    return;
  }
  let a: EventAnswer;
  try {
    a = await getJson<EventAnswer>('/api/event', { metric: state.metric, name: view.name, kind: view.kind });
  } catch (e) {
    return showError(e);
  }
  const unit = unitOf(a.metric);
  const what = a.kind === 'timer' ? 'exclusive' : 'self (sampled)';
  root.append(el('div', { class: 'controls', id: 'event-title' }, `${a.kind === 'timer' ? 'Timer' : 'Sampled function'} "${a.name}": ${what} ${a.metric} in ${unit}, on ${a.threads.length} threads (${a.present} with it)`));
  const spread = el('table', { class: 'spread' });
  for (const k of ['mean', 'min', 'max', 'std'] as const) {
    const tr = el('tr', { 'data-stat': k });
    tr.append(el('td', {}, k === 'std' ? 'std. dev.' : k), el('td', { class: 'num', 'data-value': String(a.excl[k]) }, val(a.excl[k], a.metric)));
    tr.append(el('td', { class: 'muted' }, `${a.kind === 'timer' ? 'inclusive' : 'total'} ${val(a.incl[k], a.metric)}`));
    spread.append(tr);
  }
  root.append(spread);
  const list = el('div', { class: 'bars event-bars' });
  const max = Math.max(a.excl.max, a.excl.mean) || 1;
  const rows = [
    { key: 'mean', label: 'mean', excl: a.excl.mean as number | undefined, stat: true },
    ...a.threads.map((t) => ({ key: t.key, label: t.label, excl: t.excl, stat: false })),
  ];
  list.style.setProperty('--label-w', `${Math.max(8, ...rows.map((r) => r.label.length)) + 1}ch`);
  list.style.setProperty('--total-w', `${Math.max(8, ...rows.map((r) => (r.excl === undefined ? 1 : val(r.excl, a.metric).length))) + 1}ch`);
  for (const r of rows) {
    const row = el('div', { class: `row${r.stat ? ' stat' : ''}`, 'data-thread': r.key, 'data-value': String(r.excl ?? '') });
    row.append(el('span', { class: 'label' }, r.label), el('span', { class: 'total' }, r.excl === undefined ? '–' : val(r.excl, a.metric)));
    const bar = el('span', { class: 'bar-track' });
    bar.style.cssText = 'flex:1;height:14px;position:relative';
    const fill = el('span');
    fill.style.cssText = `position:absolute;left:0;top:0;bottom:0;width:${(100 * (r.excl ?? 0)) / max}%;background:${r.stat ? '#7a869c' : '#4e79a7'}`;
    bar.append(fill);
    row.append(bar);
    list.append(row);
  }
  root.append(list);
}
