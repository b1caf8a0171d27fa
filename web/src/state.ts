/** What the user chose; every view reads it and re-renders when it changes. */
import type { UnitChoice } from '../../src/base/units.js';

export interface State {
  metric: string;
  /** The metric's name (state.metric is its index). */
  metricName: string;
  thread: string;
  search: string;
  /** A second run (B) is open beside the first (A). */
  compare: boolean;
  /** Time unit of every value: `auto` (by size) or one forced by the header's unit switch. */
  units: UnitChoice;
}

export const state: State = { metric: '0', metricName: 'TIME', thread: 'mean', search: '', compare: false, units: 'auto' };

export function showError(e: unknown): void {
  const box = document.getElementById('error')!;
  box.textContent = e instanceof Error ? e.message : String(e);
  box.hidden = false;
  setTimeout(() => (box.hidden = true), 6000);
}
