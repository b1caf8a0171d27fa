/**
 * What `hyprof run -- program args...` does: run an unmodified program with the runtime preloaded,
 * forward signals to it, then resolve its raw measurements into a TAU profile. The program's status
 * is hyprof's status, so job scripts behave as without hyprof. The command (cli/cmd-run.ts) parses
 * its options and calls runMeasured.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { findLibomp, loadedLibraries, openmpSubstitution, planOpenmpRuntime } from '../analysis/openmp-runtime.js';
import { endEarlySignals } from '../base/early-signals.js';
import { makeDirs } from '../base/make-dirs.js';
import { UserError } from '../base/errors.js';
import { isMpiLauncher, launcherEnv, launcherRank, RANK_RAW_DIR } from './mpi-launchers.js';
import { mpiRuntime, requireRuntime } from '../base/package-root.js';
import { applyVars, measuredVars } from './measured-env.js';
import { cudaDriverNote } from './run-cuda.js';
import { defaultOutputDir, orphanTracesUnder } from './raw-inputs.js';
import { abandonResolve, preloadResolve, refuseSystemTree, resolveStep } from './resolve-step.js';
import { nodeJitPlan, optionWord, threadPreload, withNodeJitFlags, withV8Log, type NodeJitPlan } from './run-node-jit.js';

export { threadPreload };
import { removePerfMaps } from './run-perf-maps.js';
import { describeOutput, resolveNotes, signalNumber } from './run-messages.js';
import { settledSurvivors, stopAbandonedRanks, survivorsNote } from './run-survivors.js';

export interface RunCliOptions {
  dir?: string;
  sampling: boolean;
  period?: number;
  keepRaw?: boolean;
  format?: 'profile' | 'merged';
}

/** How long processes the program started may take to end after it did, before they are reported. */
const SURVIVOR_GRACE_MS = 500;

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

/**
 * The environment of the measured program. `libs`: the runtime, then the MPI layer when it was built
 * (it is inert in processes without MPI, mpirun among them: docs/mpi.md).
 */
export function childEnv(
  base: NodeJS.ProcessEnv,
  libs: string | string[],
  rawDir: string,
  opts: RunCliOptions,
  plan?: NodeJitPlan,
): NodeJS.ProcessEnv {
  // The variables every measured process gets (measured-env.ts, shared with bin/hyprof-exec).
  const env = applyVars(base, measuredVars(Array.isArray(libs) ? libs : [libs], rawDir, opts));
  // Node programs (and node processes they start): V8 names its JIT code from the start, through the
  // V8 part's code event log or else its perf map, which resolve reads for JavaScript frames in
  // samples (run-node-jit.ts, docs/node.md).
  let nodeOptions = base.NODE_OPTIONS;
  if (env.HYPROF_SAMPLING !== '0') nodeOptions = withNodeJitFlags(nodeOptions, plan ?? nodeJitPlan(base));
  // Each thread that runs JavaScript (the main thread, every worker) says so through the addon, so
  // that only those threads are measured (docs/node.md, "Threads"); with or without sampling.
  const preload = threadPreload();
  if (preload) nodeOptions = withNodeJitFlags(nodeOptions, { flags: ['--require', optionWord(preload)], note: null });
  if (nodeOptions !== undefined) env.NODE_OPTIONS = nodeOptions;
  // The runtime marks the process whose parent is this one as the root of the run.
  env.HYPROF_RUN_PARENT = String(process.pid);
  return env;
}

/**
 * `hyprof run -- mpirun ...`: the ranks' programs are not known here (they are among mpirun's
 * arguments, or a script), so every rank gets the OpenMP substitution, which changes only programs
 * that load libgomp (openmp-runtime.ts); the resolve names the ranks where it took place.
 */
function launcherOpenmpEnv(env: NodeJS.ProcessEnv, rawDir: string): NodeJS.ProcessEnv {
  const level = (env.HYPROF_OPENMP ?? env.TAU_OMPT_SUPPORT_LEVEL ?? '').toLowerCase();
  const libomp = findLibomp();
  if (level === 'off' || !libomp) return {};
  const vars = openmpSubstitution(join(rawDir, 'openmp-runtime'), libomp);
  const applied = applyVars(env, vars);
  return Object.fromEntries(vars.map((v) => [v.name, applied[v.name]]));
}

/** The file `program` names, as the shell would find it on PATH; null when there is none. */
export function findProgram(program: string, path = process.env.PATH ?? ''): string | null {
  const runnable = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (program.includes('/')) return runnable(program) ? program : null;
  for (const dir of path.split(delimiter)) {
    const candidate = join(dir || '.', program);
    if (runnable(candidate)) return candidate;
  }
  return null;
}

/**
 * Why a program that ended by itself wrote no raw file. The runtime leaves `started.<pid>` in the raw
 * directory when it was loaded into the program (native/core/init.c).
 */
