/**
 * Fault matrix: a batch limit or Ctrl-C on `hyprof run -- mpirun -np 4 ./app`. The signal goes to the
 * whole process group of hyprof, as `timeout`, a scheduler's limit and a terminal send it: what every
 * rank measured up to the signal is kept (or the lost ranks are named), no rank is left running, and
 * every path a message names exists. Also: mpirun killed outright (its ranks are stopped by hyprof and
 * kept), a signal before the program started, and the real `timeout` command.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runSurvivors } from '../src/run/run-survivors.js';
import { rankList } from '../src/profile/mpi-ranks.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { cliPath, tmpDir } from './helpers/native.js';
import { compileMpiC, mpiMissing, mpirunArgs, rankMain } from './helpers/mpi.js';

const missing = mpiMissing();
let app = '';
test.before(() => {
  if (!missing) app = compileMpiC('mpi_app', 'mpi_app.c');
});

interface Started {
  pid: number;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** `hyprof run -- mpirun ... ./app imbalance U` (or the command given) as the leader of its own process group. */
function start(out: string, command: string[] = [cliPath, 'run', '--dir', out, '--', 'mpirun', ...mpirunArgs(4), app, 'imbalance', '40000']): Started {
  const child = spawn(command[0] === cliPath ? process.execPath : command[0], command[0] === cliPath ? command : command.slice(1), {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((ok) =>
    child.on('close', (code, signal) => ok({ code, signal, stderr })),
  );
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 120_000);
  void done.then(() => clearTimeout(timer));
  return { pid: child.pid!, done };
}

/** The ranks (processes of the run that run the app) once `n` of them are running. */
async function ranksRunning(hyprofPid: number, n: number): Promise<number[]> {
  for (let i = 0; i < 1200; i++) {
    const ranks = runSurvivors(hyprofPid).filter((s) => s.command.endsWith('mpi_app'));
    if (ranks.length >= n) return ranks.map((r) => r.pid);
    await new Promise((ok) => setTimeout(ok, 50));
  }
  throw new Error(`fewer than ${n} ranks started`);
}

/** Running, not ended (a zombie whose parent died waits for a reaper that containers may lack). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return !/^\d+ \(.*\) [ZX]/s.test(stat);
  } catch {
    return false;
  }
}

/** Every absolute path a message names exists (no promise of files that never come). */
function pathsExist(stderr: string): string[] {
  return [...stderr.matchAll(/(\/[^\s;,()]+)/g)].map((m) => m[1].replace(/[.:]$/, '')).filter((p) => !existsSync(p));
}

function nodesOf(out: string): number[] {
  return [...new Set(readTauProfileDir(out).threads[0].map((t) => t.node))].sort();
}

for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  test(`${sig} to hyprof's process group while the 4 ranks work keeps every rank; none is left running`, async (t) => {
    if (missing) return t.fail(missing);
    const out = join(tmpDir(`fault-mpi-${sig}`), 'out');
    const run = start(out);
    const ranks = await ranksRunning(run.pid, 4);
    // Let the ranks get past MPI_Init into their work, then signal the group, as timeout and Ctrl-C do.
    await new Promise((ok) => setTimeout(ok, 1500));
    process.kill(-run.pid, sig);
    const r = await run.done;
    t.not(r.code, 0, r.stderr);
    t.regex(r.stderr, new RegExp(`^hyprof: ${sig} passed on to mpirun; .*profile of \\d+ threads written to `, 'm'));
    t.deepEqual(nodesOf(out), [0, 1, 2, 3], r.stderr);
    t.true(ranks.every((p) => !alive(p)), 'a rank is still running');
    t.deepEqual(pathsExist(r.stderr), []);
  });
}

