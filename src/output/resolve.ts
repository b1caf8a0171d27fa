/**
 * Raw measurement files → one TAU profile directory: read and check every file first (any defect
 * stops everything before a byte is written), symbolize all sampled addresses (each module once),
 * assemble each process, write the profile (temporary files renamed into place).
 */
import { UserError } from '../base/errors.js';
import { INFO_MPI_RANK, INFO_NODE_SET, INFO_RANK_FROM_ENV, INFO_RUN_ROOT, type RawProcess } from '../samples/raw-model.js';
import { readRawFile } from '../samples/raw-reader.js';
import { Symbolizer } from '../symbolize/symbolizer.js';
import { mpiCallSites, MPI_SITES_KEY } from '../analysis/mpi-sites.js';
import { openmpNotes, prepareOpenmp, writeOpenmpFile } from '../analysis/openmp.js';
import { assembleProcess, fileNumbering, type AssembledProcess } from './assemble.js';
import { rankNotes, summarizeRanks, type RankSummary } from './mpi-ranks.js';
import type { TauProfile, TauThreadProfile } from './tau-model.js';
import { writeTauProfile, type StaleRule } from './tau-writer.js';
import { ModuleCollector, writeModulesFile } from './modules-file.js';

export interface ResolveOptions {
  outDir: string;
  callpath?: boolean;
  callpathDepth?: number;
  keepAddresses?: boolean;
  symbolizer?: 'auto' | 'llvm-symbolizer' | 'addr2line';
  onProgress?: (done: number, total: number, what: string) => void;
  /**
   * These raw files are all an MPI run left (`hyprof run -- mpirun ...`, or `hyprof resolve` of a
   * run's raw directory): ranks of the run without a file are named as lost. Default: when the files
   * hold more than one rank. A resolve of one rank's own files (each rank resolving at its exit)
   * cannot know about the others; `hyprof report` says it then.
   */
  allRanks?: boolean;
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
  /** The ranks of an MPI run (undefined when no process knew an MPI rank). */
  ranks?: RankSummary;
}

/** Processes of an MPI run, or programs that chose their node, may be resolved rank by rank into one directory. */
function isRankOfSeveral(p: RawProcess): boolean {
  return (p.info.flags & (INFO_MPI_RANK | INFO_RANK_FROM_ENV | INFO_NODE_SET)) !== 0;
}

export async function resolveRawFiles(files: string[], opts: ResolveOptions): Promise<ResolveResult> {
  if (files.length === 0) throw new UserError('no raw measurement files to resolve');
  const procs: RawProcess[] = files.map((f) => readRawFile(f));
  const underRun = procs.some((p) => (p.info.flags & INFO_RUN_ROOT) !== 0);
  checkCollisions(procs, underRun);
  const metrics = procs[0].info.metrics;
  for (const p of procs) {
    if (p.info.metrics.join(':') !== metrics.join(':')) {
      const who = (q: RawProcess) => (isRankOfSeveral(q) ? `${q.file} (rank ${q.info.node})` : q.file);
      throw new UserError(
        `${who(p)} measured ${p.info.metrics.join(', ')} but ${who(procs[0])} measured ${metrics.join(', ')}: ` +
          'one profile holds one set of metrics; resolve them separately (or run every rank with the same HYPROF_METRICS)',
      );
    }
  }
  const records = procs.map((p) => ({ node: p.info.node, attributes: p.info.attributes, source: p.file }));
  const mpiRun = procs.some((p) => (p.info.flags & (INFO_MPI_RANK | INFO_RANK_FROM_ENV)) !== 0);
  const ranks = mpiRun ? summarizeRanks(records) : undefined;
  const allRanks = opts.allRanks ?? (ranks !== undefined && ranks.present.length > 1);

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

  // MPI call sites go into each thread's metadata, so the profile directory alone carries them.
  for (let i = 0; i < procs.length; i++) {
    const sites = await mpiCallSites(procs[i], symbolizer);
    if (sites.size === 0) continue;
    for (const ts of assembled[i].threads) {
      for (const t of ts) {
        const list = sites.get(t.thread);
        if (list) t.metadata.push([MPI_SITES_KEY, JSON.stringify(list)]);
      }
    }
  }

  const profile: TauProfile = { dir: opts.outDir, metrics: [...metrics], threads: metrics.map(() => []) };
  for (const a of assembled) a.threads.forEach((ts, m) => profile.threads[m].push(...ts));
  const byFile = (x: TauThreadProfile, y: TauThreadProfile) => x.node - y.node || x.context - y.context || x.thread - y.thread;
  for (const ts of profile.threads) ts.sort(byFile);
  opts.onProgress?.(procs.length, procs.length, `writing ${opts.outDir}`);
  // Ranks resolving their own files into one directory at the same time must leave each other's alone.
  const stale: StaleRule =
    procs.some(isRankOfSeveral) && !allRanks
      ? {
          kind: 'ranks',
          before: Math.min(...procs.map((p) => Number(p.info.startNs / 1_000_000n))),
          worldSize: ranks?.worldSize,
        }
      : { kind: 'all' };
  const written = writeTauProfile(profile, stale);
  writeOpenmpFile(opts.outDir, openmp);
  writeModulesFile(opts.outDir, modules.data());

  const drops: Record<string, number> = {};
  for (const a of assembled) for (const [k, n] of Object.entries(a.drops)) drops[k] = (drops[k] ?? 0) + n;
  return {
    outDir: opts.outDir,
    files: written,
    processes: procs.length,
    threads: profile.threads[0]?.length ?? 0,
    samples: assembled.reduce((n, a) => n + a.samples, 0),
    drops,
    warnings: [
      ...symbolizer.warnings,
      ...assembled.flatMap((a) => a.warnings),
      ...openmpNotes(procs, openmp),
      ...(ranks ? rankNotes(allRanks ? ranks : { ...ranks, lost: [] }) : []),
    ],
    ...(ranks ? { ranks } : {}),
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
