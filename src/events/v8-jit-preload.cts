/**
 * The preload `hyprof run` gives node (`--require` in NODE_OPTIONS, so it runs in the main thread
 * and in every worker thread, before the program): it loads hyprof's V8 part (native/addon/v8, built
 * for this Node ABI from source) and starts logging this thread's JIT code events into the runtime
 * that `hyprof run` preloaded (docs/node.md, "JavaScript frames in samples"). CommonJS, because
 * `--import` preloads do not run in worker threads.
 */
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { isMainThread } from 'node:worker_threads';

// `hyprof run` started node with V8's code log (src/run/run-node-jit.ts, v8LogArgs), into the raw
// directory: its flags are taken out of process.execArgv (a worker's too, which node derives from the
// command line), so that the program, and the node processes it forks with its own arguments, see
// the command line they were given.
const rawDir = process.env.HYPROF_RAW_DIR;
const v8Log = rawDir ? `--logfile=${join(rawDir, 'v8.log')}` : '';
const logged = v8Log !== '' && process.execArgv.includes(v8Log);
if (logged) {
  for (const flag of ['--log-code', '--no-log-source-code', v8Log]) {
    const i = process.execArgv.indexOf(flag);
    if (i >= 0) process.execArgv.splice(i, 1);
  }
  // The main thread's log is open and goes on; a worker's isolate would open a file of its own, and
  // V8 writes to stdout when it cannot (a process at its descriptor limit): workers log nothing.
  if (isMainThread) setFlagsFromString('--no-log');
}

const part = join(__dirname, '..', '..', '..', 'build', 'Release', 'hyprof_v8.node');
const verbose = /^(1|on|true|yes|enable|enabled)$/i.test(process.env.HYPROF_VERBOSE ?? process.env.TAU_VERBOSE ?? '');

try {
  const addon = require(part) as { start(runtime?: string): string; closeLogOnExec(dir: string): number };
  // V8 opens its log without close-on-exec: not passed on to the programs this one starts.
  if (logged && isMainThread && addon.closeLogOnExec(rawDir!) < 1) {
    process.stderr.write(`hyprof: V8's code log in ${rawDir} could not be marked close-on-exec: programs this one starts inherit its descriptor\n`);
  }
  const why = addon.start();
  // Not measured (no runtime, or measurement off) is said only when asked; a failure always.
  const expected = /no hyprof runtime|measurement is off/.test(why);
  if (why && (verbose || !expected) && isMainThread) process.stderr.write(`hyprof: JIT code events not logged: ${why}\n`);
  // Code the collector moves makes an address name several codes over the run, and samples carry no
  // time to tell which: keep code where it was compiled, as --perf-basic-prof does (docs/node.md).
  if (!why) setFlagsFromString('--no-compact-code-space');
} catch (e) {
  // Another node than the one hyprof was built with (another ABI): said once, by the main thread.
  if (isMainThread) {
    // node's reason may come after the first line (another ABI's does): the whole message, as one line
    const reason = String((e as Error).message).trim().replace(/\s*\n\s*/g, ' ');
    process.stderr.write(
      `hyprof: ${part} does not load in this node ${process.version} (${reason}): its JavaScript frames stay UNRESOLVED; ` +
        `HYPROF_V8_JIT=0 names them from V8's perf map instead, or rebuild hyprof with this node (docs/install.md)\n`,
    );
  }
}
