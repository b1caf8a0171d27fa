/** The one-line messages `hyprof run` and `hyprof resolve` print about what happened. */
import { constants } from 'node:os';
import { basename, isAbsolute, relative } from 'node:path';
import type { ResolveSummary } from './resolve-step.js';
import { dropLines } from '../report/drops.js';

/** A directory as the user would type it: relative (./x/) when under the current directory. */
export function showDir(dir: string): string {
  const rel = relative(process.cwd(), dir);
  if (rel === '') return './';
  if (!rel.startsWith('..') && !isAbsolute(rel)) return `./${rel}/`;
  return dir.endsWith('/') ? dir : `${dir}/`;
}

export function describeOutput(s: ResolveSummary, dir: string): string {
  if (s.threads === 0 && s.trace) return `no profile (no raw measurement file)${traceText(s.trace).replace(/^;/, ',')} written to ${showDir(dir)}`;
  return `profile of ${s.threads} thread${s.threads === 1 ? '' : 's'} written to ${showDir(dir)} (${s.pattern})${replacedText(s.replaced)}${traceText(s.trace)}`;
}

/** `; trace: traces.otf2 (2 locations, 1,234 events)`: the OTF2 archive of a traced run. */
function traceText(t: ResolveSummary['trace']): string {
  if (!t) return '';
  return `; trace: ${basename(t.archive)} (OTF2, ${t.locations} location${t.locations === 1 ? '' : 's'}, ${t.events} events)`;
}

/** How many images replaced by exec are named one by one; the rest are counted. */
const NAMED_IMAGES = 3;

/** `; profile.0.1.* is ./app before it replaced itself by exec`, for the earlier images of processes. */
function replacedText(images: ResolveSummary['replaced']): string {
  if (images.length === 0) return '';
  const named = images.slice(0, NAMED_IMAGES).map((i) => `profile.${i.node}.${i.context}.* is ${i.executable || 'a program'}`);
  const more = images.length - named.length;
  const rest = more > 0 ? ` (and ${more} more image${more === 1 ? '' : 's'})` : '';
  return `; ${named.join(', ')} before ${images.length === 1 ? 'it' : 'each'} replaced itself by exec${rest}`;
}

/** `SIGKILL` → 9, for the 128+signal exit status. */
export function signalNumber(signal: NodeJS.Signals): number {
  return (constants.signals as Record<string, number>)[signal] ?? 0;
}

/**
 * Warnings of the resolve step, and what was dropped, one line per reason saying whether it
 * matters (report/drops.ts; nothing is lost silently, and each count is in the profile's metadata).
 */
export function resolveNotes(s: ResolveSummary): string[] {
  const lines = s.warnings.map((w) => `hyprof: warning: ${w}`);
  for (const l of dropLines(s.drops, s.samples ?? 0)) lines.push(`hyprof: ${l}`);
  // Two runs into one directory: the later replaces the earlier, as TAU's files do; said, never silent.
  if (s.earlier) {
    const when = new Date(s.earlier.newestMs).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
    lines.push(
      `hyprof: this profile replaces the one that was there (${s.earlier.files} file${s.earlier.files === 1 ? '' : 's'}, written ${when}); ` +
        'give each run its own directory (--dir, -o) to keep both',
    );
  }
  return lines;
}
