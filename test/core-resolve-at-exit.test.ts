/**
 * A linked program run on its own (no `hyprof run`) still leaves a TAU profile: at exit the runtime
 * runs the package's `hyprof resolve`, or says which command to run when it cannot. The resolve
 * survives a signal sent to the program's whole process group (timeout, batch systems), and a
 * resolve killed by a signal is named as such.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, run, tmpDir } from './helpers/native.js';

const exe = compileC('core_nesting_exit', ['core_nesting.c']);

test('at exit the runtime resolves its raw file into the profile directory and removes it', async (t) => {
  const dir = tmpDir('exit');
  const r = await run(exe, [], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '0' } });
  t.is(r.code, 0, r.stderr);
  t.true(existsSync(join(dir, 'profile.0.0.0')), r.stderr);
  t.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.raw')), [], 'the raw file is removed once resolved');
});

test('HYPROF_KEEP_RAW=1 keeps the raw file beside the profile', async (t) => {
  const dir = tmpDir('exit-keep');
  const r = await run(exe, [], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '0', HYPROF_KEEP_RAW: '1' } });
  t.is(r.code, 0, r.stderr);
  t.true(existsSync(join(dir, 'profile.0.0.0')));
  t.is(readdirSync(dir).filter((f) => f.endsWith('.raw')).length, 1);
});

test('without node the runtime prints the one command to run, and keeps the raw file', async (t) => {
  const dir = tmpDir('exit-nonode');
  const r = await run(exe, [], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '0', HYPROF_NODE: '/nonexistent/node' } });
  t.is(r.code, 0);
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(raws.length, 1);
  const raw = join(dir, raws[0]);
  t.is(r.stderr, `hyprof: measurements written to ${raw}; turn them into a TAU profile with: npx hyprof resolve ${raw} -o ${dir}\n`);
  t.false(existsSync(join(dir, 'profile.0.0.0')));
});

test('HYPROF_RESOLVE=0 leaves only the raw file, silently', async (t) => {
  const dir = tmpDir('exit-noresolve');
  const r = await run(exe, [], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '0', HYPROF_RESOLVE: '0' } });
  t.is(r.code, 0);
  t.is(r.stderr, '');
  const files = readdirSync(dir);
  t.is(files.length, 1);
  t.regex(files[0], /^hyprof\..+\.\d+\.\d+\.raw$/, 'hyprof.<host>.<pid>.<start>.raw');
});

test('malformed HYPROF_KEEP_RAW and HYPROF_DISABLE warn with the value used', async (t) => {
  const dir = tmpDir('exit-badvals');
  const r = await run(exe, [], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '0', HYPROF_KEEP_RAW: 'sometimes', HYPROF_DISABLE: 'perhaps' } });
  t.is(r.code, 0);
  t.regex(r.stderr, /hyprof: HYPROF_DISABLE=perhaps is not a boolean \(1\/0, on\/off, true\/false, yes\/no\); using 0/);
  t.regex(r.stderr, /hyprof: HYPROF_KEEP_RAW=sometimes is not a boolean \(1\/0, on\/off, true\/false, yes\/no\); using 0/);
  t.true(existsSync(join(dir, 'profile.0.0.0')), 'measured (not disabled) and resolved');
  t.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.raw')), [], 'raw removed (not kept)');
});

test('HYPROF_DISABLE=yes is accepted like 1', async (t) => {
  const dir = tmpDir('exit-disable-yes');
  const r = await run(exe, [], { env: { HYPROF_DIR: dir, HYPROF_DISABLE: 'yes' } });
  t.is(r.code, 0);
  t.is(r.stderr, '');
  t.deepEqual(readdirSync(dir), []);
});

for (const name of ['HYPROF_DIR', 'PROFILEDIR']) {
  test(`${name} longer than the path limit is refused by name; the profile goes to the current directory, never to /`, async (t) => {
    const cwd = tmpDir('exit-longdir');
    const long = join(cwd, 'd'.repeat(5000));
    const r = await run(exe, [], { cwd, env: { HYPROF_DIR: undefined, PROFILEDIR: undefined, [name]: long, HYPROF_SAMPLING: '0' } });
    t.is(r.code, 0, r.stderr);
    t.regex(r.stderr, new RegExp(`^hyprof: ${name} is longer than the path limit \\(${long.length} bytes, at most 4095\\): ${cwd}/d+\\.\\.\\.; using the current directory$`, 'm'));
    t.regex(r.stderr, /profile of 1 thread written to \.\/ \(profile\.0\.0\.\*\)/);
    t.true(existsSync(join(cwd, 'profile.0.0.0')));
    t.deepEqual(readdirSync('/').filter((f) => f.endsWith('.raw')), []);
    t.notRegex(r.stderr, /internal error/);
  });
}

test('an output directory whose name starts with "-" is resolved into at exit', async (t) => {
  const cwd = tmpDir('exit-dash');
  const r = await run(exe, [], { cwd, env: { HYPROF_DIR: '-out', HYPROF_SAMPLING: '0' } });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /^hyprof: profile of 1 thread written to \.\/-out\/ \(profile\.0\.0\.\*\)\n$/);
  t.true(existsSync(join(cwd, '-out', 'profile.0.0.0')));
  t.deepEqual(readdirSync(join(cwd, '-out')).filter((f) => f.endsWith('.raw')), []);
});

/**
 * Run exit_on_term in a process group of its own (as `timeout` does), send it SIGTERM once working,
 * then `then(program pid, resolver pid)` once its resolve at exit has started. The resolver is node
 * behind a script (HYPROF_NODE) that says its pid and waits a second first, so that the signal
 * surely lands while the resolve runs, however loaded the machine.
 */