test('mpirun killed outright: hyprof stops the ranks it left, keeps what they measured, names them', async (t) => {
  if (missing) return t.fail(missing);
  const out = join(tmpDir('fault-mpi-kill'), 'out');
  const run = start(out);
  const ranks = await ranksRunning(run.pid, 4);
  await new Promise((ok) => setTimeout(ok, 1500));
  const mpirun = runSurvivors(run.pid).find((s) => s.command === 'mpirun');
  t.truthy(mpirun);
  process.kill(mpirun!.pid, 'SIGKILL');
  const r = await run.done;
  t.true(ranks.every((p) => !alive(p)), 'a rank is still running');
  // Ranks still running are stopped by hyprof (it says so) and kept; a rank that ended on its own
  // first (MPI saw its launcher go, and aborted it) is lost and named; no message promises files
  // that never come.
  const kept = existsSync(out) ? nodesOf(out) : [];
  if (kept.length > 0) t.regex(r.stderr, /still ran after mpirun ended: stopped with SIGTERM, on which they write their measurements/);
  else t.regex(r.stderr, /^hyprof: program killed by SIGKILL; no rank wrote measurements .*; no profile$/m);
  // the ranks lost are named as one list ("rank 3 of 4", "ranks 0-2 of 4")
  const lost = [0, 1, 2, 3].filter((n) => kept.length > 0 && !kept.includes(n));
  if (lost.length > 0) {
    const which = lost.length === 1 ? `rank ${lost[0]}` : `ranks ${rankList(lost)}`;
    t.true(r.stderr.includes(`${which} of 4 wrote no measurements`), r.stderr);
  }
  t.notRegex(r.stderr, /written to \S+ when (it ends|they end)/);
  t.deepEqual(pathsExist(r.stderr), []);
});

test('the real timeout command around hyprof run -- mpirun: every rank kept, none left running', async (t) => {
  if (missing) return t.fail(missing);
  const out = join(tmpDir('fault-mpi-timeout'), 'out');
  const run = start(out, ['timeout', '12', process.execPath, cliPath, 'run', '--dir', out, '--', 'mpirun', ...mpirunArgs(4), app, 'imbalance', '200000']);
  const r = await run.done;
  t.is(r.code, 124, r.stderr);
  t.regex(r.stderr, /^hyprof: SIGTERM passed on to mpirun; /m);
  // On a node so loaded that MPI_Init took the 12 s, the ranks are named as lost instead.
  if (/profile of/.test(r.stderr)) t.deepEqual(nodesOf(out), [0, 1, 2, 3], r.stderr);
  else t.regex(r.stderr, /no rank wrote measurements/);
  t.deepEqual(
    runSurvivors(run.pid).map((s) => s.command),
    [],
  );
  t.deepEqual(pathsExist(r.stderr), []);
});

test('a signal while hyprof starts ends it with one line and no output directory', async (t) => {
  const out = join(tmpDir('fault-mpi-early'), 'out');
  // hyprof's modules are loading: a module hook holds back program.js (what main.js loads after it set
  // up its signal handling), so the signal surely comes then.
  // The hook leaves a mark when main.js asks for program.js: its signal handling is in place by then.
  const mark = join(tmpDir('fault-mpi-early-mark'), 'asked');
  const hooks =
    'import { writeFileSync } from "node:fs"; export async function load(url, context, next) { if (url.endsWith("/cli/program.js")) { ' +
    `writeFileSync(${JSON.stringify(mark)}, ""); await new Promise((ok) => setTimeout(ok, 60000)); } return next(url, context); }`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, cliPath, 'run', '--dir', out, '--', 'true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<number | null>((ok) => child.on('close', (code) => ok(code)));
  for (let i = 0; i < 1200 && !existsSync(mark); i++) await new Promise((ok) => setTimeout(ok, 50));
  t.true(existsSync(mark), stderr);
  child.kill('SIGTERM');
  const code = await done;
  t.is(code, 143);
  t.is(stderr, 'hyprof: stopped by SIGTERM while starting: nothing was run or written\n');
  t.false(existsSync(out));
});

test('hyprof run killed outright (SIGKILL) leaves no launcher or rank running', async (t) => {
  if (missing) return t.fail(missing);
  const out = join(tmpDir('fault-mpi-hyprof-kill'), 'out');
  const run = start(out);
  const ranks = await ranksRunning(run.pid, 4);
  const mpirun = runSurvivors(run.pid).find((s) => s.command === 'mpirun');
  t.truthy(mpirun);
  // Only hyprof: the launcher runs in a session of its own, so this is all a scheduler's kill of
  // hyprof's group reaches too.
  process.kill(run.pid, 'SIGKILL');
  await run.done;
  const job = [mpirun!.pid, ...ranks];
  for (let i = 0; i < 300 && job.some(alive); i++) await new Promise((ok) => setTimeout(ok, 50));
  t.deepEqual(job.filter(alive), [], 'still running');
});