function noMeasurementsWhy(rawDir: string, file: string | null): string {
  let started = false;
  try {
    started = readdirSync(rawDir).some((f) => f.startsWith('started.'));
  } catch {
    // no directory: nothing was started in it
  }
  if (started) {
    return (
      'the program ended without running its exit handlers (it called _exit), so ' +
      'its measurements were never written (call exit, or hyprof_flush before _exit)'
    );
  }
  if (file && loadedLibraries(file).some((l) => /(^|\/)libasan\.so/.test(l))) {
    return (
      'the program is built with AddressSanitizer, which refuses to start when another library is preloaded ' +
      'before its own (its message above: "ASan runtime does not come first"); link it with -lhyprof instead ' +
      'and run it without hyprof run (docs/cli.md)'
    );
  }
  if (file && setId(file)) {
    // One account with the runtime's own line (native/core/init.c, secure_execution): a linked
    // program loads the runtime, which then measures nothing; a preload is ignored altogether.
    return (
      'the program is setuid or setgid: it runs in secure-execution mode, where the C library ignores LD_PRELOAD and a ' +
      'program linked with -lhyprof measures nothing (its own line above says so)'
    );
  }
  return 'the program wrote no measurements (the runtime was not loaded: statically linked programs ignore LD_PRELOAD)';
}

/** The file has the set-user-id or set-group-id bit. */
function setId(file: string): boolean {
  try {
    return (statSync(file).mode & 0o6000) !== 0;
  } catch {
    return false;
  }
}

function rawFilesIn(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.raw'))
      .sort()
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
}

interface ChildEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The first signal hyprof received and passed on to the program, if any. */
  forwarded?: NodeJS.Signals;
}

/**
 * Start the program and wait for it, forwarding signals; rejects with a UserError when it cannot start.
 * `ownSession`: an MPI launcher runs in a session (and process group) of its own, so that a signal
 * sent to hyprof's whole group (`timeout`, a batch system's time limit, Ctrl-C) reaches it once,
 * through hyprof, and not twice: Open MPI's mpirun takes a second SIGTERM or SIGINT as "abort at
 * once" and leaves its ranks unwritten or running. Without a controlling terminal it still reads and
 * writes the terminal through the descriptors it inherits. It ends when hyprof dies unnoticed
 * (SIGKILL): the runtime asks for SIGTERM then (native/core/init.c), on which launchers stop the job.
 */
function runChild(program: string, args: string[], env: NodeJS.ProcessEnv, ownSession = false): Promise<ChildEnd> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(program, args, { stdio: 'inherit', env, detached: ownSession });
    const handlers = new Map<NodeJS.Signals, () => void>();
    // Every signal is passed on, Ctrl-C too: the terminal also sends that to the program (same process
    // group), but hyprof cannot tell it from `kill -INT <hyprof>`, which must reach the program; a copy
    // arriving while the first is still pending or being handled merges with it.
    let forwarded: NodeJS.Signals | undefined;
    const forward = (signal: NodeJS.Signals) => () => {
      forwarded ??= signal;
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    for (const s of FORWARDED) {
      const h = forward(s);
      handlers.set(s, h);
      process.on(s, h);
    }
    const cleanup = () => {
      for (const [s, h] of handlers) process.off(s, h);
    };
    child.once('error', (e: NodeJS.ErrnoException) => {
      cleanup();
      const why =
        e.code === 'ENOENT'
          ? { text: `no such file or command${isMpiLauncher(program) ? ' (is MPI installed, and its bin directory on the PATH?)' : ''}`, status: 127 }
          : e.code === 'EACCES'
            ? { text: 'permission denied (is it executable?)', status: 126 }
            : { text: e.message, status: 126 };
      reject(new UserError(`cannot run '${program}': ${why.text}`, why.status));
    });
    child.once('exit', (code, signal) => {
      cleanup();
      resolvePromise({ code, signal, ...(forwarded ? { forwarded } : {}) });
    });
  });
}

