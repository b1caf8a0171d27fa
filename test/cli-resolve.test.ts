/** `hyprof resolve`: raw files or directories in, a TAU profile out; corrupt input rejected whole. */
import test from 'ava';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileC, hyprof, libPath, tmpDir } from './helpers/native.js';

const PROGRAM = `
#include <hyprof.h>
static volatile double sink;
int main(void) {
  hyprof_event_t e = hyprof_event("compute", 0);
  hyprof_start(e);
  double s = 0; for (long i = 1; i <= 3000000; i++) s += 1.0 / (double)i; sink = s;
  hyprof_stop(e);
  return 0;
}
`;

/** One real raw file, from a real run kept with --keep-raw. */
let raw = '';
test.before(async () => {
  if (!existsSync(libPath)) return;
  const dir = tmpDir('cli-resolve-src');
  writeFileSync(join(dir, 'app.c'), PROGRAM);
  const program = compileC('app', [join(dir, 'app.c')], { outDir: dir });
  const r = await hyprof(['run', '--dir', join(dir, 'prof'), '--keep-raw', '--', program]);
  const kept = /raw measurements kept in (\S+)\n/.exec(r.stderr);
  if (!kept) throw new Error(`no raw file kept:\n${r.stderr}`);
  const name = readdirSync(kept[1]).find((f) => f.endsWith('.raw'))!;
  raw = join(dir, name);
  copyFileSync(join(kept[1], name), raw);
  rmSync(kept[1], { recursive: true, force: true });
});

function profileFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => /^profile\.\d+\.\d+\.\d+$/.test(f)) : [];
}

test('a raw file and a directory of raw files resolve into a profile', async (t) => {
  if (!raw) return t.fail(`the native runtime is not built: ${libPath}`);
  const out = join(tmpDir('cli-resolve-ok'), 'prof');
  const r = await hyprof(['resolve', raw, '-o', out]);
  t.is(r.code, 0, r.stderr);
  // Possibly preceded by a line counting samples that could not be recorded.
  t.regex(r.stderr, /(^|\n)hyprof: profile of 1 thread written to .*prof\/ \(profile\.0\.0\.\*\)\n$/);
  t.notRegex(r.stderr, /error|internal/);
  t.deepEqual(profileFiles(out), ['profile.0.0.0']);

  const dir = tmpDir('cli-resolve-dir');
  copyFileSync(raw, join(dir, 'one.raw'));
  writeFileSync(join(dir, 'notes.txt'), 'not a raw file');
  const out2 = join(dir, 'prof');
  const r2 = await hyprof(['resolve', dir, '-o', out2]);
  t.is(r2.code, 0, r2.stderr);
  t.deepEqual(profileFiles(out2), ['profile.0.0.0']);
});

test('a corrupt raw file: exit 2, the file and offset named, no output directory', async (t) => {
  if (!raw) return t.fail(`the native runtime is not built: ${libPath}`);
  const dir = tmpDir('cli-resolve-corrupt');
  const bad = join(dir, 'bad.raw');
  const bytes = readFileSync(raw);
  bytes[Math.floor(bytes.length / 2)] ^= 0xff;
  writeFileSync(bad, bytes);
  const out = join(dir, 'prof');
  const r = await hyprof(['resolve', bad, '-o', out]);
  t.is(r.code, 2, r.stderr);
  t.regex(r.stderr, new RegExp(`^hyprof: ${bad}: offset \\d+: `));
  t.is(r.stderr.split('\n').length, 2, 'one line, no stack trace');
  t.false(existsSync(out));

  const cut = join(dir, 'cut.raw');
  writeFileSync(cut, bytes.subarray(0, 100));
  const r2 = await hyprof(['resolve', cut, '-o', out]);
  t.is(r2.code, 2);
  t.regex(r2.stderr, new RegExp(`^hyprof: ${cut}: offset \\d+: `));
  t.false(existsSync(out));
});

