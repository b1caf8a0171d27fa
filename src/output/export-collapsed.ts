/**
 * Collapsed stacks (Brendan Gregg's `a;b;c value` lines, what flamegraph.pl and speedscope read).
 * With several threads the first frame names the thread, so one file still tells them apart.
 */
import type { TauProfile } from './tau-model.js';
import { selectThreads, stacksOf, threadName, threadTree, type ExportSelection } from './export-common.js';

/** A frame may not hold the separator or a line break. */
function frameText(name: string): string {
  return name.replace(/;/g, ':').replace(/[\r\n]+/g, ' ');
}

function num(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(3).replace(/\.?0+$/, '');
}

export function exportCollapsed(profile: TauProfile, sel: ExportSelection = {}): string {
  const { threads } = selectThreads(profile, sel);
  const lines: string[] = [];
  for (const t of threads) {
    const prefix = threads.length > 1 ? [frameText(threadName(t))] : [];
    for (const s of stacksOf(threadTree(t))) {
      lines.push(`${[...prefix, ...s.frames.map((f) => frameText(f.name))].join(';')} ${num(s.value)}`);
    }
  }
  return lines.length ? lines.join('\n') + '\n' : '';
}
