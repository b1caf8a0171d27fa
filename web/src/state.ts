/** What the user chose; every view reads it and re-renders when it changes. */
export interface State {
  metric: string;
  thread: string;
  search: string;
}

export const state: State = { metric: '0', thread: 'mean', search: '' };

export function showError(e: unknown): void {
  const box = document.getElementById('error')!;
  box.textContent = e instanceof Error ? e.message : String(e);
  box.hidden = false;
  setTimeout(() => (box.hidden = true), 6000);
}
