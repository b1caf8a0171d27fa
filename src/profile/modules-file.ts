/**
 * `modules.json` beside a profile: which object file (path, build id) each sampled function came
 * from. TAU's format has no place for it, and exporters want it (pprof mappings), so `hyprof resolve`
 * writes it next to the profile files; a profile without it (TAU's own, or an older hyprof's) simply
 * exports without mappings.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { displayName } from './tau-model.js';

export const MODULES_FILE = 'modules.json';

export interface ModuleEntry {
  path: string;
  buildId: string;
}

export interface ModulesFile {
  version: 1;
  modules: ModuleEntry[];
  /** [function, file, index into modules], names as the profile writes them. */
  functions: Array<[string, string, number]>;
}

/** The key exporters look a frame up by: the function as readers display it, and its file. */
export function functionKey(fn: string, file: string): string {
  return `${displayName(fn)}\u0000${file}`;
}

/** Collects (function, file) → module while samples are named. */
export class ModuleCollector {
  private readonly modules = new Map<string, number>();
  private readonly list: ModuleEntry[] = [];
  private readonly functions = new Map<string, [string, string, number]>();

  /** The index of a module (added on first sight). */
  module(path: string, buildId: string): number {
    const mk = `${path}\u0000${buildId}`;
    let i = this.modules.get(mk);
    if (i === undefined) {
      i = this.list.length;
      this.list.push({ path, buildId });
      this.modules.set(mk, i);
    }
    return i;
  }

  note(fn: string, file: string, path: string, buildId: string): void {
    const i = this.module(path, buildId);
    const key = functionKey(fn, file);
    if (!this.functions.has(key)) this.functions.set(key, [displayName(fn), file, i]);
  }

  data(): ModulesFile {
    return { version: 1, modules: this.list, functions: [...this.functions.values()] };
  }
}

const RANK_FILE = /^modules\.rank\d+\.json$/;

/**
 * Write (or, with nothing to say, remove a stale) modules.json in `dir`; with `rank`, the file of one
 * rank of an MPI run resolving its own files beside the others (`modules.rank<N>.json`, merged when read).
 */
export function writeModulesFile(dir: string, data: ModulesFile, rank?: number): void {
  const path = join(dir, rank === undefined ? MODULES_FILE : `modules.rank${rank}.json`);
  if (data.modules.length === 0) {
    rmSync(path, { force: true });
    return;
  }
  const tmp = `${path}.tmp.${process.pid}`;
  writeFileSync(tmp, JSON.stringify(data));
  renameSync(tmp, path);
}

/** Remove the per-rank files of an earlier run (a resolve of every rank at once writes one file). */
export function removeRankModulesFiles(dir: string): void {
  for (const f of readdirSync(dir)) if (RANK_FILE.test(f)) rmSync(join(dir, f), { force: true });
}

/** What an exporter needs: module of a function, module of a path. Null when the file is absent or
 * not one hyprof wrote (exports then have no mappings; nothing else depends on it). */
export interface ModuleIndex {
  modules: ModuleEntry[];
  ofFunction(fn: string, file: string): number | undefined;
  ofPath(path: string): number | undefined;
}

function readOne(path: string): ModulesFile | null {
  try {
    const d = JSON.parse(readFileSync(path, 'utf8')) as ModulesFile;
    return d && d.version === 1 && Array.isArray(d.modules) && Array.isArray(d.functions) ? d : null;
  } catch {
    return null;
  }
}

export function readModulesFile(dir: string): ModuleIndex | null {
  const names = existsSync(dir) ? readdirSync(dir).filter((f) => f === MODULES_FILE || RANK_FILE.test(f)).sort() : [];
  // modules.json, and the files of the ranks of an MPI run, merged into one index.
  const merged = new ModuleCollector();
  let any = false;
  for (const n of names) {
    const d = readOne(join(dir, n));
    if (!d) continue;
    any = true;
    for (const [fn, file, i] of d.functions) if (d.modules[i]) merged.note(fn, file, d.modules[i].path, d.modules[i].buildId);
    for (const m of d.modules) merged.module(m.path, m.buildId);
  }
  if (!any) return null;
  const d = merged.data();
  const byFn = new Map(d.functions.map(([fn, file, i]) => [functionKey(fn, file), i]));
  const byPath = new Map(d.modules.map((m, i) => [m.path, i]));
  return {
    modules: d.modules,
    ofFunction: (fn, file) => byFn.get(functionKey(fn, file)),
    ofPath: (p) => byPath.get(p),
  };
}
