/**
 * The trace of a run (HYPROF_TRACE=1) as an OTF2 archive in the profile directory (docs/trace.md):
 * `DIR/traces.otf2`, `DIR/traces.def`, `DIR/traces/`. The runtime leaves one trace file per process
 * beside its raw file (`hyprof.<host>.<pid>.<start>.trace`, docs/raw-format.md); this module says
 * what the OTF2 writer must know that only the resolve knows (the profile's numbering of processes
 * and threads, every event's name as the TAU profile writes it, parameters, source locations) in a
 * plan file, and runs the writer, `hyprof-otf2` (native/otf2/, linked with the OTF2 library, built
 * only where the library is installed).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { UserError } from '../base/errors.js';
import { EventKind, INFO_MPI_RANK, type RawProcess } from '../samples/raw-model.js';
import type { ContextTree } from './assemble-tree.js';
import type { Resolution } from '../symbolize/frames.js';
import { isOpenmpRuntime, unresolved } from './assemble-samples.js';
import { isRuntimeModule } from '../symbolize/own-modules.js';
import { safeName } from './event-names.js';
import { demangleKernels, kernelName } from '../symbolize/kernel-names.js';

/** The archive's name: its anchor file is `<dir>/traces.otf2`. */
export const TRACE_ARCHIVE = 'traces';

/** What the writer needs of one process (plain data: made in resolve workers). */
export interface TracePart {
  /** The trace file. */
  file: string;
  node: number;
  context: number;
  /** The MPI rank, -1 when the process is not one. */
  rank: number;
  host: string;
  threads: Array<[number, string]>;
  /** id, paradigm, role, group, source file, line, name, parameters [name, value]. */
  regions: Array<[number, 'user' | 'mpi' | 'openmp', 'function' | 'code', string, string, number, string, Array<[string, string]>]>;
  /** The sampling source and period (ns, or events), when the process sampled. */
  sampling?: [string, number];
  /** Each program counter of its traced samples (hex, a return address or not) and its frames,
   * innermost first: [in the OpenMP runtime, function, file, line] (none: hyprof's own code). */
  samplePcs?: Array<[string, boolean, Array<[boolean, string, string, number]>]>;
  /** Samples of a thread's profile its trace lacks: [thread, count]. */
  samplesLost?: Array<[number, number]>;
  /** GPU activities' names (the CUDA layer's): [as CUPTI gives it, the profile's event name]. */
  gpuNames?: Array<[string, string]>;
}

/**
 * The program counters of a trace file's samples, `[pc, isReturn]` (`hyprof-otf2 --pcs`), for the
 * resolve's first pass to symbolize with the profile's; [] without the writer.
 */
export function traceSamplePcs(writer: string | null, trace: string): Array<[bigint, boolean]> {
  if (!writer) return [];
  const r = spawnSync(writer, ['--pcs', trace], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new UserError(messages(r.stderr ?? String(r.error))[0] ?? `${writer} failed`);
  return (r.stdout ?? '')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [pc, ret] = l.split('\t');
      return [BigInt(`0x${pc}`), ret === '1'];
    });
}

/** A traced sample's program counter named as the profile names sampled code (assemble-samples.ts):
 * inlined functions are frames of their own, hyprof's own code has none. */
export function samplePcFrames(res: Resolution, keepAddresses: boolean): Array<[boolean, string, string, number]> {
  if (isRuntimeModule(res.module)) return [];
  const omp = isOpenmpRuntime(res.module);
  if (!res.resolved) return [[omp, safeName(unresolved(res, keepAddresses)), '', 0]];
  return res.frames.map((f) => [omp, safeName(f.function), safeName(f.file), f.line]);
}

/** The trace file a raw file's process wrote, when there is one. */
export function traceFileOf(rawFile: string): string | null {
  if (!rawFile.endsWith('.raw')) return null;
  const trace = `${rawFile.slice(0, -'.raw'.length)}.trace`;
  return existsSync(trace) ? trace : null;
}

