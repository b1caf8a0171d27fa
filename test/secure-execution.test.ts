/**
 * Secure-execution mode (AT_SECURE: setuid, setgid, file capabilities): a setuid-root program linked
 * with -lhyprof, run by another user who names a root-only directory in HYPROF_DIR / HYPROF_RAW_DIR,
 * a file only root may read in HYPROF_SELECT_FILE and a program of theirs in HYPROF_NODE. The
 * runtime measures nothing there (native/core/init.c says why): no file is created, nothing is run,
 * and one line says so. The same program run by root itself writes its profile where HYPROF_DIR says,
 * so the test would see a file written there.
 * Needs root, to make a setuid-root program and switch to another user (setpriv, util-linux).
 */
import test from 'ava';
import { chmodSync, chownSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, compileC, haveTool, run, tmpDir } from './helpers/native.js';

const nobody = 65534;

test('a setuid-root program run by another user: nothing written or run where its variables say, one line', async (t) => {
  if (process.getuid?.() !== 0) return t.fail('needs root: a setuid-root program is made and run as another user');
  if (!haveTool('setpriv')) return t.fail('setpriv (util-linux) is not installed');
  const dir = tmpDir('secure');
  chmodSync(dir, 0o755);
  const exe = compileC('secure_exec', ['secure_exec.c'], { outDir: dir });
  chownSync(exe, 0, 0);
  chmodSync(exe, 0o4755);
  const rootOnly = tmpDir('secure-root-only');
  chmodSync(rootOnly, 0o700);
  const ran = join(rootOnly, 'node-ran');
  const fakeNode = join(dir, 'node');
  writeFileSync(fakeNode, `#!/bin/sh\ntouch ${ran}\n`);
  chmodSync(fakeNode, 0o755);
  const env = {
    HYPROF_DIR: rootOnly,
    HYPROF_RAW_DIR: rootOnly,
    HYPROF_SELECT_FILE: '/etc/shadow',
    HYPROF_NODE: fakeNode,
    HYPROF_SAMPLING: '1',
    PATH: `${dir}:${process.env.PATH}`,
  };
  const r = await run('setpriv', [`--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups', exe], { env, cwd: dir });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, new RegExp(`secure program done: uid ${nobody} euid 0`), 'the setuid bit took effect');
  t.deepEqual(readdirSync(rootOnly), [], 'nothing created in the root-only directory');
  t.false(existsSync(ran), 'HYPROF_NODE was not run');
  t.deepEqual(readdirSync(dir).sort(), ['node', 'secure_exec'], 'nothing written in the current directory either');
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('hyprof:'));
  t.is(lines.length, 1, r.stderr);
  t.regex(
    lines[0] ?? '',
    /^hyprof: secure-execution mode: secure_exec \(pid \d+\) runs with privileges its caller does not have \(setuid, setgid or capabilities\); hyprof measures nothing in it and ignores its HYPROF_\* and TAU variables$/,
  );

  // Run by root itself (no secure-execution mode), the same variables are followed: a raw file is
  // written there.
  const own = tmpDir('secure-own');
  const byRoot = await run(exe, [], { env: { HYPROF_DIR: own, HYPROF_RAW_DIR: own, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '1' } });
  t.is(byRoot.code, 0, byRoot.stderr);
  t.true(readdirSync(own).some((f) => f.endsWith('.raw')), `raw file written by root: ${readdirSync(own).join(' ')}`);
  t.notRegex(byRoot.stderr, /secure-execution/);
});

test('under hyprof run, a setuid program run by another user gets one account of why nothing was measured', async (t) => {
  if (process.getuid?.() !== 0) return t.fail('needs root: a setuid-root program is made and run as another user');
  const dir = tmpDir('secure-run');
  chmodSync(dir, 0o777);
  const exe = compileC('secure_exec', ['secure_exec.c'], { outDir: dir });
  chownSync(exe, 0, 0);
  chmodSync(exe, 0o4755);
  const out = join(dir, 'prof');
  const r = await run('setpriv', [`--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups', process.execPath, cliPath, 'run', '--dir', out, '--', exe], {
    env: { HOME: dir },
    cwd: dir,
  });
  t.regex(r.stdout, new RegExp(`secure program done: uid ${nobody} euid 0`), `the setuid bit took effect: ${r.stderr}`);
  t.regex(r.stderr, /secure-execution mode: secure_exec .*hyprof measures nothing in it/);
  t.regex(r.stderr, /the program is setuid or setgid: it runs in secure-execution mode/);
  t.notRegex(r.stderr, /runtime was not loaded/, 'no second, contradicting account');
});
