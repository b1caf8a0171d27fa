/** The `hyprof` command line itself: help, version, usage errors, error reporting. */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { hyprof, repoRoot, tauReferenceDir, tmpDir } from './helpers/native.js';

for (const cmd of ['run', 'resolve', 'report', 'config']) {
  test(`hyprof ${cmd} --help describes the command`, async (t) => {
    const r = await hyprof([cmd, '--help']);
    t.is(r.code, 0, r.stderr);
    // `run|record`: a command with its alias.
    t.regex(r.stdout, new RegExp(`^Usage: hyprof ${cmd}(\\|\\w+)? `));
    t.regex(r.stdout, /Options:/);
  });
}

test('hyprof --help lists every command', async (t) => {
  const r = await hyprof(['--help']);
  t.is(r.code, 0);
  for (const cmd of ['run', 'resolve', 'report', 'config']) t.regex(r.stdout, new RegExp(`\\n  ${cmd}(\\|\\w+)? `));
});

test('hyprof --version prints the package version', async (t) => {
  const r = await hyprof(['--version']);
  t.is(r.code, 0);
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  t.is(r.stdout.trim(), pkg.version);
});

test('an unknown command is a usage error with a suggestion', async (t) => {
  const r = await hyprof(['reprot']);
  t.is(r.code, 2);
  t.regex(r.stderr, /^hyprof: unknown command 'reprot'/);
  t.regex(r.stderr, /Did you mean report\?/);
});

test('an unknown option is a usage error', async (t) => {
  const r = await hyprof(['report', '--frobnicate']);
  t.is(r.code, 2);
  t.regex(r.stderr, /^hyprof: unknown option '--frobnicate'/);
  t.is(r.stdout, '');
});

test('a bad --limit value is a usage error naming the value', async (t) => {
  for (const v of ['abc', '0', '-3', '2.5']) {
    const r = await hyprof(['report', '.', '--limit', v]);
    t.is(r.code, 2, v);
    t.regex(r.stderr, new RegExp(`^hyprof: option '--limit <n>' argument '${v.replace('.', '\\.')}' is invalid\\. --limit must be a whole number of at least 1, not '${v.replace('.', '\\.')}'\\.`));
  }
});

test('a bad --sort value lists the choices', async (t) => {
  const r = await hyprof(['report', '.', '--sort', 'time']);
  t.is(r.code, 2);
  t.regex(r.stderr, /Allowed choices are excl, incl, calls, name/);
});

test('a missing profile directory is a user error: one line, no stack trace', async (t) => {
  const r = await hyprof(['report', '/nonexistent/profile-dir']);
  t.is(r.code, 2);
  t.is(r.stderr, 'hyprof: /nonexistent/profile-dir: no such directory\n');
});

test('a directory without profile files says what it expected', async (t) => {
  const r = await hyprof(['report', join(repoRoot, 'docs')]);
  t.is(r.code, 2);
  t.regex(r.stderr, /^hyprof: .*docs: no TAU profile files \(profile\.<node>\.<context>\.<thread>\) found\n$/);
});

test('run without a program is a usage error', async (t) => {
  const r = await hyprof(['run']);
  t.is(r.code, 2);
  t.regex(r.stderr, /^hyprof: missing required argument 'program'/);
});

test('a reader that goes away (hyprof report | head) ends hyprof quietly', async (t) => {
  // 145 kB of JSON: more than a pipe holds, so the write fails with EPIPE after the reader left.
  const ref = tauReferenceDir;
  const r = await hyprof(['report', join(ref, 'hybrid_keep_addr'), '--callpath', '--json'], {
    onSpawn: (child) => child.stdout!.once('data', () => child.stdout!.destroy()),
  });
  t.is(r.code, 0);
  t.is(r.stderr, '');
});

test("perf's habits: `record` runs like `run`, `run -o DIR` writes to DIR like --dir", async (t) => {
  const dir = join(tmpDir('cli-record'), 'prof');
  const r = await hyprof(['record', '-o', dir, '--', 'true']);
  t.is(r.code, 0, r.stderr);
  t.true(existsSync(join(dir, 'profile.0.0.0')));
  t.regex(r.stderr, /written to .*prof\/ \(profile\.0\.0\.\*\)/);
  const help = await hyprof(['record', '--help']);
  t.regex(help.stdout, /^Usage: hyprof run\|record /);
  t.regex(help.stdout, /-o, --dir <dir>/);
});

test("other tools' commands name hyprof's command for them; a misspelling gets the nearest", async (t) => {
  for (const [word, want] of [['annotate', 'report --functions'], ['paraprof', 'view'], ['tau_exec', 'run'], ['stat', 'run']]) {
    const r = await hyprof([word, 'x']);
    t.is(r.code, 2);
    t.is(r.stderr, `hyprof: unknown command '${word}'; hyprof's command for it is '${want}' (hyprof ${want.split(' ')[0]} --help)\n`);
  }
  const typo = await hyprof(['recrod']);
  t.is(typo.code, 2);
  t.regex(typo.stderr, /\(Did you mean record\?\)/);
});
