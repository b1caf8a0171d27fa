/**
 * Fault matrix: inputs named by arguments or variables that are not raw files. Each is refused with
 * one line naming it (no hang on a FIFO, no endless read of /dev/zero, no stack trace), and a bad
 * entry of HYPROF_EXEC_RAW (the raw files an exec hands over) is named and left out while the
 * program's own profile is still written.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, compileC, hyprof, run, tmpDir } from './helpers/native.js';
import { calls } from './helpers/profile-queries.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';

/** A program that would hang or read forever is killed by then; every case here ends in well under a second or two. */
const LIMIT = { timeoutMs: 30_000 };

function fifo(dir: string, name: string): string {
  const p = join(dir, name);
  execFileSync('mkfifo', [p]);
  return p;
}

test('hyprof resolve refuses a device, a FIFO, a directory without raw files, with one line each', async (t) => {
  const dir = tmpDir('fault-inputs');
  const pipe = fifo(dir, 'pipe.raw');
  const empty = join(dir, 'empty');
  mkdirSync(empty);
  const cases: Array<[string, string]> = [
    ['/dev/zero', '/dev/zero: a character device, not a raw measurement file'],
    ['/dev/null', '/dev/null: a character device, not a raw measurement file'],
    [pipe, `${pipe}: a FIFO (named pipe), not a raw measurement file`],
    [empty, `${empty}: no raw measurement files (*.raw) in this directory`],
  ];
  for (const [input, line] of cases) {
    const out = join(dir, 'out');
    const r = await hyprof(['resolve', input, '-o', out], LIMIT);
    t.is(r.signal, null, input);
    t.is(r.code, 2, input);
    t.is(r.stderr, `hyprof: ${line}\n`, input);
    t.false(existsSync(out), input);
  }
});

test('a FIFO named *.raw inside a directory given to resolve is refused by name, not read', async (t) => {
  const dir = tmpDir('fault-inputs-dir');
  const pipe = fifo(dir, 'hyprof.x.1.1.raw');
  const r = await hyprof(['resolve', dir, '-o', join(dir, 'out')], LIMIT);
  t.is(r.signal, null);
  t.is(r.code, 2);
  t.is(r.stderr, `hyprof: ${pipe}: a FIFO (named pipe), not a raw measurement file\n`);
});

test('a file the user may not read (/etc/shadow as another user) and a file that is no raw file are refused with one line', async (t) => {
  const dir = tmpDir('fault-inputs-perm');
  const text = join(dir, 'notes.raw');
  writeFileSync(text, 'not measurements\n');
  const r = await hyprof(['resolve', text, '-o', join(dir, 'out')], LIMIT);
  t.is(r.code, 2);
  t.is(r.stderr, `hyprof: ${text}: offset 0: header: expected the magic "HYPROFRW" (not a hyprof raw file)\n`);
  // As an unprivileged user (root reads every file): /etc/shadow and a file of mode 000.
  const locked = join(dir, 'locked.raw');
  writeFileSync(locked, 'x');
  chmodSync(locked, 0o000);
  chmodSync(dir, 0o755);
  for (const input of ['/etc/shadow', locked]) {
    const asNobody = process.getuid?.() === 0;
    const r2 = asNobody
      ? await run('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, cliPath, 'resolve', input, '-o', '/tmp/never-written'], LIMIT)
      : await hyprof(['resolve', input, '-o', '/tmp/never-written'], LIMIT);
    t.is(r2.code, 2, r2.stderr);
    t.is(r2.stderr, `hyprof: ${input}: cannot read the raw file: permission denied (EACCES)\n`);
  }
});

test('HYPROF_EXEC_RAW entries that are no raw files are each named and left out; the program\'s own profile is written', async (t) => {
  const program = compileC('run_exec', ['run_exec.c']);
  const dir = tmpDir('fault-exec-raw');
  const pipe = fifo(dir, 'hyprof.p.1.1.raw');
  const sub = join(dir, 'sub');
  mkdirSync(sub);
  const text = join(dir, 'hyprof.t.1.1.raw');
  writeFileSync(text, 'plain text\n');
  const entries = ['/dev/zero', pipe, sub, text, '/etc/passwd'];
  const r = await run(program, ['second', '2'], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '0', HYPROF_EXEC_RAW: entries.join('\n') }, ...LIMIT });
  t.is(r.signal, null, r.stderr);
  t.is(r.code, 0, r.stderr);
  const said = (path: string, why: string) =>
    t.true(
      r.stderr.includes(`hyprof: HYPROF_EXEC_RAW names ${path}, the raw file of the image this program replaced by exec, but ${why}: left out of this profile\n`),
      `${path}: ${r.stderr}`,
    );
  said('/dev/zero', 'it is a device or socket, not a raw file');
  said(pipe, 'it is a FIFO, not a raw file');
  said(sub, 'it is a directory, not a raw file');
  said(text, 'it is not a hyprof raw file');
  said('/etc/passwd', 'it is not a hyprof raw file');
  const threads = readTauProfileDir(dir).threads[0];
  t.is(threads.length, 1);
  t.is(calls(threads[0], 'second image'), 2);
});