test('inputs that are not there, or directories without raw files', async (t) => {
  const dir = tmpDir('cli-resolve-missing');
  const r = await hyprof(['resolve', join(dir, 'nope.raw'), '-o', join(dir, 'prof')]);
  t.is(r.code, 2);
  t.is(r.stderr, `hyprof: ${join(dir, 'nope.raw')}: no such file or directory\n`);
  const empty = await hyprof(['resolve', dir, '-o', join(dir, 'prof')]);
  t.is(empty.code, 2);
  t.is(empty.stderr, `hyprof: ${dir}: no raw measurement files (*.raw) in this directory\n`);
  t.false(existsSync(join(dir, 'prof')));
  const usage = await hyprof(['resolve']);
  t.is(usage.code, 2);
  t.regex(usage.stderr, /^hyprof: missing required argument 'raw'/);
});

test('--no-callpath writes flat profiles; a bad --symbolizer is a usage error', async (t) => {
  if (!raw) return t.fail(`the native runtime is not built: ${libPath}`);
  const dir = tmpDir('cli-resolve-flat');
  const withPaths = await hyprof(['resolve', raw, '-o', join(dir, 'paths'), '--callpath']);
  t.is(withPaths.code, 0, withPaths.stderr);
  t.regex(readFileSync(join(dir, 'paths', 'profile.0.0.0'), 'utf8'), /\n"\.TAU application => compute" /);
  const flat = await hyprof(['resolve', raw, '-o', join(dir, 'flat'), '--no-callpath']);
  t.is(flat.code, 0, flat.stderr);
  const text = readFileSync(join(dir, 'flat', 'profile.0.0.0'), 'utf8');
  t.regex(text, /\n"compute" 1 /);
  // Timer paths are gone; sample paths under [CONTEXT] stay, as TAU writes them without TAU_CALLPATH.
  t.notRegex(text, /\n"\.TAU application => compute" /);

  const bad = await hyprof(['resolve', raw, '-o', join(dir, 'x'), '--symbolizer', 'gdb']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /^hyprof: option '--symbolizer <tool>' argument 'gdb' is invalid\. Allowed choices are auto, llvm-symbolizer, addr2line\./);
  t.false(existsSync(join(dir, 'x')));
});

test('HYPROF_SYMBOL_CACHE: a value that is no boolean is warned about once; off writes no cache', async (t) => {
  if (!raw) return t.fail(`the native runtime is not built: ${libPath}`);
  const dir = tmpDir('cli-resolve-symcache');
  const cache = join(dir, 'cache');
  const bad = await hyprof(['resolve', raw, '-o', join(dir, 'a')], { env: { HYPROF_SYMBOL_CACHE: 'abc', XDG_CACHE_HOME: cache } });
  t.is(bad.code, 0, bad.stderr);
  const warning = 'hyprof: warning: HYPROF_SYMBOL_CACHE=abc is not a boolean (1/0, on/off, true/false, yes/no); using 1\n';
  t.is(bad.stderr.split(warning).length - 1, 1, bad.stderr);
  t.true(existsSync(join(cache, 'hyprof', 'symbols')), 'the default (on) was used');
  const off = await hyprof(['resolve', raw, '-o', join(dir, 'b')], { env: { HYPROF_SYMBOL_CACHE: 'Off', XDG_CACHE_HOME: join(dir, 'none') } });
  t.is(off.code, 0, off.stderr);
  t.notRegex(off.stderr, /HYPROF_SYMBOL_CACHE/);
  t.false(existsSync(join(dir, 'none')));
});

test('an output path the system cannot open, or an empty one, is refused with a clear message', async (t) => {
  if (!raw) return t.fail(`the native runtime is not built: ${libPath}`);
  const dir = tmpDir('cli-resolve-long');
  const long = join(dir, ...Array.from({ length: 20 }, () => 'p'.repeat(250)));
  const r = await hyprof(['resolve', raw, '-o', long]);
  t.is(r.code, 1);
  t.regex(r.stderr, /^hyprof: cannot write the profile to \/\S{50,}\.\.\.p+: the path is longer than the system's limit \(\d{4} bytes, at most 4095\)\n$/);
  const name = await hyprof(['resolve', raw, '-o', join(dir, 'n'.repeat(300))]);
  t.is(name.code, 1);
  t.regex(name.stderr, /: a name in the path is longer than the system's limit \(300 bytes, at most 255\)\n$/);
  const empty = await hyprof(['resolve', raw, '-o', '']);
  t.is(empty.code, 2);
  t.is(empty.stderr, 'hyprof: the output directory is an empty name; give a directory (-o DIR)\n');
  t.deepEqual(readdirSync(dir), []);
});
