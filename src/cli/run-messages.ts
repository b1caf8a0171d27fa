/** The one-line messages `hyprof run` and `hyprof resolve` print about what happened. */
import { constants } from 'node:os';
import { basename, isAbsolute, relative } from 'node:path';
import type { ResolveSummary } from './resolve-step.js';

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

/** Warnings of the resolve step and lost measurements, one line each (nothing is lost silently). */
export function resolveNotes(s: ResolveSummary): string[] {
  const lines = s.warnings.map((w) => `hyprof: warning: ${w}`);
  const lost = Object.entries(s.drops).filter(([, n]) => n > 0);
  if (lost.length > 0) {
    const total = lost.reduce((sum, [, n]) => sum + n, 0);
    const reasons = lost.map(([r, n]) => `${r.replace(/_/g, ' ')}: ${n}`).join(', ');
    lines.push(`hyprof: ${total} measurement${total === 1 ? '' : 's'} not recorded (${reasons}); counted in the profile's metadata`);
  }
  return lines;
}
