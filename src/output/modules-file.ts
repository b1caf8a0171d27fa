/**
 * `modules.json` beside a profile: which object file (path, build id) each sampled function came
 * from. TAU's format has no place for it, and exporters want it (pprof mappings), so `hyprof resolve`
 * writes it next to the profile files; a profile without it (TAU's own, or an older hyprof's) simply
 * exports without mappings.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

/** Write (or, with nothing to say, remove a stale) modules.json in `dir`. */
export function writeModulesFile(dir: string, data: ModulesFile): void {
  const path = join(dir, MODULES_FILE);
  if (data.modules.length === 0) {
    rmSync(path, { force: true });
    return;
  }
  const tmp = `${path}.tmp.${process.pid}`;
  writeFileSync(tmp, JSON.stringify(data));
  renameSync(tmp, path);
}

/** What an exporter needs: module of a function, module of a path. Null when the file is absent or
 * not one hyprof wrote (exports then have no mappings; nothing else depends on it). */
export interface ModuleIndex {
  modules: ModuleEntry[];
  ofFunction(fn: string, file: string): number | undefined;
  ofPath(path: string): number | undefined;
}

export function readModulesFile(dir: string): ModuleIndex | null {
  const path = join(dir, MODULES_FILE);
  if (!existsSync(path)) return null;
  let d: ModulesFile;
  try {
    d = JSON.parse(readFileSync(path, 'utf8')) as ModulesFile;
  } catch {
    return null;
  }
  if (!d || d.version !== 1 || !Array.isArray(d.modules) || !Array.isArray(d.functions)) return null;
  const byFn = new Map(d.functions.map(([fn, file, i]) => [functionKey(fn, file), i]));
  const byPath = new Map(d.modules.map((m, i) => [m.path, i]));
  return {
    modules: d.modules,
    ofFunction: (fn, file) => byFn.get(functionKey(fn, file)),
    ofPath: (p) => byPath.get(p),
  };
}
