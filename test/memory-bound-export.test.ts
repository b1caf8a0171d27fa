/**
 * `hyprof export` of a thread of many contexts in bounded memory: 10^5 dynamic phases "Iteration <i>"
 * with a timer inside (200,000 contexts, 26 MB of profile) from a real program under `hyprof run`,
 * exported in each format by a CLI whose V8 heap is capped (--max-old-space-size). The exports build
 * each thread's tree in columns as its lines are read and write their output in pieces; when they held
 * the parsed thread, an object per tree node and per stack (and pprof's objects per sample, location
 * and string), the same exports needed a heap of 160-176 MB (collapsed), 192-256 MB (speedscope) and
 * more than 256 MB (pprof); now 40 MB, 40 MB and 48 MB are enough. The cap sits between the two.
 * The 10^6-phase measurements are in bench/many-events.ts (bench/RESULTS.md).
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';
import { cliPath, compileC, run, tmpDir } from './helpers/native.js';

const N = 100_000;
/** Heap cap in MB: about twice what each export needs now, and well below what it needed before. */
const CAP_MB = { collapsed: 96, speedscope: 96, pprof: 96 } as const;

let dir = '';
test.before(async () => {
  const exe = compileC('many_events', ['many_events.c'], { cflags: ['-O2', '-g'] });
  dir = join(tmpDir('memory-bound'), 'prof');
  const r = await run(process.execPath, [cliPath, 'run', '--no-sampling', '--dir', dir, '--', exe, String(N), 'phases'], { timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`hyprof run failed:\n${r.stderr}`);
});

/** Export under a capped heap; the output file's bytes. */
async function exportCapped(format: keyof typeof CAP_MB): Promise<{ code: number | null; stderr: string; out: Buffer }> {
  const file = join(tmpDir(`memory-bound-${format}`), `out.${format}`);
  const r = await run(process.execPath, [`--max-old-space-size=${CAP_MB[format]}`, cliPath, 'export', dir, '--format', format, '-o', file], { timeoutMs: 120_000 });
  return { code: r.code, stderr: r.stderr, out: r.code === 0 ? readFileSync(file) : Buffer.alloc(0) };
}

test(`collapsed export of ${N} phases in a ${CAP_MB.collapsed} MB heap`, async (t) => {
  const r = await exportCapped('collapsed');
  t.is(r.code, 0, r.stderr.slice(-2000));
  t.is(r.stderr, '');
  const lines = r.out.toString('utf8').trimEnd().split('\n');
  // Every phase is there (its own time, or its timer's); each line is `frames value`.
  const phases = new Set(lines.map((l) => /;Iteration (\d+)(?:;| )/.exec(l)?.[1]).filter((x) => x !== undefined));
  t.is(phases.size, N);
  t.true(lines.every((l) => /^\.TAU application(;[^;]+)* [\d.]+$/.test(l)), lines.find((l) => !/ [\d.]+$/.test(l)));
});

test(`speedscope export of ${N} phases in a ${CAP_MB.speedscope} MB heap`, async (t) => {
  const r = await exportCapped('speedscope');
  t.is(r.code, 0, r.stderr.slice(-2000));
  t.is(r.stderr, '');
  const s = JSON.parse(r.out.toString('utf8')) as { shared: { frames: Array<{ name: string }> }; profiles: Array<{ samples: number[][]; weights: number[] }> };
  t.is(s.shared.frames.filter((f) => f.name.startsWith('Iteration ')).length, N);
  t.is(s.profiles[0].samples.length, s.profiles[0].weights.length);
  t.true(s.profiles[0].samples.length >= N);
});

test(`pprof export of ${N} phases in a ${CAP_MB.pprof} MB heap`, async (t) => {
  const r = await exportCapped('pprof');
  t.is(r.code, 0, r.stderr.slice(-2000));
  t.is(r.stderr, '');
  const p = Profile.decode(gunzipSync(r.out));
  const names = new Set(p.function.map((f) => p.stringTable.strings[Number(f.name)]));
  t.true(names.has('Iteration 0') && names.has(`Iteration ${N - 1}`));
  t.true(p.sample.length >= N);
});