/** The parameters of a specialisation's name `<timer>  [ <a> = <1> ]  [ <b> = <x> ]  `. */
export function paramsOf(name: string): Array<[string, string]> {
  return [...name.matchAll(/\[ <(.*?)> = <(.*?)> \]/g)].map((m) => [m[1], m[2]]);
}

/** A source location TAU writes into a name: `name [{file} {line,column}]`. */
function sourceOf(name: string): [string, number] {
  const m = /\[\{([^}]*)\} \{(\d+)/.exec(name);
  return m ? [m[1], Number(m[2])] : ['', 0];
}

function paradigmOf(group: string): 'user' | 'mpi' | 'openmp' {
  const parts = group.split('|');
  if (parts.includes('MPI')) return 'mpi';
  if (parts.some((p) => p === 'OpenMP' || p.startsWith('OpenMP'))) return 'openmp';
  return 'user';
}

/** The trace part of one process, named as its profile is (`tree`: the assembly's names). */
export function tracePart(
  proc: RawProcess,
  tree: ContextTree,
  trace: string,
  node: number,
  context: number,
  samples?: { pcs: Array<[bigint, boolean]>; resolve: (pc: bigint, isReturn: boolean) => Resolution; keepAddresses: boolean },
): TracePart {
  const host = proc.info.attributes.find(([k]) => k === 'Hostname')?.[1] ?? 'localhost';
  const regions: TracePart['regions'] = proc.events.map((e) => {
    const name = tree.name(e.id);
    const group = tree.group(e.id);
    const [file, line] = sourceOf(name);
    const role = tree.kind(e.id) === EventKind.PHASE ? 'code' : 'function';
    return [e.id, paradigmOf(group), role, group, file, line, name, e.kind === EventKind.PARAM ? paramsOf(name) : []];
  });
  return {
    file: trace,
    node,
    context,
    rank: (proc.info.flags & INFO_MPI_RANK) !== 0 ? proc.info.node : -1,
    host,
    threads: proc.threads.map((t) => [t.index, t.name]),
    regions,
    ...(proc.sampling?.enabled ? { sampling: [proc.sampling.source, proc.sampling.periodNs] as [string, number] } : {}),
    ...(samples && samples.pcs.length > 0
      ? { samplePcs: samples.pcs.map(([pc, ret]) => [pc.toString(16), ret, samplePcFrames(samples.resolve(pc, ret), samples.keepAddresses)] as [string, boolean, Array<[boolean, string, string, number]>]) }
      : {}),
    samplesLost: proc.threads.flatMap((t) => t.drops.filter(([r, n]) => r === 'trace_samples_lost' && n > 0).map(([, n]) => [t.index, n] as [number, number])),
    ...(proc.cuda ? { gpuNames: gpuNames(proc.cuda.records.map((r) => r.name)) } : {}),
  };
}

/** Each GPU activity's name as CUPTI gave it and as the profile's event names it. */
function gpuNames(raw: string[]): Array<[string, string]> {
  demangleKernels(raw);
  return [...new Set(raw)].map((n) => [n, `[GPU] ${kernelName(n)}`]);
}

/**
 * The part of a trace file whose process wrote no raw file: numbered as a process of its own (node 0,
 * context = its pid, from the file's name `hyprof.<host>.<pid>.<start>.trace`), its events named by
 * the trace file's own definitions (the writer does that for events the plan does not name).
 */
export function orphanTracePart(file: string): TracePart {
  const m = /hyprof\.(.+)\.(\d+)\.(\d+)\.trace$/.exec(file);
  return { file, node: 0, context: m ? Number(m[2]) : 0, rank: -1, host: m ? m[1] : 'localhost', threads: [], regions: [] };
}

function esc(s: string | number): string {
  return String(s).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
}

/** The plan hyprof-otf2 reads (its format: native/otf2/hyprof_otf2.c). */
export function planText(dir: string, metrics: string[], parts: TracePart[]): string {
  const lines = ['hyprof-otf2\t1', `archive\t${esc(dir)}`, ...metrics.slice(1).map((m) => `metric\t${esc(m)}`)];
  for (const p of parts) {
    lines.push(['process', p.file, p.node, p.context, p.rank, p.host].map(esc).join('\t'));
    for (const [index, name] of p.threads) lines.push(['thread', index, name].map(esc).join('\t'));
    for (const [id, paradigm, role, group, file, line, name, params] of p.regions) {
      lines.push(['region', id, paradigm, role, group, file, line, name].map(esc).join('\t'));
      for (const [pn, pv] of params) lines.push(['param', id, /^-?\d{1,18}$/.test(pv) ? 'i' : 's', pn, pv].map(esc).join('\t'));
    }
    // Samples: the source, each program counter's frames, what the trace lacks.
    if (p.sampling) lines.push(['sampling', p.sampling[0], p.sampling[1]].map(esc).join('\t'));
    for (const [pc, ret, frames] of p.samplePcs ?? []) {
      lines.push(['spc', pc, ret ? 1 : 0].map(esc).join('\t'));
      for (const [omp, fn, file, line] of frames) lines.push(['sframe', omp ? 1 : 0, fn, file, line].map(esc).join('\t'));
    }
    for (const [thread, n] of p.samplesLost ?? []) lines.push(['samples_lost', thread, n].join('\t'));
    for (const [raw, name] of p.gpuNames ?? []) lines.push(['gpuname', raw, name].map(esc).join('\t'));
  }
  return `${lines.join('\n')}\n`;
}

export interface TraceResult {
  /** The anchor file written, or null when none was. */
  archive: string | null;
  locations: number;
  events: number;
  warnings: string[];
}

/** The writer's lines on stderr, without its prefix. */
function messages(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.replace(/^hyprof-otf2: /, ''));
}

