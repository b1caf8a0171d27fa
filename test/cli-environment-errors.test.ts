/**
 * Errors of the user's environment while reading or writing profiles: a full disk, a file size limit,
 * a directory where a profile file should be. Each is one clear line and a documented exit status
 * (1: the environment, 2: the input), never "internal error" or a stack trace. The faults are real:
 * /dev/full (every write fails with ENOSPC) and a file size limit set with prlimit (EFBIG).
 */
import test from 'ava';
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, hyprof, run, tmpDir, tauReferenceDir, cliPath } from './helpers/native.js';

const probes = join(tauReferenceDir, 'probes');

/** A real raw file, from a linked program that only writes it. */
async function rawFile(): Promise<string> {
  const dir = tmpDir('env-raw');
  const exe = compileC('core_nesting', ['core_nesting.c']);
  const r = await run(exe, [], { env: { HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '0' } });
  if (r.code !== 0) throw new Error(r.stderr);
  return join(dir, readdirSync(dir).find((f) => f.endsWith('.raw'))!);
}

function noInternalError(t: { notRegex: (s: string, r: RegExp) => void }, stderr: string): void {
  t.notRegex(stderr, /internal error|this is a bug|\n\s+at /);
}

test('standard output on a full device (> /dev/full): report and export say so, exit 1', async (t) => {
  for (const args of [['report', probes], ['report', probes, '--json'], ['export', probes, '--format', 'collapsed']]) {
    const r = await run('sh', ['-c', `exec "$0" "$@" > /dev/full`, process.execPath, cliPath, ...args]);
    t.is(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    t.is(r.stderr, 'hyprof: cannot write to standard output: no space left on device (ENOSPC)\n');
  }
});

test('export -o on a full device: exit 1, the file named', async (t) => {
  const r = await hyprof(['export', probes, '--format', 'speedscope', '-o', '/dev/full']);
  t.is(r.code, 1);
  t.is(r.stderr, 'hyprof: /dev/full: cannot write: no space left on device (ENOSPC)\n');
});

test('resolve under a file size limit: exit 1, the directory named, no partial profile left', async (t) => {
  if (!(await run('sh', ['-c', 'command -v prlimit'])).stdout) return t.fail('prlimit (util-linux) is not installed');
  const raw = await rawFile();
  const out = join(tmpDir('env-fsize'), 'prof');
  const r = await run('prlimit', ['--fsize=1024', process.execPath, cliPath, 'resolve', raw, '-o', out], { env: { HYPROF_SYMBOL_CACHE: '0' } });
  t.is(r.code, 1, r.stderr);
  t.is(r.stderr, `hyprof: cannot write the profile to ${out}: file larger than the file size limit (ulimit -f) (EFBIG)\n`);
  t.false(existsSync(out));
});

test('a directory where a profile file should be: report, export and view say which, exit 2', async (t) => {
  const dir = join(tmpDir('env-isdir'), 'prof');
  cpSync(probes, dir, { recursive: true });
  mkdirSync(join(dir, 'profile.0.0.1'));
  const expected = `hyprof: ${join(dir, 'profile.0.0.1')}: a directory where a profile file should be\n`;
  for (const args of [['report', dir], ['export', dir, '--format', 'collapsed'], ['view', dir, '--port', '0']]) {
    const r = await hyprof(args, { timeoutMs: 30_000 });
    t.is(r.code, 2, `${args[0]}: ${r.stderr}`);
    t.is(r.stderr, expected);
    noInternalError(t, r.stderr);
  }
});

test('a directory named like a raw file in a directory of raw files: resolve says so, exit 2', async (t) => {
  const dir = tmpDir('env-rawdir');
  mkdirSync(join(dir, 'x.raw'));
  const r = await hyprof(['resolve', join(dir, 'x.raw'), '-o', join(dir, 'out')]);
  t.is(r.code, 2);
  t.is(r.stderr, `hyprof: ${join(dir, 'x.raw')}: no raw measurement files (*.raw) in this directory\n`);
  const inDir = await hyprof(['resolve', dir, '-o', join(dir, 'out')]);
  t.is(inDir.code, 2);
  t.is(inDir.stderr, `hyprof: ${join(dir, 'x.raw')}: a directory, not a raw measurement file\n`);
  t.false(existsSync(join(dir, 'out')));
});
