/**
 * Fault matrix: outputs hyprof must not write to, and commands it prints that must work. An output
 * directory under /proc, /sys or /dev (links followed) is refused with one line before anything runs
 * (Node's recursive mkdir spins forever on procfs); directories are made one level at a time; the
 * command printed for processes that outlive the program resolves their files when run.
 */
import test from 'ava';
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs, systemTreeOf } from '../src/base/make-dirs.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { spawn } from 'node:child_process';
import { cliPath, compileC, hyprof, run, tmpDir } from './helpers/native.js';
import { generateRanks } from './helpers/gen-ranks.js';
import { calls } from './helpers/profile-queries.js';

/** Every case ends in a second or two; a spinning mkdir would be killed by then and fail. */
const LIMIT = { timeoutMs: 30_000 };

let program = '';
test.before(() => {
  program = compileC('run_exec', ['run_exec.c']);
});

/** A raw file of a real run (the program's own resolve at exit turned off). */
async function rawFile(): Promise<string> {
  const dir = tmpDir('fault-outputs-raw');
  const r = await run(program, ['second', '2'], { env: { HYPROF_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0' } });
  if (r.code !== 0) throw new Error(r.stderr);
  return join(dir, readdirSync(dir).find((f) => f.endsWith('.raw'))!);
}

const refusal = (dir: string, tree: string): string =>
  `hyprof: cannot write the profile to ${dir}: it lies under ${tree}, the kernel's ${tree === '/dev' ? 'device' : 'system'} tree, where no files are written; choose another directory\n`;

test('hyprof run --dir under /proc, /sys or /dev is refused with one line, before the program runs', async (t) => {
  const link = join(tmpDir('fault-outputs-link'), 'out');
  symlinkSync('/proc/self', link);
  const cases: Array<[string, string]> = [
    ['/proc/x/y', '/proc'],
    ['/proc/self/x', '/proc'],
    ['/sys/x', '/sys'],
    ['/dev/x/y', '/dev'],
    [join(link, 'x'), '/proc'],
  ];
  for (const [dir, tree] of cases) {
    const r = await hyprof(['run', '--dir', dir, '--', 'sh', '-c', 'echo ran'], LIMIT);
    t.is(r.signal, null, dir);
    t.is(r.code, 2, dir);
    t.is(r.stdout, '', `${dir}: the program ran`);
    t.is(r.stderr, refusal(dir, tree), dir);
  }
});

test('hyprof resolve -o under /proc is refused with one line; /dev/shm is an ordinary place', async (t) => {
  const raw = await rawFile();
  const r = await hyprof(['resolve', raw, '-o', '/proc/x/y'], LIMIT);
  t.is(r.signal, null);
  t.is(r.code, 2);
  t.is(r.stderr, refusal('/proc/x/y', '/proc'));
  if (existsSync('/dev/shm')) {
    const shm = join('/dev/shm', `hyprof-test-${process.pid}`, 'out');
    try {
      const ok = await hyprof(['resolve', raw, '-o', shm], LIMIT);
      t.is(ok.code, 0, ok.stderr);
      t.is(calls(readTauProfileDir(shm).threads[0][0], 'second image'), 2);
    } finally {
      rmSync(join(shm, '..'), { recursive: true, force: true });
    }
  }
});

test('directories are made one level at a time: a path under /proc fails at once, a deep new path is made', (t) => {
  t.is(systemTreeOf('/proc/self/x'), '/proc');
  t.is(systemTreeOf('/dev/shm/x'), undefined);
  t.is(systemTreeOf(tmpDir('fault-outputs-plain')), undefined);
  const e = t.throws(() => makeDirs('/proc/self/x/y'));
  t.is((e as NodeJS.ErrnoException).code, 'ENOENT');
  const deep = join(tmpDir('fault-outputs-deep'), 'a', 'b', 'c');
  makeDirs(deep);
  t.true(existsSync(deep));
  makeDirs(deep); // exists: nothing to do
  mkdirSync(join(deep, 'd'));
  t.true(existsSync(join(deep, 'd')));
});

test('the command printed for processes still running after the program resolves their files', async (t) => {
  const dir = tmpDir('fault-outputs-survivors');
  const out = join(dir, 'out');
  // The shell ends at once (dash ends with _exit: no file of its own); its background job sleeps,
  // then replaces itself by the measured program. The run's pipes stay open until the job ends.
  const r = await hyprof(['run', '--dir', out, '--', 'sh', '-c', `( sleep 1; exec ${program} second 2 ) &`], { timeoutMs: 60_000 });
  t.is(r.code, 0, r.stderr);
  const m = /still running \(.*\); their measurements are not in this profile: they are written to (\S+) when they end, then: hyprof resolve (\S+) -o (\S+)$/m.exec(r.stderr);
  t.truthy(m, r.stderr);
  const [, rawDir, input, shownOut] = m!;
  t.is(input, rawDir);
  t.is(shownOut, out);
  t.true(existsSync(rawDir), `${rawDir} does not exist`);
  const res = await hyprof(['resolve', input, '-o', shownOut], LIMIT);
  t.is(res.code, 0, res.stderr);
  const threads = readTauProfileDir(out).threads[0];
  t.true(
    threads.some((th) => calls(th, 'second image') === 2),
    threads.map((th) => `${th.context}: ${th.events.map((e) => e.name).join(', ')}`).join('\n'),
  );
  rmSync(rawDir, { recursive: true, force: true });
});

for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  // Serial: the test watches for the write's short-lived temporary directory every 5 ms, which it
  // missed when the other signal's test generated its ranks (synchronously) at the same time.
  test.serial(`hyprof resolve interrupted by ${sig} while writing removes its partial profile and says so`, async (t) => {
    const raw = tmpDir(`fault-outputs-interrupt-${sig}`);
    generateRanks(raw, { ranks: 48, threads: 4 });
    const out = join(tmpDir(`fault-outputs-interrupt-out-${sig}`), 'out');
    const child = spawn(process.execPath, [cliPath, 'resolve', raw, '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) => child.on('close', (code, signal) => ok({ code, signal })));
    // Interrupted once the write has begun: its temporary directory is there.
    const writing = (): string | undefined => (existsSync(out) ? readdirSync(out).find((f) => f.startsWith('.hyprof-writing-')) : undefined);
    for (let i = 0; i < 6000 && !writing(); i++) await new Promise((ok) => setTimeout(ok, 5));
    const tmp = writing();
    t.truthy(tmp, `the write never began: ${stderr}`);
    child.kill(sig);
    const r = await done;
    t.is(r.code, sig === 'SIGTERM' ? 143 : 130, stderr);
    t.regex(stderr, new RegExp(`^hyprof: interrupted by ${sig}; the partial profile \\(${join(out, tmp!).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) was removed; no profile written to ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    t.false(existsSync(join(out, tmp!)));
    // The directory it created is gone with it (it held nothing else).
    t.false(existsSync(out), existsSync(out) ? readdirSync(out).join(' ') : '');
  });
}

test('a second run into the same directory says that it replaced the first', async (t) => {
  const raw = await rawFile();
  const out = join(tmpDir('fault-outputs-twice'), 'out');
  const first = await hyprof(['resolve', raw, '-o', out], LIMIT);
  t.is(first.code, 0, first.stderr);
  t.notRegex(first.stderr, /replaces/);
  const second = await hyprof(['resolve', raw, '-o', out], LIMIT);
  t.is(second.code, 0, second.stderr);
  t.regex(
    second.stderr,
    /^hyprof: this profile replaces the one that was there \(1 file, written \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\); give each run its own directory \(--dir, -o\) to keep both$/m,
  );
});
