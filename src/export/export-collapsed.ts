/**
 * Collapsed stacks (Brendan Gregg's `a;b;c value` lines, what flamegraph.pl and speedscope read).
 * With several threads the first frame names the thread, so one file still tells them apart.
 */
import type { TauProfile, TauThreadProfile } from '../profile/tau-model.js';
import { stacksIn, selectThreads, threadName, threadTree, type EventsOf, type ExportSelection } from './export-common.js';

/** A frame may not hold the separator or a line break. */
function frameText(name: string): string {
  return name.replace(/;/g, ':').replace(/[\r\n]+/g, ' ');
}

function num(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(3).replace(/\.?0+$/, '');
}

/** Lines per piece: millions of stacks are written piece by piece, never as one string. */
const LINES_PER_PIECE = 4096;

/**
 * The collapsed text in pieces of whole lines (each ends with a newline). The selection is checked
 * at once, before any piece is asked for (nothing is written for a bad --thread or --metric).
 * `eventsOf` gives a thread's events (export-source.ts: read from its file one at a time).
 */
export function collapsedPieces(profile: TauProfile, sel: ExportSelection = {}, eventsOf?: EventsOf): Generator<string> {
  return pieces(selectThreads(profile, sel).threads, eventsOf);
}

function* pieces(threads: TauThreadProfile[], eventsOf?: EventsOf): Generator<string> {
  let lines: string[] = [];
  for (const t of threads) {
    const prefix = threads.length > 1 ? [frameText(threadName(t))] : [];
    for (const s of stacksIn(threadTree(t, eventsOf))) {
      lines.push(`${[...prefix, ...s.frames.map((f) => frameText(f.name))].join(';')} ${num(s.value)}`);
      if (lines.length >= LINES_PER_PIECE) {
        yield lines.join('\n') + '\n';
        lines = [];
      }
    }
  }
  if (lines.length > 0) yield lines.join('\n') + '\n';
}

export function exportCollapsed(profile: TauProfile, sel: ExportSelection = {}): string {
  return [...collapsedPieces(profile, sel)].join('');
}
