/**
 * The OpenMP part of turning raw files into a profile: rename construct events after their source
 * location (before assembly), analyse each process that ran the OpenMP tool, and keep the analysis
 * beside the TAU profile as `openmp.json` (TAU's readers ignore files that are not profile.*), where
 * `hyprof report --openmp / --diagnose` finds it.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemErrorText, UserError } from '../base/errors.js';
import type { RawProcess } from '../samples/raw-model.js';
import { readRawFile } from '../samples/raw-reader.js';
import { AddressMap } from '../symbolize/address-map.js';
import { moduleKey, Symbolizer } from '../symbolize/symbolizer.js';
import { analyzeOpenmp } from './openmp-analysis.js';
import type { OpenmpAnalysis } from './openmp-model.js';
import { applyConstructNames, nameConstructs } from './openmp-names.js';
import { readOmptSection, type OmptData } from './openmp-raw.js';

export const OPENMP_FILE = 'openmp.json';

export interface OpenmpFile {
  /** One entry per process that ran the OpenMP tool. */
  processes: OpenmpAnalysis[];
  /** Processes without an active OpenMP tool (no OMPT runtime, or HYPROF_OPENMP=off). */
  withoutTool: string[];
}

/** Rename construct events of every process in place and analyse those that ran the tool. */
export async function prepareOpenmp(procs: RawProcess[], symbolizer: Symbolizer): Promise<OpenmpFile> {
  const out: OpenmpFile = { processes: [], withoutTool: [] };
  for (const proc of procs) {
    const omp = readOmptSection(proc.file);
    if (!omp) {
      out.withoutTool.push(proc.file);
      continue;
    }
    out.processes.push(await analyzeProcess(proc, omp, symbolizer));
  }
  return out;
}

async function analyzeProcess(proc: RawProcess, omp: OmptData, symbolizer: Symbolizer): Promise<OpenmpAnalysis> {
  const names = await nameConstructs(proc, omp, symbolizer);
  applyConstructNames(proc, names);
  await symbolizer.prepare([proc]);
  const map = new AddressMap(proc.maps);
  // The hottest sampled line of a context (for naming serial sections).
  const hotLine = (ctx: bigint): string | null => {
    const counts = new Map<string, number>();
    for (const t of proc.threads) {
      for (const s of t.samples) {
        if (s.context !== ctx || s.pcs.length === 0) continue;
        // The innermost frame in the program's own sources (not the runtime's or libc's, whose
        // files are not on this machine) names the line.
        let key: string | null = null;
        for (let i = 0; i < s.pcs.length && key === null; i++) {
          const r = symbolizer.resolve(proc, s.pcs[i], i > 0);
          if (!r.resolved) continue;
          const f = r.frames[0];
          if (f.line > 0 && ownSource(f.file)) key = `${f.file}:${f.line} (${r.frames[r.frames.length - 1].function})`;
        }
        if (key === null) continue;
        counts.set(key, (counts.get(key) ?? 0) + s.count);
      }
    }
    let best: string | null = null;
    let n = 0;
    for (const [k, c] of counts) if (c > n) [best, n] = [k, c];
    return best;
  };
  // Release sites: symbolized like construct addresses (return addresses: at − 1).
  const releaseAddrs = omp.threads.flatMap((t) => t.releases.map((r) => r.codeptr));
  const located = new Map<bigint, string>();
  const byModule = new Map<string, { path: string; buildId: string; pairs: Array<[bigint, bigint]> }>();
  for (const a of releaseAddrs) {
    const hit = a > 0n ? map.lookup(a - 1n) : null;
    if (!hit || hit.mapping.path.startsWith('[')) continue;
    const key = moduleKey(hit.mapping);
    let m = byModule.get(key);
    if (!m) byModule.set(key, (m = { path: hit.mapping.path, buildId: hit.mapping.buildId, pairs: [] }));
    m.pairs.push([a, hit.moduleAddress]);
  }
  for (const m of byModule.values()) {
    const res = await symbolizer.symbolizeModule(m.path, m.buildId, m.pairs.map((p) => p[1]));
    m.pairs.forEach(([a], i) => {
      const fr = res[i];
      if (fr && fr.length > 0 && fr[0].line > 0) located.set(a, `${fr[0].file}:${fr[0].line} (${fr[fr.length - 1].function})`);
    });
  }
  // The code of a task seen by sampling: the return address into its entry function.
  const frameAt = (pc: bigint) => {
    const r = symbolizer.resolve(proc, pc, true);
    if (!r.resolved || r.frames.length === 0) return null;
    const inner = r.frames[0];
    const outer = r.frames[r.frames.length - 1];
    return { function: outer.function, location: inner.line > 0 ? `${inner.file}:${inner.line}` : `${inner.file} (${outer.function})` };
  };
  return analyzeOpenmp({
    proc,
    omp,
    names,
    hotLine,
    locate: (a) => located.get(a) ?? `0x${a.toString(16)}`,
    frameAt,
  });
}

