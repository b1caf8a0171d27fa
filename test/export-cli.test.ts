/**
 * `hyprof export` from the command line: files and standard output, and the messages for what a
 * user can get wrong.
 */
import test from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';
import { cliPath, haveTool, hyprof, repoRoot, run, tmpDir, tauReferenceDir } from './helpers/native.js';

const ref = (v: string): string => join(tauReferenceDir, v);

test('export writes each format to a file with -o', async (t) => {
  const out = tmpDir('export-cli');
  for (const format of ['pprof', 'speedscope', 'collapsed']) {
    const file = join(out, `p.${format}`);
    const r = await hyprof(['export', ref('hybrid_unwind'), '--format', format, '-o', file]);
    t.is(r.code, 0, r.stderr);
    t.is(r.stdout, '');
    // Not on a terminal: no progress lines.
    t.is(r.stderr, '');
    const data = readFileSync(file);
    if (format === 'pprof') t.true(Profile.decode(gunzipSync(data)).sample.length > 0);
    else if (format === 'collapsed') t.regex(data.toString(), /^Iteration 0;[^;[]+;/m);
    else t.notThrows(() => JSON.parse(data.toString()));
  }
});

test('export writes text formats to standard output, with --thread and --metric', async (t) => {
  const r = await hyprof(['export', ref('openmp_ompt_full'), '--format', 'collapsed', '--thread', '0,0,1', '--metric', 'TIME']);
  t.is(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  t.true(lines.length > 0);
  // One thread selected: no thread frame in front.
  t.false(lines.some((l) => l.startsWith('n,c,t')));
  // Thread 1 is an OpenMP worker: its stacks start at its own root.
  t.true(lines.every((l) => l.startsWith('.TAU application;') || l.startsWith('.TAU application ') || l.startsWith('[')));
  t.true(lines.some((l) => l.includes('OpenMP_Thread_Type_ompt_thread_worker')));
});

test('an unknown format is refused with the list of formats, exit 2', async (t) => {
  const r = await hyprof(['export', ref('probes'), '--format', 'svg']);
  t.is(r.code, 2);
  t.is(r.stderr, 'hyprof: --format svg: unknown format; formats: pprof, speedscope, collapsed\n');
  const none = await hyprof(['export', ref('probes')]);
  t.is(none.code, 2);
  t.regex(none.stderr, /--format <f>/);
});

test('the chrome format is refused for a run without a trace, with the reason (no instance times) and what to do instead', async (t) => {
  const out = join(tmpDir('export-chrome'), 'trace.json');
  const r = await hyprof(['export', ref('hybrid_unwind'), '--format', 'chrome', '-o', out]);
  t.is(r.code, 2);
  t.regex(
    r.stderr,
    /^hyprof: --format chrome: .*hybrid_unwind has no trace \(.*traces\.otf2\): a Chrome trace is a timeline, .*not when each call ran.*HYPROF_TRACE=1.*--format speedscope .*--format pprof\n$/,
  );
  t.throws(() => readFileSync(out));
});

test('export errors name the input: no profiles, unknown thread or metric, unwritable output', async (t) => {
  const empty = tmpDir('export-empty');
  const r = await hyprof(['export', empty, '--format', 'collapsed']);
  t.is(r.code, 2);
  t.is(r.stderr, `hyprof: ${empty}: no TAU profile files (profile.<node>.<context>.<thread>) found\n`);
  const th = await hyprof(['export', ref('probes'), '--format', 'collapsed', '--thread', '3']);
  t.is(th.code, 2);
  t.regex(th.stderr, /^hyprof: --thread 3: no such thread in .*probes \(threads: 0,0,0\)\n$/);
  const m = await hyprof(['export', ref('probes'), '--format', 'speedscope', '--metric', 'CPU_TIME']);
  t.is(m.code, 2);
  t.regex(m.stderr, /^hyprof: --metric CPU_TIME: not in .*probes \(metrics: TIME\)\n$/);
  const bad = join(empty, 'no', 'such', 'dir', 'out.pb.gz');
  const w = await hyprof(['export', ref('probes'), '--format', 'pprof', '-o', bad]);
  t.is(w.code, 1);
  t.is(w.stderr, `hyprof: ${bad}: cannot write: no such file or directory (ENOENT)\n`);
});

test('reading many thread files shows progress on a terminal', async (t) => {
  const dir = tmpDir('export-many');
  const text = readFileSync(join(ref('probes'), 'profile.0.0.0'), 'utf8');
  for (let i = 0; i < 300; i++) writeFileSync(join(dir, `profile.0.0.${i}`), text);
  const out = join(dir, 'out.txt');
  // script(1) runs the command on a pseudo-terminal; its output is what the terminal received.
  const cmd = `stty cols 200; '${process.execPath}' '${cliPath}' export '${dir}' --format collapsed -o '${out}'`;
  const r = await run('script', ['-qec', cmd, '/dev/null']);
  t.is(r.code, 0, r.stdout);
  t.true(r.stdout.includes(`hyprof: reading ${dir}: file 1 of 300`), JSON.stringify(r.stdout.slice(0, 300)));
  // The line is erased before the command ends.
  t.true(r.stdout.endsWith('\r\x1b[2K'));
  t.is(readFileSync(out, 'utf8').trimEnd().split('\n').length, 300 * 7);
});
