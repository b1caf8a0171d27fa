/**
 * Writes TAU profile directories exactly as shared/TAU-FORMAT.md describes (what TAU's readers
 * accept). Files are written into a temporary directory beside the target and renamed into place,
 * so an error never leaves half a profile behind.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { formatG16 } from './format-g.js';
import type { TauProfile, TauThreadProfile } from './tau-model.js';

/** TAU's readers split on `"` and lines: names may carry neither. */
export function sanitizeName(name: string): string {
  return name.replace(/"/g, "'").replace(/[\r\n]+/g, ' ');
}

export function escapeXml(s: string): string {
  // Newlines would break the one-line header TAU's readers expect.
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/[\r\n]+/g, ' ');
}

function num(v: number, what: string, file: string): string {
  if (!(v >= 0) || !Number.isFinite(v)) {
    // An assembly defect, not a user error: TAU's readers reject negative values.
    throw new Error(`${file}: ${what} is ${v}; profile values must be finite and non-negative`);
  }
  return formatG16(v);
}

/** Signed values (user events may be negative) are written as they are. */
function anyNum(v: number): string {
  return formatG16(v);
}

export function profileFileName(t: Pick<TauThreadProfile, 'node' | 'context' | 'thread'>): string {
  return `profile.${t.node}.${t.context}.${t.thread}`;
}

/** Lines per piece of a profile file: a file of millions of events is never one string in memory. */
const LINES_PER_PIECE = 4096;

/** The text of one profile file, in pieces of whole lines (each ends with a newline). */
export function* threadProfilePieces(t: TauThreadProfile): Generator<string> {
  const file = profileFileName(t);
  const events = t.events;
  let out: string[] = [];
  out.push(`${events.length} templated_functions_MULTI_${t.metric}`);
  const meta = t.metadata
    .map(([k, v]) => `<attribute><name>${escapeXml(k)}</name><value>${escapeXml(v)}</value></attribute>`)
    .join('');
  out.push(`# Name Calls Subrs Excl Incl ProfileCalls # <metadata>${meta}</metadata>`);
  for (const e of events) {
    const name = sanitizeName(e.name);
    const group = sanitizeName(e.group);
    out.push(
      `"${name}" ${num(e.calls, `calls of "${name}"`, file)} ${num(e.subrs, `subrs of "${name}"`, file)} ` +
        `${num(e.excl, `excl of "${name}"`, file)} ${num(e.incl, `incl of "${name}"`, file)} 0 GROUP="${group}" `,
    );
    if (out.length >= LINES_PER_PIECE) {
      yield out.join('\n') + '\n';
      out = [];
    }
  }
  out.push('0 aggregates');
  const users = t.userEvents.filter((u) => u.count > 0);
  if (users.length > 0) {
    out.push(`${users.length} userevents`);
    out.push('# eventname numevents max min mean sumsqr');
    for (const u of users) {
      out.push(`"${sanitizeName(u.name)}" ${anyNum(u.count)} ${anyNum(u.max)} ${anyNum(u.min)} ${anyNum(u.mean)} ${anyNum(u.sumsqr)}`);
    }
  }
  yield out.join('\n') + '\n';
}

/** The text of one profile file. */
export function formatThreadProfile(t: TauThreadProfile): string {
  return [...threadProfilePieces(t)].join('');
}

/** Write one profile file piece by piece. */
function writeThreadProfile(path: string, t: TauThreadProfile): void {
  const fd = openSync(path, 'w');
  try {
    for (const piece of threadProfilePieces(t)) {
      // writeSync may write less than asked (a file size limit reached mid-piece): loop to the error.
      const bytes = Buffer.from(piece);
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Write every thread of every metric under `profile.dir` (created if needed): the files directly in
 * it for one metric, in `MULTI__<metric>` subdirectories for several. Returns the paths written.
 */
export function writeTauProfile(profile: TauProfile): string[] {
  const dir = profile.dir;
  mkdirSync(dir, { recursive: true });
  const multi = profile.metrics.length > 1;
  const tmp = mkdtempSync(join(dir, '.hyprof-writing-'));
  const moves: Array<[string, string]> = [];
  try {
    profile.metrics.forEach((metric, m) => {
      const sub = multi ? `MULTI__${metric.replace(/[/\\]/g, '_')}` : '';
      if (sub) mkdirSync(join(tmp, sub), { recursive: true });
      for (const t of profile.threads[m] ?? []) {
        const name = profileFileName(t);
        const from = join(tmp, sub, name);
        writeThreadProfile(from, { ...t, metric });
        moves.push([from, join(dir, sub, name)]);
      }
    });
    for (const [from, to] of moves) {
      mkdirSync(join(to, '..'), { recursive: true });
      renameSync(from, to);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const written = moves.map(([, to]) => to);
  removeStale(dir, new Set(written));
  return written;
}

const PROFILE_FILE = /^profile\.\d+\.\d+\.\d+$/;

/**
 * Profile files of an earlier run in the same directory would show as threads or metrics of this
 * one (readers take every profile.* file, and MULTI__ directories before loose files): remove them.
 * Only profile files are touched; a MULTI__ directory is removed when nothing else is left in it.
 */
function removeStale(dir: string, keep: Set<string>): void {
  const clean = (d: string) => {
    for (const f of readdirSync(d)) {
      const path = join(d, f);
      if (PROFILE_FILE.test(f) && !keep.has(path)) unlinkSync(path);
    }
  };
  clean(dir);
  for (const f of readdirSync(dir)) {
    const sub = join(dir, f);
    if (!f.startsWith('MULTI__') || !statSync(sub).isDirectory()) continue;
    clean(sub);
    if (readdirSync(sub).length === 0) rmdirSync(sub);
  }
}
