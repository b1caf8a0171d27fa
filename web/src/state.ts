/** What the user chose; every view reads it and re-renders when it changes. */
export interface State {
  metric: string;
  /** The metric's name (state.metric is its index). */
  metricName: string;
  thread: string;
  search: string;
  /** A second run (B) is open beside the first (A). */
  compare: boolean;
}

export const state: State = { metric: '0', metricName: 'TIME', thread: 'mean', search: '', compare: false };

export function showError(e: unknown): void {
  const box = document.getElementById('error')!;
  box.textContent = e instanceof Error ? e.message : String(e);
  box.hidden = false;
  setTimeout(() => (box.hidden = true), 6000);
}
