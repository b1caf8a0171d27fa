/**
 * `hyprof resolve --per-node RAW -o DIR`: the resolve of a large MPI job as a step of the job itself,
 * one process per node (`mpirun --map-by ppr:1:node`, `srun --ntasks-per-node=1`), docs/mpi.md.
 *
 * The raw directory of a job launched through `hyprof-exec` holds one subdirectory per node
 * (`RAW/<host>/`, run/measured-env.ts). Each process of the step takes a contiguous block of those
 * subdirectories (by its rank in the step, from the launcher's environment), resolves their files in
 * one resolve (each module symbolized once for the whole block, then from the symbol cache) into a
 * directory of its own, `DIR/.hyprof-step-<job id>/<rank>/`, and writes a record of what it wrote,
 * `done.<rank>.json` (written under a temporary name, then renamed). Then it lists the records: the
 * process that sees all of them claims the reduction by creating `reduce` exclusively (O_EXCL). Each
 * process writes its record before it lists, so the last to write sees every record; two that finish
 * together both see them all, and the exclusive create lets only one reduce. No message passing, no
 * lock, no waiting process: the launcher's usual rule (a process that fails ends the job) covers
 * failures. The reduction moves the thread files into DIR (or writes TAU's merged file from them),
 * joins the analyses beside the profile (openmp.json, modules.json) in block order, and says what
 * only the whole run can say (ranks lost, settings that differ), so that the profile is the one a
 * plain `hyprof resolve RAW -o DIR` writes. The files must lie on a file system every node sees.
 */
