/**
 * The second pass of a resolve, one raw file at a time (in the main thread, or in a worker of
 * resolve-workers.ts): read the process, name its OpenMP constructs and instrumented functions, assemble its threads, add its
 * MPI call sites, and write each thread's file into the profile's temporary directory. Nothing of the
 * process is kept afterwards but what the summary line and the OpenMP file need.
 */
import { gpuThreadCount } from './assemble-gpu.js';
import { mpiCallSites, MPI_SITES_KEY } from '../analysis/mpi-sites.js';
import { openmpNotes, prepareOpenmp, type OpenmpFile } from '../analysis/openmp.js';
import { readRawFile } from '../samples/raw-reader.js';
import type { RawProcess } from '../samples/raw-model.js';
import type { Symbolizer } from '../symbolize/symbolizer.js';
import { assembleProcess } from './assemble.js';
import { markThrottled, nameFunctions } from './function-names.js';
import { ModuleCollector, type ModulesFile } from '../profile/modules-file.js';
import { relativeMove, writeThreadFile, type ProfileWrite } from '../profile/tau-writer.js';
import { stacksFileName, writeStacksFile } from '../profile/stacks-file.js';
import { join } from 'node:path';
import { ContextTree } from './assemble-tree.js';
import { traceFileOf, tracePart, type TracePart } from './trace-otf2.js';
import { foldFileName, writeFoldFile } from '../profile/fold-file.js';
import { buildFoldFile } from './fold-build.js';

/** What every file of one resolve is assembled with (plain data: it is sent to workers). */
export interface AssembleJob {
  write: ProfileWrite;
  callpath?: boolean;
  callpathDepth?: number;
  keepAddresses?: boolean;
  underRun: boolean;
  /** The contexts of images replaced by exec, by file (exec-images.ts); other files are numbered as usual. */
  contexts?: Map<string, number>;
  /** The program counters of each file's traced samples, `<hex>,<1 for a return address>` (resolve.ts, pass 1). */
  tracePcs?: Map<string, string[]>;
}

/** One file's part of the result. */
export interface FilePart {
  file: string;
  /** The files written, by their paths relative to the write (tau-writer.ts relativeMove). */
  moves: string[];
  nodes: number[];
  threads: number;
  samples: number;
  drops: Record<string, number>;
  warnings: string[];
  openmp: OpenmpFile;
  openmpNotes: string[];
  /** Said on stderr: a stacks file bound reached, with the share of samples it merged. */
  stackNotes: string[];
  /** The object file of every sampled function of this process (modules.json). */
  modules: ModulesFile;
  /** The process's trace (HYPROF_TRACE), named as its profile is; undefined when it recorded none. */
  trace?: TracePart;
}

/** `read`: the process already read from `file` whole (statistics included), used by nothing else. */
export async function assembleFile(file: string, job: AssembleJob, symbolizer: Symbolizer, read?: RawProcess): Promise<FilePart> {
  const proc = read ?? readRawFile(file);
  // OpenMP constructs are renamed after their source location before assembly (analysis/openmp.ts).
  const openmp = await prepareOpenmp([proc], symbolizer);
  // Compiler-instrumented functions are named from their addresses; throttled timers marked as TAU does.
  await nameFunctions(proc, symbolizer);
  markThrottled(proc);
  const modules = new ModuleCollector();
  // MPI call sites go into each thread's metadata, so the profile directory alone carries them.
  const sites = await mpiCallSites(proc, symbolizer);
  const moves: string[] = [];
  const written = (m: [string, string]) => moves.push(relativeMove(job.write, m));
  // Each thread's file is written as soon as it is assembled, and dropped.
  const a = assembleProcess(
    proc,
    {
      callpath: job.callpath,
      callpathDepth: job.callpathDepth,
      keepAddresses: job.keepAddresses,
      resolve: (pc, isReturn) => symbolizer.resolve(proc, pc, isReturn),
      underRun: job.underRun,
      context: job.contexts?.get(file),
      modules,
      dropStatistics: true,
    },
    (m, t) => {
      const list = sites.get(t.thread);
      if (list) t.metadata.push([MPI_SITES_KEY, JSON.stringify(list)]);
      written(writeThreadFile(job.write, m, t));
    },
  );
  // The trace's names are the profile's: taken now, after the renaming above.
  const traceFile = traceFileOf(file);
  const samplePcs = (job.tracePcs?.get(file) ?? []).map((k): [bigint, boolean] => {
    const [pc, ret] = k.split(',');
    return [BigInt(`0x${pc}`), ret === '1'];
  });
  const trace = traceFile
    ? tracePart(proc, new ContextTree(proc), traceFile, a.node, a.context, {
        pcs: samplePcs,
        resolve: (pc, isReturn) => symbolizer.resolve(proc, pc, isReturn),
        keepAddresses: job.keepAddresses === true,
      })
    : undefined;
  // The complete stacks beside the profile files, moved into place with them.
  if (a.stacks) written([writeStacksFile(job.write.tmp, a.stacks), join(job.write.dir, stacksFileName(a.node, a.context))]);
  // HYPROF_FOLD's instances and samples beside them (the TAU profile is as without folding).
  const fold = buildFoldFile(proc, a.node, a.context, (pc, isReturn) => symbolizer.resolve(proc, pc, isReturn));
  if (fold) written([writeFoldFile(job.write.tmp, fold), join(job.write.dir, foldFileName(a.node, a.context))]);
  return {
    file,
    moves,
    nodes: [a.node],
    // The GPU streams are threads of the profile too (assemble-gpu.ts).
    threads: proc.threads.length + gpuThreadCount(proc),
    samples: a.samples,
    drops: a.drops,
    warnings: a.warnings,
    openmp,
    openmpNotes: openmpNotes([proc], openmp),
    stackNotes: a.notes,
    modules: modules.data(),
    ...(trace ? { trace } : {}),
  };
}