export async function runMeasured(program: string, args: string[], opts: RunCliOptions): Promise<number> {
  const lib = requireRuntime();
  const mpiLib = mpiRuntime();
  // `hyprof run -- mpirun ...`: every rank's measurements come back here, and ranks without any are lost.
  const launcher = isMpiLauncher(program);
  const outDir = opts.dir ?? defaultOutputDir();
  // Before the program runs: an output the profile can never be written to (/proc ...) is said now.
  refuseSystemTree(outDir);
  // A rank of an MPI job (`mpirun -np 4 hyprof run -- ./app`) keeps its raw files in the output
  // directory, not in /tmp: the launcher may kill it before it has resolved them (docs/mpi.md).
  const jobRank = launcherRank();
  const rawDir = (jobRank !== null && rankRawDir(outDir, jobRank)) || mkdtempSync(join(tmpdir(), 'hyprof-run-'));
  // A signal before the program has started (a batch limit while hyprof prepares) ends hyprof with a
  // line saying so, and nothing left behind; from the start on, signals are passed to the program.
  const early = (['SIGINT', 'SIGTERM', 'SIGHUP'] as NodeJS.Signals[]).map(
    (s) =>
      [
        s,
        () => {
          removeRawDir(rawDir);
          process.stderr.write(`hyprof: ${s} before the program started: it was not run; no profile\n`);
          process.exit(128 + signalNumber(s));
        },
      ] as const,
  );
  for (const [s, h] of early) process.on(s, h);
  endEarlySignals();
  const stopEarly = (): void => {
    for (const [s, h] of early) process.off(s, h);
  };
  let end: ChildEnd;
  // Notes already printed before the run, not repeated by the resolve step.
  const said: string[] = [];
  let file: string | null = null;
  try {
    const jit = nodeJitPlan(process.env);
    if (jit.note && opts.sampling && /^(1|on|true|yes|enable|enabled)$/i.test(process.env.HYPROF_VERBOSE ?? process.env.TAU_VERBOSE ?? '')) {
      process.stderr.write(`hyprof: ${jit.note}\n`);
    }
    const env = childEnv(process.env, mpiLib ? [lib, mpiLib] : lib, rawDir, opts, jit);
    // A gcc-built OpenMP program runs on LLVM's libomp when installed: libgomp has no tools interface.
    file = findProgram(program);
    if (launcher) Object.assign(env, launcherEnv(process.env), launcherOpenmpEnv(env, rawDir));
    if (launcher && !mpiLib) {
      const note = 'hyprof: the MPI layer is not built (no MPI compiler was found when hyprof was built): ranks are measured without MPI events';
      process.stderr.write(`${note}\n`);
      said.push(note.replace(/^hyprof: /, ''));
    }
    const cudaNote = file && !launcher ? cudaDriverNote(file, process.env) : null;
    if (cudaNote) {
      process.stderr.write(`${cudaNote}\n`);
      said.push(cudaNote.replace(/^hyprof: /, ''));
    }
    if (file && !launcher) {
      // The user's environment: the runtime must not be preloaded into the ldd this runs.
      const plan = planOpenmpRuntime(file, rawDir, process.env);
      Object.assign(env, plan.env);
      if (plan.note) {
        process.stderr.write(`${plan.note}\n`);
        said.push(plan.note.replace(/^hyprof: /, ''));
      }
    }
    // V8's code log, for the files of functions inlined into optimised code (run-node-jit.ts)
    const nodeArgs = withV8Log(program, args, rawDir, jit, env);
    // The resolve's modules load before the program starts (about 50 ms of CPU), not beside it, where
    // they took a CPU from a program with a thread per CPU; a signal meanwhile still ends hyprof with
    // its line. Loaded before, not after: a program stopped by a signal has its profile sooner.
    await preloadResolve();
    stopEarly();
    end = await runChild(program, nodeArgs, env, launcher);
  } catch (e) {
    stopEarly();
    removeRawDir(rawDir);
    throw e;
  }
  const status = end.code ?? 128 + signalNumber(end.signal ?? 'SIGKILL');
  const ended = end.signal
    ? `program killed by ${end.signal}`
    : end.code !== 0
      ? `program exited with status ${end.code}`
      : '';
  // A time limit or Ctrl-C said as such: the launcher's own status (often 1) does not tell it.
  const how = end.forwarded && launcher ? `${end.forwarded} passed on to ${basename(program)}; ${ended || 'it ended'}` : ended;
  // Processes the program started and left running (daemons) write their files after the resolve:
  // the raw directory is kept for them, and they are named.
  // A launcher waits for its ranks before it exits: any still running have lost it (it was killed),
  // and MPI soon aborts them unwritten, so they are stopped at once (below), not after a grace.
  let survivors = await settledSurvivors(launcher ? 0 : SURVIVOR_GRACE_MS);
  // Ranks the launcher left running: stopped, so that none is orphaned and what they measured joins the profile.
  if (launcher && survivors.length > 0) {
    const stopped = await stopAbandonedRanks(survivors, basename(program));
    for (const note of stopped.notes) process.stderr.write(`${note}\n`);
    survivors = await settledSurvivors(0);
  }
  const raws = rawFilesIn(rawDir);
  if (raws.length === 0) {
    if (survivors.length > 0) {
      process.stderr.write(`hyprof: ${how ? `${how}; ` : ''}no measurements written yet; no profile\n${survivorsNote(survivors, rawDir, outDir)}\n`);
      return status;
    }
    const msg = launcher
      ? `${how ? `${how}; ` : ''}no rank wrote measurements (the ranks crashed or were killed before they could write, or the launcher did not pass LD_PRELOAD on to them); no profile`
      : end.signal
        ? `${how}: it could not write its measurements; no profile`
        : `${how ? `${how}; ` : ''}${noMeasurementsWhy(rawDir, file)}; no profile`;
    // A traced process killed before it wrote its measurements left its trace: converted still.
    const traces = orphanTracesUnder(rawDir);
    if (traces.length > 0) {
      try {
        const summary = await resolveStep([], outDir, { orphanTraces: traces });
        process.stderr.write(`hyprof: ${msg}\n`);
        for (const note of resolveNotes(summary)) process.stderr.write(`${note}\n`);
        process.stderr.write(`hyprof: ${describeOutput(summary, outDir)}\n`);
        removeRawDir(rawDir);
        return status;
      } catch (e) {
        if (!(e instanceof UserError)) throw e;
        process.stderr.write(`hyprof: ${e.message}\n`);
      }
    }
    removeRawDir(rawDir);
    process.stderr.write(`hyprof: ${msg}\n`);
    return status;
  }
  // The launcher is ending the job (a rank failed, or the job ran out of time): it kills what is left
  // soon, so do not start resolving; the raw files are in the output directory for later.
  if (jobRank !== null && end.forwarded && ['SIGTERM', 'SIGINT', 'SIGHUP'].includes(end.forwarded)) {
    process.stderr.write(
      `hyprof: rank ${jobRank}: the launcher stopped the job (${end.forwarded}); this rank's raw measurements are kept in ` +
        `${rawDir}; once the job is over: hyprof resolve ${join(outDir, RANK_RAW_DIR)} -o ${outDir}\n`,
    );
    return 128 + signalNumber(end.forwarded);
  }
  // Interrupting the resolve step must not lose the measurements: say where they are.
  const keepOnSignal = (s: NodeJS.Signals) => () => {
    const partial = abandonResolve();
    process.stderr.write(`\nhyprof: interrupted${partial ? `; ${partial}` : ''}; the raw measurements are kept in ${rawDir} (hyprof resolve ${rawDir} -o ${outDir})\n`);
    process.exit(128 + signalNumber(s));
  };
  const interrupts = (['SIGINT', 'SIGTERM', 'SIGHUP'] as NodeJS.Signals[]).map((s) => [s, keepOnSignal(s)] as const);
  for (const [s, h] of interrupts) process.on(s, h);
  try {
    const summary = await resolveStep(raws, outDir, {
      ...(launcher ? { allRanks: true } : {}),
      // the run's own raw directory: every process it measured (MPI ranks are judged by their ranks)
      rawDirectory: true,
      ...(opts.format ? { format: opts.format } : {}),
      orphanTraces: orphanTracesUnder(rawDir),
    });
    for (const note of resolveNotes(summary)) if (!said.some((x) => note.endsWith(x))) process.stderr.write(`${note}\n`);
    process.stderr.write(`hyprof: ${how ? `${how}; ` : ''}${describeOutput(summary, outDir)}\n`);
  } catch (e) {
    const kept = `hyprof: the raw measurements are kept in ${rawDir}; once that is fixed: hyprof resolve ${rawDir} -o <dir>\n`;
    // An internal error is printed by the top level, after this line.
    if (!(e instanceof UserError)) {
      process.stderr.write(kept);
      throw e;
    }
    process.stderr.write(`hyprof: ${e.message}\n${kept}`);
    return status !== 0 ? status : e.exitCode;
  } finally {
    for (const [s, h] of interrupts) process.off(s, h);
  }
  if (survivors.length > 0) process.stderr.write(`${survivorsNote(survivors, rawDir, outDir)}\n`);
  else if (opts.keepRaw) process.stderr.write(`hyprof: raw measurements kept in ${rawDir}\n`);
  else {
    // resolved: JIT code names are in the profile now (with --keep-raw they stay for a later resolve)
    removePerfMaps(raws);
    removeRawDir(rawDir);
  }
  return status;
}

/** `<output>/.hyprof-raw/rank<N>-XXXX`, or null when it cannot be made (then /tmp is used). */
function rankRawDir(outDir: string, rank: number): string | null {
  try {
    const parent = join(outDir, RANK_RAW_DIR);
    makeDirs(parent);
    return mkdtempSync(join(parent, `rank${rank}-`));
  } catch {
    return null;
  }
}

/** Remove a raw directory, and the ranks' shared parent once no rank has anything left in it. */
function removeRawDir(rawDir: string): void {
  rmSync(rawDir, { recursive: true, force: true });
  const parent = dirname(rawDir);
  if (basename(parent) !== RANK_RAW_DIR) return;
  try {
    rmdirSync(parent);
  } catch {
    // other ranks' raw files are still there
  }
}