import { existsSync, linkSync, mkdirSync, rmdirSync, openSync, closeSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { UserError } from '../base/errors.js';
import { rawFilesUnder } from '../profile/profile-dir.js';
import { rankNotes, summarizeRanks, type RankRecord } from '../profile/mpi-ranks.js';
import { abandonPendingWrites, commitProfile, startProfileWrite } from '../profile/tau-writer.js';
import { writeMergedFile } from '../profile/tau-merged.js';
import { MERGED_FILE } from '../profile/tau-merged-reader.js';
import { mergeProcessNotes, OPENMP_FILE, removeRankOpenmpFiles, writeOpenmpFile, type OpenmpFile } from '../analysis/openmp.js';
import { MODULES_FILE, ModuleCollector, removeRankModulesFiles, writeModulesFile, type ModulesFile } from '../profile/modules-file.js';
import { orphanTracesUnder, fromOneRun } from './raw-inputs.js';
import { checkOutputDir, filePattern, profileFilesIn, replacedFiles, type ResolveStepOptions, type ResolveSummary } from './resolve-step.js';

/** The step's process: its rank, how many there are, and the job it belongs to. */
export interface StepProcess {
  rank: number;
  size: number;
  job: string;
}

/** Rank and size variables of launchers, in the runtime's order of trust (native/core/rank.c). */
const LAUNCHER_VARS: Array<[string, string]> = [
  ['OMPI_COMM_WORLD_RANK', 'OMPI_COMM_WORLD_SIZE'],
  ['PMI_RANK', 'PMI_SIZE'],
  ['MV2_COMM_WORLD_RANK', 'MV2_COMM_WORLD_SIZE'],
  ['SLURM_PROCID', 'SLURM_NTASKS'],
];

const whole = (v: string | undefined): number | null => (v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : null);

/** Which process of the step this is, from the launcher's environment; a clear error when none started it. */
export function stepProcess(env: NodeJS.ProcessEnv = process.env): StepProcess {
  for (const [rv, sv] of LAUNCHER_VARS) {
    const rank = whole(env[rv]);
    const size = whole(env[sv]);
    if (rank === null || size === null || rank >= size) continue;
    // The job's id, the same in every process of the step: names the step's working directory.
    const id =
      env.OMPI_MCA_ess_base_jobid ?? env.PMIX_NAMESPACE ?? (env.SLURM_JOB_ID ? `${env.SLURM_JOB_ID}.${env.SLURM_STEP_ID ?? '0'}` : undefined) ?? env.PMI_JOBID ?? env.HYPROF_STEP_ID;
    if (!id) {
      throw new UserError(`hyprof resolve --per-node: ${rv} is set but the launcher gives no job id (OMPI_MCA_ess_base_jobid, PMIX_NAMESPACE, SLURM_JOB_ID): set HYPROF_STEP_ID to one name for the step`);
    }
    return { rank, size, job: id.replace(/[^A-Za-z0-9._-]/g, '_') };
  }
  throw new UserError(
    'hyprof resolve --per-node runs as a step of an MPI job, one process per node (no OMPI_COMM_WORLD_RANK / _SIZE, PMI_RANK / PMI_SIZE, SLURM_PROCID / SLURM_NTASKS here): ' +
      'mpirun --map-by ppr:1:node hyprof resolve --per-node RAW -o DIR',
  );
}

/**
 * The raw files of a job's raw directory in node blocks: consecutive files of one directory (a node's
 * subdirectory, or the raw directory itself) form a block, in the order a plain resolve reads them.
 */
export function nodeBlocks(rawDir: string): Array<{ dir: string; files: string[] }> {
  const blocks: Array<{ dir: string; files: string[] }> = [];
  for (const f of rawFilesUnder(rawDir)) {
    const dir = relative(rawDir, join(f, '..')) || '.';
    const last = blocks[blocks.length - 1];
    if (last && last.dir === dir) last.files.push(f);
    else blocks.push({ dir, files: [f] });
  }
  return blocks;
}

/** Process `rank` of `size` takes blocks [first, end): contiguous, so that the parts joined in rank order are the plain resolve's order. */
export function blockRange(blocks: number, rank: number, size: number): [number, number] {
  return [Math.floor((rank * blocks) / size), Math.floor(((rank + 1) * blocks) / size)];
}

/** What one process of the step wrote, for the reduction. */
interface PartRecord {
  rank: number;
  blocks: number;
  nodes: string[];
  /** Profile files, relative to the part's directory. */
  files: string[];
  metrics: string[];
  threads: number;
  samples: number;
  drops: Record<string, number>;
  warnings: string[];
  replaced: ResolveSummary['replaced'];
  rankRecords: RankRecord[];
  processNotes: string[];
}

/** The step's working directory in the output directory while it runs, and whether this step made the output directory. */
let working: { step: string; outDir: string; made: boolean } | undefined;

/** An interrupted or failed step: its working directory goes, with the writes under way (and the
 * output directory, when the step made it and nothing else is there). */
export function abandonNodeStep(): string {
  abandonPendingWrites();
  if (!working) return '';
  const { step, outDir, made } = working;
  working = undefined;
  rmSync(step, { recursive: true, force: true });
  if (made) {
    try {
      rmdirSync(outDir);
    } catch {
      /* another process of the step wrote there meanwhile, or it holds something else */
    }
  }
  return `the step's partial results (${step}) were removed`;
}

/** Working directories of earlier steps into this output directory that failed (a process that
 * fails removes its step's directory, but another may still write into it before the launcher ends
 * it): the step that completes removes them with its own. */
function removeStepDirs(outDir: string): void {
  for (const f of readdirSync(outDir)) if (f.startsWith('.hyprof-step-')) rmSync(join(outDir, f), { recursive: true, force: true });
}

/**
 * One process of the step: resolve its blocks, record them, and reduce when it is the last.
 * Returns the summary of the whole profile from the process that reduced, null from the others.
 */
export async function nodeStep(rawDir: string, outDir: string, opts: ResolveStepOptions, env: NodeJS.ProcessEnv = process.env): Promise<StepSummary | null> {
  try {
    return await stepOnce(rawDir, outDir, opts, env);
  } catch (e) {
    // A process that fails ends the job (the launcher's rule): nothing of the step stays behind.
    abandonNodeStep();
    throw e;
  }
}

export type StepSummary = ResolveSummary & { nodes: number; processes: number };

async function stepOnce(rawDir: string, outDir: string, opts: ResolveStepOptions, env: NodeJS.ProcessEnv): Promise<StepSummary | null> {
  const me = stepProcess(env);
  checkOutputDir(outDir);
  if (orphanTracesUnder(rawDir).length > 0 || rawFilesUnder(rawDir).some((f) => existsSync(f.replace(/\.raw$/, '.trace')))) {
    throw new UserError(
      `${rawDir}: holds traces (HYPROF_TRACE): one OTF2 archive holds every rank, which a resolve per node does not write: resolve the whole run at once (hyprof resolve ${rawDir})`,
    );
  }
  const blocks = nodeBlocks(rawDir);
  if (blocks.length === 0) throw new UserError(`${rawDir}: no raw measurement files (*.raw) in this directory or its node subdirectories`);
  const step = join(outDir, `.hyprof-step-${me.job}`);
  working = { step, outDir, made: !existsSync(outDir) };
  const mine = join(step, String(me.rank));
  rmSync(mine, { recursive: true, force: true });
  mkdirSync(mine, { recursive: true });
  const [first, end] = blockRange(blocks.length, me.rank, me.size);
  const files = blocks.slice(first, end).flatMap((b) => b.files);
  const record: PartRecord = { rank: me.rank, blocks: blocks.length, nodes: blocks.slice(first, end).map((b) => b.dir), files: [], metrics: [], threads: 0, samples: 0, drops: {}, warnings: [], replaced: [], rankRecords: [], processNotes: [] };
  if (files.length > 0) {
    const { resolveRawFiles } = await import('../resolve/resolve.js');
    const r = await resolveRawFiles(files, {
      ...opts,
      format: 'profile',
      outDir: mine,
      part: true,
      rawDirectory: true,
      // Numbered as the plain resolve of the whole directory numbers them (cmd-resolve.ts).
      fromRun: fromOneRun(blocks.flatMap((b) => b.files)),
    });
    Object.assign(record, {
      files: r.files.map((f) => relative(mine, f)),
      metrics: r.metrics,
      threads: r.threads,
      samples: r.samples,
      drops: r.drops,
      warnings: r.warnings,
      replaced: r.replacedImages.map(({ node, context, executable }) => ({ node, context, executable })),
      rankRecords: r.rankRecords ?? [],
      processNotes: r.processNotes ?? [],
    });
  }
  const done = join(step, `done.${me.rank}.json`);
  writeFileSync(`${done}.tmp`, JSON.stringify(record));
  renameSync(`${done}.tmp`, done);
  // The last to finish reduces: written before listed, so the last writer sees every record.
  const records = readdirSync(step).filter((f) => /^done\.\d+\.json$/.test(f));
  if (records.length < me.size) return null;
  try {
    closeSync(openSync(join(step, 'reduce'), 'wx'));
  } catch {
    return null; // another process that saw every record reduces
  }
  const parts = records.map((f) => JSON.parse(readFileSync(join(step, f), 'utf8')) as PartRecord).sort((a, b) => a.rank - b.rank);
  const summary = reduce(parts, step, outDir, blocks.length, opts);
  working = undefined;
  removeStepDirs(outDir);
  return summary;
}

/** The reduction: the parts' files into the output directory, one analysis file each, the whole run's notes. */
function reduce(parts: PartRecord[], step: string, outDir: string, blocks: number, opts: ResolveStepOptions): StepSummary {
  const withFiles = parts.filter((p) => p.files.length > 0);
  if (parts.some((p) => p.blocks !== blocks)) {
    throw new UserError(`the processes of the step saw different raw directories (${parts.map((p) => p.blocks).join(', ')} node blocks): the raw directory changed while it was resolved`);
  }
  const metrics = withFiles[0].metrics;
  for (const p of withFiles) {
    if (p.metrics.join(':') !== metrics.join(':')) {
      throw new UserError(
        `node ${p.nodes[0]} measured ${p.metrics.join(', ')} but node ${withFiles[0].nodes[0]} measured ${metrics.join(', ')}: ` +
          'one profile holds one set of metrics: resolve these files into separate directories',
      );
    }
  }
  // Two nodes' files with the same name: the same rank twice (a raw file left from another run).
  const owner = new Map<string, string>();
  for (const p of withFiles) {
    for (const f of p.files) {
      const other = owner.get(f);
      if (other !== undefined) throw new UserError(`nodes ${other} and ${p.nodes.join(', ')} both hold ${f}: a rank's raw file twice (left from another run?): resolve them into different directories`);
      owner.set(f, p.nodes.join(', '));
    }
  }
  const before = profileFilesIn(outDir);
  const write = startProfileWrite(outDir, [...metrics]);
  const moves = withFiles
    .flatMap((p) => p.files.map((f): [string, string] => [join(step, String(p.rank), f), join(outDir, f)]))
    .sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const nodes = new Set(moves.map(([, to]) => Number(/profile\.(\d+)\.\d+\.\d+$/.exec(to)?.[1] ?? -1)));
  let written: string[];
  if ((opts.format ?? ((process.env.TAU_PROFILE_FORMAT ?? '').trim().toLowerCase() === 'merged' ? 'merged' : 'profile')) === 'merged') {
    const merged = writeMergedFile(moves.map(([from]) => from), metrics, join(write.tmp, MERGED_FILE));
    written = commitProfile(write, [[merged, join(outDir, MERGED_FILE)]], nodes);
  } else {
    // Linked, not renamed, until every file is in place: a failure leaves the parts whole.
    for (const [from] of moves) linkSync(from, join(write.tmp, relative(step, from).replace(/\//g, '_')));
    written = commitProfile(
      write,
      moves.map(([from, to]) => [join(write.tmp, relative(step, from).replace(/\//g, '_')), to]),
      nodes,
    );
    rmSync(join(outDir, MERGED_FILE), { force: true });
  }
  // The analyses beside the profile, joined in block order (the plain resolve's order).
  const openmp: OpenmpFile = { processes: [], withoutTool: [] };
  const modules = new ModuleCollector();
  for (const p of withFiles) {
    const dir = join(step, String(p.rank));
    if (existsSync(join(dir, OPENMP_FILE))) {
      const d = JSON.parse(readFileSync(join(dir, OPENMP_FILE), 'utf8')) as OpenmpFile;
      openmp.processes.push(...d.processes);
      openmp.withoutTool.push(...d.withoutTool);
    }
    if (existsSync(join(dir, MODULES_FILE))) {
      const d = JSON.parse(readFileSync(join(dir, MODULES_FILE), 'utf8')) as ModulesFile;
      for (const [fn, file, i] of d.functions) modules.note(fn, file, d.modules[i].path, d.modules[i].buildId);
    }
  }
  removeRankOpenmpFiles(outDir);
  removeRankModulesFiles(outDir);
  writeOpenmpFile(outDir, openmp);
  writeModulesFile(outDir, modules.data());
  const records = withFiles.flatMap((p) => p.rankRecords);
  const drops: Record<string, number> = {};
  for (const p of withFiles) for (const [k, n] of Object.entries(p.drops)) drops[k] = (drops[k] ?? 0) + n;
  const earlier = replacedFiles(before, written);
  return {
    ...(earlier ? { earlier } : {}),
    threads: withFiles.reduce((n, p) => n + p.threads, 0),
    pattern: filePattern(written),
    drops,
    samples: withFiles.reduce((n, p) => n + p.samples, 0),
    warnings: [
      ...new Set(withFiles.flatMap((p) => p.warnings)),
      ...mergeProcessNotes(withFiles.flatMap((p) => p.processNotes)),
      ...(records.length > 0 ? rankNotes(summarizeRanks(records)) : []),
    ],
    replaced: withFiles.flatMap((p) => p.replaced),
    nodes: blocks,
    processes: parts.length,
  };
}
