/**
 * Writes TAU profile directories exactly as shared/TAU-FORMAT.md describes (what TAU's readers
 * accept). Files are written into a temporary directory beside the target and renamed into place,
 * so an error never leaves half a profile behind.
 */
import { closeSync, mkdtempSync, openSync, readdirSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { makeDirs } from '../base/make-dirs.js';
import { join, relative } from 'node:path';
import { formatG16 } from './format-g.js';
import type { TauProfile, TauThreadProfile, ThreadToWrite } from './tau-model.js';
import { STACKS_FILE } from './stacks-file.js';
import { FOLD_FILE } from './fold-file.js';
import { escapeXml } from './xml-text.js';
import { ownString } from './tau-reader.js';

/** TAU's readers split on `"` and lines: names may carry neither. */
export function sanitizeName(name: string): string {
  return name.replace(/"/g, "'").replace(/[\r\n]+/g, ' ');
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

/**
 * Characters per piece of a profile file (about): a file of millions of events is never one string in
 * memory, and a piece stays below the size V8 allocates in its old generation directly (128 KB),
 * where each piece, garbage once written, would wait for a full collection: writing a profile of
 * 250 MB in pieces of 4,096 lines grew the resolve's memory by 150 MB.
 */
const CHARS_PER_PIECE = 32 * 1024;

/** The text of one profile file, in pieces of whole lines (each ends with a newline). */
export function* threadProfilePieces(t: ThreadToWrite): Generator<string> {
  const file = profileFileName(t);
  const events = t.events;
  let out: string[] = [];
  let chars = 0;
  out.push(`${events.length} templated_functions_MULTI_${t.metric}`);
  const meta = t.metadata
    .map(([k, v]) => `<attribute><name>${escapeXml(k)}</name><value>${escapeXml(v)}</value></attribute>`)
    .join('');
  out.push(`# Name Calls Subrs Excl Incl ProfileCalls # <metadata>${meta}</metadata>`);
  for (const e of events) {
    const name = sanitizeName(e.name);
    const group = sanitizeName(e.group);
    const line =
      `"${name}" ${num(e.calls, `calls of "${name}"`, file)} ${num(e.subrs, `subrs of "${name}"`, file)} ` +
      `${num(e.excl, `excl of "${name}"`, file)} ${num(e.incl, `incl of "${name}"`, file)} 0 GROUP="${group}" `;
    out.push(line);
    chars += line.length + 1;
    if (chars >= CHARS_PER_PIECE) {
      yield out.join('\n') + '\n';
      out = [];
      chars = 0;
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
function writeThreadProfile(path: string, t: ThreadToWrite): void {
  const fd = openSync(path, 'w');
  try {
    for (const piece of threadProfilePieces(t)) {
      // Written as a string: Node encodes it into a buffer it frees at once, where a Buffer per piece
      // would be freed only when collected (hundreds of megabytes of a large profile waiting for it).
      const written = writeSync(fd, piece);
      const size = Buffer.byteLength(piece);
      if (written < size) {
        // writeSync may write less than asked (a file size limit reached mid-piece): loop to the error.
        const bytes = Buffer.from(piece);
        for (let at = written; at < bytes.length; ) at += writeSync(fd, bytes, at);
      }
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Which profile files already in the directory this write may remove as left over from an earlier
 * run (readers take every profile.* file, so a leftover would show as a thread of this run):
 * - `all`: every one it does not write (one process, or every process of a run, resolved at once);
 * - `ranks`: one of several resolves writing into the same directory at the same time (each rank of
 *   an MPI run resolving its own measurements, or programs that chose their node): only files of
 *   the nodes it writes, and of nodes no rank of the run can have (`worldSize` and above), and only
 *   files older than `before` (the start of the earliest process resolved: nothing of this run can
 *   be older). Another rank's files are never touched.
 */
export type StaleRule = { kind: 'all' } | { kind: 'ranks'; before: number; worldSize?: number };

/** A profile directory being written: files go to `tmp` inside it and are renamed into place at commit. */
export interface ProfileWrite {
  dir: string;
  tmp: string;
  metrics: string[];
}

/** Temporary directories of writes not yet committed or abandoned (what an interrupt must remove). */
const pending = new Set<string>();

/** Start writing a profile into `dir` (created if needed). */
export function startProfileWrite(dir: string, metrics: string[]): ProfileWrite {
  makeDirs(dir);
  const tmp = mkdtempSync(join(dir, '.hyprof-writing-'));
  pending.add(tmp);
  return { dir, tmp, metrics };
}

/**
 * Remove the temporary directories of every write under way (an interrupted resolve: SIGINT,
 * SIGTERM); returns them. The final files are untouched: nothing was renamed into place yet, or the
 * commit has already finished.
 */
export function abandonPendingWrites(): string[] {
  const removed = [...pending];
  for (const tmp of removed) {
    // A resolve worker may still be adding a file: try again once if the directory refilled.
    for (let i = 0; i < 3; i++) {
      try {
        rmSync(tmp, { recursive: true, force: true });
        break;
      } catch {
        /* again */
      }
    }
    pending.delete(tmp);
  }
  return removed;
}

function metricDir(metrics: string[], m: number): string {
  return metrics.length > 1 ? `MULTI__${metrics[m].replace(/[/\\]/g, '_')}` : '';
}

/**
 * Write one thread's file of metric m into the write's temporary directory; returns [temporary
 * path, final path]. (Resolve workers call this too: the temporary directory is shared.)
 */
export function writeThreadFile(w: ProfileWrite, m: number, t: ThreadToWrite): [string, string] {
  const sub = metricDir(w.metrics, m);
  if (sub) makeDirs(join(w.tmp, sub));
  const name = profileFileName(t);
  const from = join(w.tmp, sub, name);
  writeThreadProfile(from, { ...t, metric: w.metrics[m] });
  return [from, join(w.dir, sub, name)];
}

/**
 * A file written into the write's temporary directory, by its path relative to it: the same relative
 * path as its final one in the profile directory (what a resolve of many ranks keeps per file until
 * it commits: one short name instead of two full paths).
 */
export function relativeMove(w: ProfileWrite, [from, to]: [string, string]): string {
  // Its own copy: a slice of `from` would keep the whole path alive.
  const rel = ownString(relative(w.tmp, from));
  if (join(w.dir, rel) !== to) throw new Error(`${from} is not written where it goes (${to})`);
  return rel;
}

/** The moves of files kept by their relative paths (relativeMove), in order of their final paths. */
export function movesOf(w: ProfileWrite, rels: string[]): Array<[string, string]> {
  return [...rels].sort().map((rel) => [join(w.tmp, rel), join(w.dir, rel)]);
}

/**
 * Move the written files into place, remove the temporary directory, then the leftovers of earlier
 * runs that `stale` allows (for the nodes in `nodes`). Returns the final paths.
 */
export function commitProfile(w: ProfileWrite, moves: Array<[string, string]>, nodes: Set<number>, stale: StaleRule = { kind: 'all' }): string[] {
  try {
    for (const [from, to] of moves) {
      makeDirs(join(to, '..'));
      renameSync(from, to);
    }
  } finally {
    rmSync(w.tmp, { recursive: true, force: true });
    pending.delete(w.tmp);
  }
  const written = moves.map(([, to]) => to);
  removeStale(w.dir, new Set(written), staleTest(stale, nodes));
  return written;
}

/** Give up a write: its temporary directory goes, nothing else is touched. */
export function abandonProfile(w: ProfileWrite): void {
  rmSync(w.tmp, { recursive: true, force: true });
  pending.delete(w.tmp);
}

/**
 * Write every thread of every metric under `profile.dir` (created if needed): the files directly in
 * it for one metric, in `MULTI__<metric>` subdirectories for several. Returns the paths written.
 */
export function writeTauProfile(profile: TauProfile, stale: StaleRule = { kind: 'all' }): string[] {
  const w = startProfileWrite(profile.dir, profile.metrics);
  const moves: Array<[string, string]> = [];
  try {
    profile.metrics.forEach((_metric, m) => {
      for (const t of profile.threads[m] ?? []) moves.push(writeThreadFile(w, m, t));
    });
  } catch (e) {
    abandonProfile(w);
    throw e;
  }
  const nodes = new Set(profile.threads.flatMap((ts) => ts.map((t) => t.node)));
  return commitProfile(w, moves, nodes, stale);
}

const PROFILE_FILE = /^profile\.(\d+)\.\d+\.\d+$/;
/** The complete stacks of a process (stacks-file.ts) go with its profile files. */

/** Whether a profile file (not written now) of node `node` at `path` is a leftover this write may remove. */
function staleTest(rule: StaleRule, nodes: Set<number>): (path: string, node: number) => boolean {
  if (rule.kind === 'all') return () => true;
  return (path, node) => {
    if (!nodes.has(node) && !(rule.worldSize !== undefined && node >= rule.worldSize)) return false;
    try {
      return statSync(path).mtimeMs < rule.before;
    } catch {
      return false; // gone meanwhile
    }
  };
}

/**
 * Profile files of an earlier run in the same directory would show as threads or metrics of this
 * one (readers take every profile.* file, and MULTI__ directories before loose files): remove the
 * ones `isStale` allows. Only profile files are touched; a MULTI__ directory is removed when nothing
 * else is left in it.
 */
function removeStale(dir: string, keep: Set<string>, isStale: (path: string, node: number) => boolean): void {
  const clean = (d: string) => {
    for (const f of readdirSync(d)) {
      const path = join(d, f);
      const m = PROFILE_FILE.exec(f) ?? (d === dir ? (STACKS_FILE.exec(f) ?? FOLD_FILE.exec(f)) : null);
      if (m && !keep.has(path) && isStale(path, Number(m[1]))) {
        try {
          unlinkSync(path);
        } catch {
          // another resolve of this run removed it first
        }
      }
    }
  };
  clean(dir);
  for (const f of readdirSync(dir)) {
    const sub = join(dir, f);
    if (!f.startsWith('MULTI__') || !statSync(sub).isDirectory()) continue;
    clean(sub);
    if (readdirSync(sub).length === 0) {
      try {
        rmdirSync(sub);
      } catch {
        // another resolve of this run is writing into it
      }
    }
  }
}