const sourceSeen = new Map<string, boolean>();
function ownSource(file: string): boolean {
  let ok = sourceSeen.get(file);
  if (ok === undefined) sourceSeen.set(file, (ok = file.startsWith('/') && !file.startsWith('/usr/') && existsSync(file)));
  return ok;
}

/**
 * The analysis file of a resolve: `openmp.json`, or `openmp.rank<N>.json` when the ranks of an MPI run
 * resolve their own files into one directory at the same time (each keeps its own; the reader merges).
 */
export function openmpFileName(rank?: number): string {
  return rank === undefined ? OPENMP_FILE : `openmp.rank${rank}.json`;
}

const RANK_FILE = /^openmp\.rank\d+\.json$/;

/** Write the analysis next to the profile (temporary name, then renamed). */
export function writeOpenmpFile(outDir: string, data: OpenmpFile, rank?: number): string | null {
  const path = join(outDir, openmpFileName(rank));
  if (data.processes.length === 0) {
    if (rank !== undefined) rmSync(path, { force: true });
    return null;
  }
  const tmp = `${path}.tmp.${process.pid}`;
  writeFileSync(tmp, JSON.stringify(data, null, 1));
  renameSync(tmp, path);
  return path;
}

/** Remove the per-rank analysis files of an earlier run (a resolve of every rank at once writes one file). */
export function removeRankOpenmpFiles(outDir: string): void {
  for (const f of readdirSync(outDir)) if (RANK_FILE.test(f)) rmSync(join(outDir, f), { force: true });
}