/**
 * Check every trace file before anything is written (a damaged one stops the resolve, as a damaged
 * raw file does). `writer` null: the OTF2 writer was not built; nothing to check with.
 */
export function checkTraceFiles(writer: string | null, files: string[]): void {
  if (!writer || files.length === 0) return;
  const r = spawnSync(writer, ['--check', ...files], { encoding: 'utf8' });
  if (r.status !== 0) throw new UserError(messages(r.stderr ?? String(r.error))[0] ?? `${writer} failed`);
}

/** Write the archive into `dir` (an archive there before is replaced). */
export function writeTraceArchive(writer: string | null, dir: string, metrics: string[], parts: TracePart[]): TraceResult {
  const none: TraceResult = { archive: null, locations: 0, events: 0, warnings: [] };
  if (parts.length === 0) return none;
  if (!writer) {
    return {
      ...none,
      warnings: [
        `the run recorded a trace (HYPROF_TRACE), but this hyprof was built without the OTF2 library ` +
          `(libopen-trace-format2-dev): no OTF2 archive is written; the trace files stay beside the raw files (${parts.map((p) => p.file).join(', ')})`,
      ],
    };
  }
  for (const old of [`${TRACE_ARCHIVE}.otf2`, `${TRACE_ARCHIVE}.def`, TRACE_ARCHIVE]) rmSync(join(dir, old), { recursive: true, force: true });
  const tmp = mkdtempSync(join(tmpdir(), 'hyprof-otf2-'));
  try {
    const plan = join(tmp, 'plan');
    writeFileSync(plan, planText(resolve(dir), metrics, parts));
    const r = spawnSync(writer, [plan], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    const said = messages(r.stderr ?? '');
    if (r.status !== 0) {
      for (const old of [`${TRACE_ARCHIVE}.otf2`, `${TRACE_ARCHIVE}.def`, TRACE_ARCHIVE]) rmSync(join(dir, old), { recursive: true, force: true });
      throw new UserError(said[0] ?? `${writer} failed (${r.error?.message ?? `exit status ${r.status}`})`, 1);
    }
    let locations = 0;
    let events = 0;
    for (const line of (r.stdout ?? '').split('\n')) {
      const f = line.split('\t');
      if (f[0] !== 'location') continue;
      locations++;
      events += Number(f[3]);
    }
    return { archive: join(dir, `${TRACE_ARCHIVE}.otf2`), locations, events, warnings: said };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
