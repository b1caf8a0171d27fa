/**
 * Process life under `hyprof run`, with a real program (test/native/run_life.c, preloaded runtime):
 * a daemon the program leaves running is named and its measurements are not lost; the run's private
 * directory is never re-created by it; a `hyprof run` killed with SIGKILL does not leave the program
 * running, and the program says where its measurements went; a program ending with _exit is told
 * apart from one the runtime was not loaded into, quick_exit writes the measurements (called from
 * normal code or from a signal handler on a small alternate stack, preloaded or linked), and an
 * AddressSanitizer build is recognised.
 */
import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, hyprof, run, tmpDir, type RunResult } from './helpers/native.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';

let program = '';
test.before(() => {
  program = compileC('run_life', ['run_life.c'], { link: false });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid) && Date.now() < until) await new Promise((ok) => setTimeout(ok, 50));
  return !alive(pid);
}

/** The daemon's upper bound: it normally ends at once when the test signals it. */
const DAEMON_MAX_MS = 60_000;

/** Once the run names the daemon it left running, act (as a user would), then tell the daemon to
 * end (SIGUSR1): its end is then after the run's report, however loaded the machine is. */
function stopDaemonWhenNamed(child: ChildProcess, act?: (m: RegExpExecArray) => void): void {
  let seen = '';
  let done = false;
  child.stderr!.on('data', (d: Buffer) => {
    seen += d.toString();
    const m = SURVIVOR.exec(seen);
    if (!m || done) return;
    done = true;
    act?.(m);
    process.kill(Number(m[1]), 'SIGUSR1');
  });
}

const SURVIVOR = /^hyprof: 1 process the program started is still running \(pid (\d+): \S*run_life\); its measurements are not in this profile: they are written to (\S+) when it ends, then: hyprof resolve \S+ -o (\S+)$/m;

test('a daemon the program leaves running is named; the run directory is kept for it, private, and its file resolves', async (t) => {
  const dir = tmpDir('life-daemon');
  const out = join(dir, 'out');
  // The run's own pipes stay open until the daemon ends: the result comes once it has. The daemon
  // works until it is told to stop, once the run has named it.
  const r = await hyprof(['run', '--dir', out, '--', program, 'daemon', String(DAEMON_MAX_MS)], {
    onSpawn: (child) => stopDaemonWhenNamed(child),
  });
  t.is(r.code, 0, r.stderr);
  const m = SURVIVOR.exec(r.stderr);
  t.truthy(m, r.stderr);
  const [, pid, rawDir, shownOut] = m!;
  t.is(shownOut, out);
  t.regex(r.stderr, /profile of 1 thread written to/);
  t.true(await waitGone(Number(pid), 10_000));
  t.is(statSync(rawDir).mode & 0o777, 0o700);
  const raws = readdirSync(rawDir).filter((f) => f.endsWith('.raw'));
  t.true(raws.some((f) => f.includes(`.${pid}.`)), raws.join(' '));
  const again = join(dir, 'all');
  const res = await hyprof(['resolve', rawDir, '-o', again]);
  t.is(res.code, 0, res.stderr);
  const contexts = readTauProfileDir(again).threads[0].map((th) => th.context);
  t.true(contexts.includes(0));
  t.true(contexts.includes(Number(pid)), contexts.join(' '));
  t.true(readWithTau(again).ok, tauReaderComplaints(readWithTau(again)));
  rmSync(rawDir, { recursive: true, force: true });
});

test('a daemon that ends after its run directory was removed does not re-create it', async (t) => {
  const dir = tmpDir('life-removed');
  let rawDir = '';
  const r: RunResult = await hyprof(['run', '--dir', join(dir, 'out'), '--', program, 'daemon', String(DAEMON_MAX_MS)], {
    onSpawn: (child) =>
      stopDaemonWhenNamed(child, (m) => {
        // As a user cleaning up /tmp would, while the daemon still runs.
        rawDir = m[2];
        rmSync(rawDir, { recursive: true, force: true });
      }),
  });
  t.is(r.code, 0, r.stderr);
  t.truthy(rawDir, r.stderr);
  t.false(existsSync(rawDir), `${rawDir} was re-created`);
  t.true(r.stderr.includes(`hyprof: cannot write the measurements to ${rawDir}: no such directory`), r.stderr);
});

