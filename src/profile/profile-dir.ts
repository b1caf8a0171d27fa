/**
 * A profile directory as hyprof finds it, beyond TAU's profile files (tau-reader.ts): the metric to
 * read of several, whether its threads may belong to several ranks, and the raw measurement files
 * left beside it unresolved — by the ranks of an MPI job that the launcher stopped (kept in
 * `.hyprof-raw`), or by processes stopped by a signal — with the command that resolves them.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../base/errors.js';
import { listProfileFiles, readProfileHeader, type MetricFiles } from './tau-reader.js';

/** Where ranks of a job keep their raw files until each resolved its own (`<output>/.hyprof-raw`). */
export const RANK_RAW_DIR = '.hyprof-raw';

/** The `*.raw` files directly in dir and in its subdirectories one level down (a run's raw directory
 * of ranks: `.hyprof-raw/rank<N>-<id>/`), sorted. */
export function rawFilesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const f of readdirSync(dir).sort()) {
    const p = join(dir, f);
    if (f.endsWith('.raw')) found.push(p);
    else {
      try {
        if (statSync(p).isDirectory()) for (const g of readdirSync(p).sort()) if (g.endsWith('.raw')) found.push(join(p, g));
      } catch {
        // gone meanwhile
      }
    }
  }
  return found;
}

/**
 * The metric sets of a profile directory (listProfileFiles). When it holds no profile, the error says
 * which raw files beside it are not resolved yet and how to resolve them.
 */
export function listProfileDir(dir: string): MetricFiles[] {
  try {
    return listProfileFiles(dir);
  } catch (e) {
    const note = existsSync(dir) ? (unresolvedRaw(dir) ?? rawBeside(dir)) : null;
    if (e instanceof UserError && note) throw new UserError(`${e.message}; ${note}`);
    throw e;
  }
}

/** The metric set to report: --metric, else the first. */
export function chooseMetric(sets: MetricFiles[], metric?: string): MetricFiles {
  if (metric === undefined) return sets[0];
  const set = sets.find((x) => x.metric === metric);
  if (!set) throw new UserError(`--metric ${metric}: not in this profile (it has ${sets.map((x) => x.metric).join(', ')})`);
  return set;
}

/**
 * Whether the report may print the cross-rank views (several nodes, or a rank of an MPI run): known
 * from the file names and the first lines of each rank's first thread, before the files are read.
 */
export function mayBeMultiRank(set: MetricFiles): boolean {
  if (set.merged) return true;
  if (new Set(set.files.map((f) => f.node)).size > 1) return true;
  return set.files.some((f) => f.context === 0 && f.thread === 0 && readProfileHeader(f.file).metadata.some(([k]) => k === 'MPI World Size'));
}

/**
 * Raw files that ranks of an MPI job left unresolved in the profile directory (the launcher stopped
 * them first): a note with the command that resolves them, or null.
 */
export function unresolvedRaw(dir: string): string | null {
  const raw = join(dir, RANK_RAW_DIR);
  if (!existsSync(raw)) return null;
  const files = rawFilesUnder(raw);
  if (files.length === 0) return null;
  return (
    `${files.length} raw measurement file${files.length === 1 ? '' : 's'} in ${raw} ${files.length === 1 ? 'was' : 'were'} not resolved ` +
    `(the launcher stopped those ranks first): hyprof resolve ${raw} -o ${dir}`
  );
}

/**
 * Raw files directly in a directory that holds no profile: what processes stopped by a signal leave
 * (a linked program's ranks that the launcher stopped write their raw file and cannot resolve it in
 * the signal handler). A note with the command that resolves them all at once, or null.
 */
export function rawBeside(dir: string): string | null {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  } catch {
    return null;
  }
  if (files.length === 0) return null;
  return (
    `it holds ${files.length} raw measurement file${files.length === 1 ? '' : 's'} (*.raw) not resolved yet ` +
    `(processes stopped by a signal write them): hyprof resolve ${dir} -o ${dir}`
  );
}