async function stopDuringResolve(dir: string, then: (pid: number, resolver: number) => void) {
  const prog = compileC('exit_on_term', ['exit_on_term.c']);
  const pidFile = join(dir, 'resolver.pid');
  const node = join(dir, 'node-after-a-second');
  writeFileSync(node, `#!/bin/sh\necho $$ > '${pidFile}'\nsleep 1\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
  const child = spawn(prog, [], { env: { ...process.env, HYPROF_DIR: dir, HYPROF_SAMPLING: '0', HYPROF_NODE: node }, detached: true });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const ended = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  const closed = new Promise((ok) => child.stdout.once('close', ok));
  await new Promise<void>((ok) => child.stdout.on('data', (d: Buffer) => ((stdout += d.toString()), /ready/.test(stdout) && ok())));
  process.kill(child.pid!, 'SIGTERM');
  let resolver: number | null = null;
  for (const until = Date.now() + 60_000; resolver === null && Date.now() < until; ) {
    const text = existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : '';
    if (/^\d+\n$/.test(text)) resolver = Number(text);
    else await new Promise((ok) => setTimeout(ok, 20));
  }
  if (resolver !== null) then(child.pid!, resolver);
  const code = await ended;
  await closed;
  return { code, stdout, stderr, resolver };
}

test('a signal to the whole process group while the program resolves at exit does not lose the profile', async (t) => {
  const dir = tmpDir('exit-group');
  // As `timeout` does: the signal goes to the program, then to its whole group, resolver included
  // unless it runs in a group of its own.
  const r = await stopDuringResolve(dir, (pid) => process.kill(-pid, 'SIGTERM'));
  t.truthy(r.resolver, 'the runtime started a resolver');
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /clean end/);
  t.regex(r.stderr, /profile of 1 thread written to/);
  t.notRegex(r.stderr, /failed|stopped by signal/);
  t.true(existsSync(join(dir, 'profile.0.0.0')), r.stderr);
});

test('a resolve at exit killed by a signal is named as such, and the raw file is kept', async (t) => {
  const dir = tmpDir('exit-killed');
  const r = await stopDuringResolve(dir, (_pid, resolver) => process.kill(resolver, 'SIGKILL'));
  t.truthy(r.resolver, 'the runtime started a resolver');
  t.is(r.code, 0, r.stderr);
  const raws = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(raws.length, 1);
  const raw = join(dir, raws[0]);
  t.true(
    r.stderr.includes(`hyprof: turning ${raw} into a TAU profile was stopped by signal 9 (Killed); the measurements are kept there; run: npx hyprof resolve ${raw} -o ${dir}\n`),
    r.stderr,
  );
  t.false(existsSync(join(dir, 'profile.0.0.0')));
});