for (const mode of ['wait', 'handler']) {
  test(`SIGKILL of hyprof run ends the program (${mode === 'wait' ? 'default SIGTERM' : 'its own SIGTERM handler'}); it says where its measurements are`, async (t) => {
    const dir = tmpDir(`life-kill-${mode}`);
    let pid = 0;
    const r = await hyprof(['run', '--dir', join(dir, 'out'), '--', program, mode], {
      timeoutMs: 60_000,
      onSpawn: (child) => {
        child.stdout!.on('data', (d: Buffer) => {
          const m = /ready (\d+)/.exec(d.toString());
          if (m && !pid) {
            pid = Number(m[1]);
            setTimeout(() => child.kill('SIGKILL'), 300);
          }
        });
      },
    });
    t.is(r.signal, 'SIGKILL');
    t.true(pid > 0, r.stdout);
    t.true(await waitGone(pid, 10_000), `the program (pid ${pid}) outlived its hyprof run`);
    const m = /^hyprof: the hyprof run that started this program has ended; measurements written to (\S+\.raw); turn them into a TAU profile with: npx hyprof resolve /m.exec(r.stderr);
    t.truthy(m, `stderr: ${r.stderr} stdout: ${r.stdout}`);
    const out = join(dir, 'later');
    const res = await hyprof(['resolve', m![1], '-o', out]);
    t.is(res.code, 0, res.stderr);
    t.true(readWithTau(out).ok, tauReaderComplaints(readWithTau(out)));
    rmSync(join(m![1], '..'), { recursive: true, force: true });
  });
}

test('_exit: the run says the program ended without exit handlers, not that the runtime was not loaded', async (t) => {
  const dir = tmpDir('life-exit');
  const r = await hyprof(['run', '--dir', join(dir, 'out'), '--', program, '_exit']);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /ending/);
  t.regex(r.stderr, /^hyprof: the program ended without running its exit handlers \(it called _exit\), so its measurements were never written \(call exit, or hyprof_flush before _exit\); no profile$/m);
  t.notRegex(r.stderr, /not loaded/);
  t.false(existsSync(join(dir, 'out')));
});

for (const mode of ['quick_exit', 'quick_exit_handler']) {
  test(`${mode === 'quick_exit' ? 'quick_exit' : 'quick_exit from a signal handler on a SIGSTKSZ alternate stack'}: the measurements are written (at_quick_exit) and resolved`, async (t) => {
    const dir = tmpDir(`life-${mode}`);
    const out = join(dir, 'out');
    const r = await hyprof(['run', '--dir', out, '--', program, mode]);
    t.is(r.code, 0, r.stderr);
    t.regex(r.stderr, /profile of 1 thread written to/);
    const p = readTauProfileDir(out);
    t.is(p.threads[0].length, 1);
    t.true(readWithTau(out).ok, tauReaderComplaints(readWithTau(out)));
    // The program's own work was sampled before quick_exit.
    const events = p.threads[0][0].events;
    const root = events.find((e) => e.name === '.TAU application');
    t.truthy(root);
    t.true(root!.incl > 0);
    t.true(events.some((e) => e.name.startsWith('[SAMPLE] spin')), events.map((e) => e.name).join(', '));
  });
}

// quick_exit is async-signal-safe, so its handler is too, wherever it is called from: a linked
// program is told the command that resolves its raw file rather than having a resolver started.
for (const mode of ['quick_exit', 'quick_exit_handler']) {
  test(`linked, ${mode === 'quick_exit' ? 'quick_exit' : 'quick_exit from a signal handler on a SIGSTKSZ alternate stack'}: the raw file is written and the resolve command named`, async (t) => {
    const exe = linkedProgram();
    const dir = tmpDir(`life-linked-${mode}`);
    const r = await run(exe, [mode], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '1' } });
    t.is(r.code, 0, r.stderr);
    t.regex(r.stdout, /ending/);
    const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
    t.is(raws.length, 1, readdirSync(dir).join(' '));
    const raw = join(dir, raws[0]);
    t.is(r.stderr, `hyprof: measurements written to ${raw}; turn them into a TAU profile with: npx hyprof resolve ${raw} -o ${dir}\n`);
    const out = join(dir, 'out');
    const res = await hyprof(['resolve', raw, '-o', out]);
    t.is(res.code, 0, res.stderr);
    t.true(readWithTau(out).ok, tauReaderComplaints(readWithTau(out)));
    const events = readTauProfileDir(out).threads[0][0].events;
    t.true(events.some((e) => e.name.startsWith('[SAMPLE] spin')), events.map((e) => e.name).join(', '));
  });
}

let linked = '';
function linkedProgram(): string {
  if (!linked) linked = compileC('run_life_linked', ['run_life.c']);
  return linked;
}

test('an AddressSanitizer build under hyprof run is recognised and the way to measure it is named', async (t) => {
  const exe = compileC('run_life_asan', ['run_life.c'], { link: false, cflags: ['-O1', '-g', '-fsanitize=address'] });
  const dir = tmpDir('life-asan');
  const r = await hyprof(['run', '--dir', join(dir, 'out'), '--', exe, '_exit']);
  t.is(r.code, 1, r.stderr);
  t.regex(r.stderr, /ASan runtime does not come first/);
  t.regex(
    r.stderr,
    /^hyprof: program exited with status 1; the program is built with AddressSanitizer, which refuses to start when another library is preloaded before its own .*; link it with -lhyprof instead and run it without hyprof run \(docs\/cli\.md\); no profile$/m,
  );
  t.notRegex(r.stderr, /not loaded/);
});
