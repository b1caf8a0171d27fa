/**
 * User events (TAU's atomic events: a value recorded by the program at points, such as bytes sent or
 * memory in use): count, min, max, mean and std for the selected thread (or all threads together),
 * and across threads the spread of the per-thread means.
 */
import { el, fmt, getJson } from './api.js';
import { state, showError } from './state.js';

interface Stats {
  name: string;
  count: number;
  max: number;
  min: number;
  mean: number;
  std: number;
}
interface UserEventsAnswer {
  thread: string;
  threadCount: number;
  events: Stats[];
  across: Array<Stats & { threads: number; meanOfThreads: { mean: number; min: number; max: number; std: number } }>;
}

export async function renderUserEvents(root: HTMLElement): Promise<void> {
  let a: UserEventsAnswer;
  try {
    a = await getJson<UserEventsAnswer>('/api/userevents', { metric: state.metric, thread: state.thread });
  } catch (e) {
    return showError(e);
  }
  root.replaceChildren();
  if (a.across.length === 0) {
    root.append(el('p', { class: 'muted' }, 'No user events in this profile (TAU_REGISTER_EVENT / TAU_EVENT, hyprof_user_event).'));
    return;
  }
  root.append(el('div', { class: 'controls' }, `User events of ${a.thread}: values in the unit the program recorded them in (count in samples)`));
  const head = (labels: string[]) => {
    const tr = el('tr');
    labels.forEach((l, i) => tr.append(el('th', { class: i === 0 ? '' : 'num' }, l)));
    const thead = el('thead');
    thead.append(tr);
    return thead;
  };
  const t1 = el('table', { class: 'stats user-thread' });
  t1.append(head(['User event', 'Count (samples)', 'Min', 'Max', 'Mean', 'Std. dev.']));
  const b1 = el('tbody');
  for (const u of a.events) {
    const tr = el('tr', { 'data-name': u.name });
    tr.append(el('td', { class: 'name' }, u.name));
    for (const k of ['count', 'min', 'max', 'mean', 'std'] as const) tr.append(el('td', { class: `num ${k}`, 'data-value': String(u[k]) }, fmt(u[k])));
    b1.append(tr);
  }
  t1.append(b1);
  root.append(t1);
  root.append(el('h3', { class: 'run-title' }, `Across ${a.threadCount} threads: all values together, and the spread of the per-thread means`));
  const t2 = el('table', { class: 'stats user-across' });
  t2.append(head(['User event', 'Threads', 'Count (samples)', 'Min', 'Max', 'Mean', 'Std. dev.', 'Mean of thread means', 'Min of means', 'Max of means', 'Std. dev. of means']));
  const b2 = el('tbody');
  for (const u of a.across) {
    const tr = el('tr', { 'data-name': u.name });
    tr.append(el('td', { class: 'name' }, u.name), el('td', { class: 'num' }, fmt(u.threads)));
    for (const k of ['count', 'min', 'max', 'mean', 'std'] as const) tr.append(el('td', { class: `num ${k}`, 'data-value': String(u[k]) }, fmt(u[k])));
    for (const k of ['mean', 'min', 'max', 'std'] as const) tr.append(el('td', { class: `num m-${k}` }, fmt(u.meanOfThreads[k])));
    b2.append(tr);
  }
  t2.append(b2);
  root.append(t2);
}
