/**
 * Raw measurement files → one TAU profile directory: read and check every file first (any defect
 * stops everything before a byte is written), symbolize all sampled addresses (each module once),
 * assemble each process, write the profile (temporary files renamed into place).
 */
import { systemErrorText, UserError } from '../base/errors.js';
import { INFO_RUN_ROOT, type RawProcess } from '../samples/raw-model.js';
import { readRawFile } from '../samples/raw-reader.js';
import { Symbolizer } from '../symbolize/symbolizer.js';
import { openmpNotes, prepareOpenmp, writeOpenmpFile } from '../analysis/openmp.js';
import { assembleProcess, fileNumbering, type AssembledProcess } from './assemble.js';
import type { TauProfile, TauThreadProfile } from './tau-model.js';
import { writeTauProfile } from './tau-writer.js';
import { ModuleCollector, writeModulesFile } from './modules-file.js';

export interface ResolveOptions {
  outDir: string;
  callpath?: boolean;
  callpathDepth?: number;
  keepAddresses?: boolean;
  symbolizer?: 'auto' | 'llvm-symbolizer' | 'addr2line';
  onProgress?: (done: number, total: number, what: string) => void;
}

export interface ResolveResult {
  outDir: string;
  /** Profile files written. */
  files: string[];
  processes: number;
  threads: number;
  samples: number;
  /** Lost measurements by reason, summed over every thread of every process. */
  drops: Record<string, number>;
  warnings: string[];
}

export async function resolveRawFiles(files: string[], opts: ResolveOptions): Promise<ResolveResult> {
  if (files.length === 0) throw new UserError('no raw measurement files to resolve');
  const procs: RawProcess[] = files.map((f) => readRawFile(f));
  const underRun = procs.some((p) => (p.info.flags & INFO_RUN_ROOT) !== 0);
  checkCollisions(procs, underRun);
  const metrics = procs[0].info.metrics;
  for (const p of procs) {
    if (p.info.metrics.join(':') !== metrics.join(':')) {
      throw new UserError(
        `${p.file} measured ${p.info.metrics.join(', ')} but ${procs[0].file} measured ${metrics.join(', ')}: resolve them separately`,
      );
    }
  }

  const symbolizer = new Symbolizer({
    symbolizer: opts.symbolizer,
    onProgress: (done, total, what) => opts.onProgress?.(done, total, `symbolizing ${what}`),
  });
  await symbolizer.prepare(procs);
  // OpenMP constructs are renamed after their source location before assembly (analysis/openmp.ts).
  const openmp = await prepareOpenmp(procs, symbolizer);

  const modules = new ModuleCollector();
  const assembled: AssembledProcess[] = procs.map((p, i) => {
    opts.onProgress?.(i, procs.length, `assembling ${p.file}`);
    return assembleProcess(p, {
      callpath: opts.callpath,
      callpathDepth: opts.callpathDepth,
      keepAddresses: opts.keepAddresses,
      resolve: (pc, isReturn) => symbolizer.resolve(p, pc, isReturn),
      underRun,
      modules,
    });
  });

  const profile: TauProfile = { dir: opts.outDir, metrics: [...metrics], threads: metrics.map(() => []) };
  for (const a of assembled) a.threads.forEach((ts, m) => ts.forEach((t) => profile.threads[m].push(t)));
  const byFile = (x: TauThreadProfile, y: TauThreadProfile) => x.node - y.node || x.context - y.context || x.thread - y.thread;
  for (const ts of profile.threads) ts.sort(byFile);
  opts.onProgress?.(procs.length, procs.length, `writing ${opts.outDir}`);
  let written: string[];
  try {
    written = writeTauProfile(profile);
    writeOpenmpFile(opts.outDir, openmp);
    writeModulesFile(opts.outDir, modules.data());
  } catch (e) {
    // Disk full, quota, a directory where a profile file should be: the environment's, said in words.
    const why = systemErrorText(e);
    if (why) throw new UserError(`cannot write the profile to ${opts.outDir}: ${why}`, 1);
    throw e;
  }

  const drops: Record<string, number> = {};
  for (const a of assembled) for (const [k, n] of Object.entries(a.drops)) drops[k] = (drops[k] ?? 0) + n;
  return {
    outDir: opts.outDir,
    files: written,
    processes: procs.length,
    threads: profile.threads[0]?.length ?? 0,
    samples: assembled.reduce((n, a) => n + a.samples, 0),
    drops,
    // The program's own misuse warnings (assembled.warnings) are not repeated: the runtime printed each
    // one while the program ran, and the profile's metadata keeps them (hyprof warning N).
    warnings: [...symbolizer.warnings, ...openmpNotes(procs, openmp)],
  };
}

/** Two processes must never write the same profile.<node>.<context>.* files. */
function checkCollisions(procs: RawProcess[], underRun: boolean): void {
  const owner = new Map<string, RawProcess>();
  for (const p of procs) {
    const { node, context } = fileNumbering(p, underRun);
    const key = `${node}.${context}`;
    const other = owner.get(key);
    if (other) {
      throw new UserError(
        `${other.file} and ${p.file} would both write profile.${key}.* (node ${node}, context ${context}): ` +
          'resolve them into different directories',
      );
    }
    owner.set(key, p);
  }
}
