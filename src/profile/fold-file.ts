/**
 * `fold.<node>.<context>.json` beside a profile: the instances of the timers folded with HYPROF_FOLD
 * and the samples taken inside them, of one process, symbolized (docs/fold.md). It is hyprof's, not
 * TAU's: the TAU profile is written exactly as without folding; `hyprof report --fold` and the
 * viewer's Fold view read this file.
 *
 * Layout (version 1), columns rather than an object per record (a series may hold 10^6 samples):
 *   { "format": "hyprof-fold", "version": 1, "node": N, "context": C, "metrics": [name...],
 *     "frames": [[function, file, line, object]...],
 *     "series": [{ "name": pattern, "events": [timer name...],
 *                  "capacity": {"instances": I, "samples": S},
 *                  "lost": {"instances": a, "samples": b, "unplaced": c},
 *                  "instances": {"thread": [..], "event": [..], "start": [..], "duration": [..],
 *                                "metrics": [[..] per metric after TIME]},
 *                  "samples": {"thread": [..], "instance": [..], "offset": [..], "leaf": [..],
 *                              "function": [..], "metrics": [[..] per metric after TIME]} }] }
 * Times are nanoseconds; an instance's `start` counts from the earliest instance of its series.
 * `event[i]` indexes `events`; a sample's `instance` indexes the instances, `leaf` and `function`
 * index `frames`: the source line and the function of the innermost frame of the program's own code
 * (outside the C library, the loader, the vDSO and the OpenMP runtime: a spin that reads the clock is
 * the spinning function's, not clock_gettime's); the function is the one that holds the code (the
 * outermost of an inline chain), the line the innermost. A sample's metric is the value since its instance's
 * start, -1 when unknown (a sample of another thread than the instance's). `lost`: instances and
 * samples the runtime had no room for, and samples whose instance is not in the file (lost, or
 * still running when the file was written).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../base/errors.js';

export const FOLD_FILE = /^fold\.(\d+)\.(\d+)\.json$/;
export const foldFileName = (node: number, context: number): string => `fold.${node}.${context}.json`;

/** function, source file ('' when none), line (0 when none), object file. */
export type FoldFrame = [string, string, number, string];

export interface FoldSeries {
  name: string;
  events: string[];
  capacity: { instances: number; samples: number };
  lost: { instances: number; samples: number; unplaced: number };
  instances: { thread: number[]; event: number[]; start: number[]; duration: number[]; metrics: number[][] };
  samples: { thread: number[]; instance: number[]; offset: number[]; leaf: number[]; function: number[]; metrics: number[][] };
}

export interface FoldFile {
  format: 'hyprof-fold';
  version: 1;
  node: number;
  context: number;
  metrics: string[];
  frames: FoldFrame[];
  series: FoldSeries[];
}

/** Write `f` into `dir` (the profile's temporary directory); returns the path. */
export function writeFoldFile(dir: string, f: FoldFile): string {
  const path = join(dir, foldFileName(f.node, f.context));
  writeFileSync(path, JSON.stringify(f));
  return path;
}

/** The fold files of a profile directory, by name order (node, then context). */
export function listFoldFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir).filter((n) => FOLD_FILE.test(n));
  const key = (n: string) => (FOLD_FILE.exec(n) as RegExpExecArray).slice(1).map(Number);
  names.sort((a, b) => key(a)[0] - key(b)[0] || key(a)[1] - key(b)[1]);
  return names.map((n) => join(dir, n));
}

function isNumArray(v: unknown, n?: number): v is number[] {
  return Array.isArray(v) && (n === undefined || v.length === n) && v.every((x) => typeof x === 'number' && Number.isFinite(x));
}

/** Read and check one fold file: anything but what this module writes is refused by name. */
export function readFoldFile(path: string): FoldFile {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UserError(`${path}: not a readable fold file (${(e as Error).message})`);
  }
  const bad = (what: string): never => {
    throw new UserError(`${path}: not a hyprof fold file of version 1: ${what}`);
  };
  const f = data as FoldFile;
  if (!f || typeof f !== 'object' || f.format !== 'hyprof-fold') bad('no "format": "hyprof-fold"');
  if (f.version !== 1) bad(`version ${String(f.version)}`);
  if (!Array.isArray(f.metrics) || !Array.isArray(f.frames) || !Array.isArray(f.series)) bad('metrics, frames or series missing');
  const extra = f.metrics.length - 1;
  f.series.forEach((s, k) => {
    const where = `series ${k}`;
    if (typeof s.name !== 'string' || !Array.isArray(s.events)) bad(`${where}: no name or events`);
    const ni = s.instances?.thread?.length;
    const ns = s.samples?.thread?.length;
    if (ni === undefined || ns === undefined) bad(`${where}: no instances or samples`);
    for (const col of ['thread', 'event', 'start', 'duration'] as const) if (!isNumArray(s.instances[col], ni)) bad(`${where}: instances.${col}`);
    for (const col of ['thread', 'instance', 'offset', 'leaf', 'function'] as const) if (!isNumArray(s.samples[col], ns)) bad(`${where}: samples.${col}`);
    if (s.instances.metrics.length !== extra || !s.instances.metrics.every((m) => isNumArray(m, ni))) bad(`${where}: instances.metrics`);
    if (s.samples.metrics.length !== extra || !s.samples.metrics.every((m) => isNumArray(m, ns))) bad(`${where}: samples.metrics`);
    if (s.instances.event.some((e) => e < 0 || e >= s.events.length)) bad(`${where}: an instance names an event that is not listed`);
    if (s.samples.instance.some((i) => i < 0 || i >= ni)) bad(`${where}: a sample names an instance that is not listed`);
    if ([...s.samples.leaf, ...s.samples.function].some((i) => i < 0 || i >= f.frames.length)) bad(`${where}: a sample names a frame that is not listed`);
  });
  return f;
}