function readOne(path: string): OpenmpFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`${path}: cannot read: ${systemErrorText(e) ?? (e as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new UserError(`${path}: not valid JSON: ${(e as Error).message}`);
  }
  const d = data as OpenmpFile;
  if (!d || !Array.isArray(d.processes) || !Array.isArray(d.withoutTool)) {
    throw new UserError(`${path}: not an OpenMP analysis written by hyprof (no "processes" list)`);
  }
  return d;
}

/** Does the profile directory hold an OpenMP analysis (openmp.json or per-rank files)? */
export function hasOpenmpFile(dir: string): boolean {
  return existsSync(dir) && readdirSync(dir).some((f) => f === OPENMP_FILE || RANK_FILE.test(f));
}

/**
 * Read the OpenMP analysis of a profile directory (`openmp.json`, and the per-rank files of an MPI
 * run), with a message a user can act on when there is none.
 */
export function readOpenmpFile(dir: string): OpenmpFile {
  const names = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f === OPENMP_FILE || RANK_FILE.test(f))
        .sort((a, b) => (a === OPENMP_FILE ? -1 : b === OPENMP_FILE ? 1 : Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0])))
    : [];
  if (names.length === 0) {
    throw new UserError(
      `${dir}: no OpenMP measurements (${OPENMP_FILE} is missing). They are recorded when the program ran with an ` +
        'OpenMP runtime that has the OpenMP tools interface (LLVM libomp; for gcc-built programs `hyprof run` substitutes ' +
        'it) and HYPROF_OPENMP is not off.',
    );
  }
  const all = names.map((n) => readOne(join(dir, n)));
  return all.length === 1 ? all[0] : { processes: all.flatMap((d) => d.processes), withoutTool: all.flatMap((d) => d.withoutTool) };
}

/**
 * What a user must know about OpenMP in these processes: a process that loaded libgomp (which has no
 * OpenMP tools interface), or an OpenMP runtime that did not start the tool, has no OpenMP events or
 * metrics; a process where `hyprof run` put LLVM's libomp in libgomp's place ran on another runtime
 * than usual. Loaded libraries are known from the memory map (recorded with sampling on or off).
 */
export function openmpNotes(procs: RawProcess[], data: OpenmpFile): string[] {
  const notes: string[] = [];
  for (const p of procs) {
    const gomp = p.maps.some((m) => /\/libgomp\.so/.test(m.path));
    const other = p.maps.find((m) => /\/lib(i|gnu)?omp[0-9]*(-[0-9.]+)?\.so/.test(m.path) && !/\/libgomp\.so/.test(m.path));
    const toolOff = p.info.attributes.some(([k, v]) => k === 'OpenMP Tool' && v === 'off');
    if (data.withoutTool.includes(p.file) && other && !gomp && !toolOff) {
      // Loaded but silent: a runtime told not to start a tool, or one without the interface (it ran
      // threads); a program that ran no OpenMP construct never started the runtime: nothing to say.
      const attr = (k: string) => p.info.attributes.find(([a]) => a === k)?.[1];
      const toolEnv = attr('OMP_TOOL');
      const libraries = attr('OMP_TOOL_LIBRARIES');
      const why =
        toolEnv === 'disabled'
          ? 'OMP_TOOL=disabled'
          : libraries
            ? `another tool chosen through OMP_TOOL_LIBRARIES=${libraries}`
            : p.threads.length > 1
              ? 'the runtime has no OpenMP tools interface, or another tool was chosen'
              : null;
      if (why) notes.push(`${p.file}: the OpenMP runtime ${other.path} did not start the OpenMP tool (${why}): no OpenMP events or metrics were recorded`);
    }
    if (data.withoutTool.includes(p.file) && gomp) {
      // Under `hyprof run` or hyprof-exec with libomp installed, libomp was put first on
      // LD_LIBRARY_PATH and the program loaded libgomp all the same: telling it to run under them
      // would send the user in a circle.
      const offered = p.info.attributes.some(([k]) => k === 'OpenMP Substitution Offered');
      const advice = offered
        ? "LLVM's libomp was put in its place on LD_LIBRARY_PATH, and the program loaded libgomp all the same (an RPATH naming libgomp's directory, or HYPROF_OPENMP=off); build it with clang -fopenmp"
        : "run it under `hyprof run` or hyprof-exec with LLVM's libomp installed (the libomp5 package): they put it in libgomp's place";
      notes.push(
        `${p.file}: the program uses GNU libgomp, which has no OpenMP tools interface: no OpenMP events or metrics were ` +
          `recorded (${advice})`,
      );
    }
  }
  for (const a of data.processes) if (a.substituted) notes.push(`${a.file}: ${a.substituted}`);
  for (const a of data.processes) {
    if (a.lost > 0) {
      notes.push(
        `${a.file}: the OpenMP tool could not keep ${a.lost} of its records (a per-thread table full, or parallel regions ` +
          'nested deeper than the 16 levels it follows): those constructs are not in the OpenMP figures, their time is in the enclosing timers',
      );
    }
  }
  return notes;
}

/**
 * The notes of openmpNotes for all processes of a resolve, each text once: the ranks of an MPI job
 * all ran on the same substitute, or all loaded libgomp, and one line says it for them
 * (`4 processes (<first file> and 3 more): ...`), not one line per rank.
 */
export function mergeProcessNotes(notes: string[]): string[] {
  const byText = new Map<string, string[]>();
  for (const note of notes) {
    const at = note.indexOf(': ');
    const [file, text] = at > 0 ? [note.slice(0, at), note.slice(at + 2)] : ['', note];
    byText.set(text, [...(byText.get(text) ?? []), file]);
  }
  return [...byText].map(([text, files]) =>
    files.length === 1 ? (files[0] ? `${files[0]}: ${text}` : text) : `${files.length} processes (${files[0]} and ${files.length - 1} more): ${text}`,
  );
}

/** Analyse raw files directly (tests, and `hyprof resolve` before the profile is written). */
export async function analyzeRawFiles(files: string[]): Promise<OpenmpFile> {
  const procs = files.map((f) => readRawFile(f));
  return prepareOpenmp(procs, new Symbolizer());
}
