/**
 * Complete JavaScript stacks (docs/assembly.md, "Complete stacks"): a recursion 80 frames deep
 * (test/native/node_deep.mjs) sampled inside a region under `hyprof run -- node`. The stacks file
 * holds every frame from the region's context down to the leaf; the TAU profile's [UNWIND] chains
 * keep the innermost 10 frames (TAU's reader accepts it: the run helper checks every profile); the
 * exports show the complete stacks, and without the stacks file they show the chains as before.
 */
import test from 'ava';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';
import { readStacksFiles, STACKS_FILE, type StacksFile } from '../src/profile/stacks-file.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { hyprof, repoRoot, testNativeDir, tmpDir } from './helpers/native.js';
import { assertConformant } from './helpers/conformance.js';
import { ProfileApi } from '../src/view/api.js';
import { readRawFile } from '../src/samples/raw-reader.js';
import { Symbolizer } from '../src/symbolize/symbolizer.js';
import { assembleProcess } from '../src/resolve/assemble.js';
import type { FlameNode } from '../src/view/flame.js';
import { buildFunctionReport } from '../src/report/report-functions.js';
import { parseThreadSelector } from '../src/report/report-data.js';

const app = join(testNativeDir, 'node_deep.mjs');
const DEPTH = 80;
// V8 may inline a recursive call into itself; the test is about unwinding what runs, so no inlining.
const nodeArgs = ['--no-turbo-inlining', app];
const env = { HYPROF_MODULE: join(repoRoot, 'dist', 'src', 'index.js'), NODE_OPTIONS: undefined };

const run = (async () => {
  const out = join(tmpDir('node-stacks'), 'prof');
  const r = await hyprof(['run', '--dir', out, '--keep-raw', '--', process.execPath, ...nodeArgs], { env, timeoutMs: 120_000 });
  return { r, out };
})();

/** The frames of stack-tree node i of thread `s`, outermost first, and the context it is under. */
function stackOf(f: StacksFile, s: StacksFile['threads'][number], i: number): { context: string; frames: string[] } {
  const frames: string[] = [];
  let at = i;
  for (; at >= 0; at = s.parent[at]) frames.unshift(f.frames[s.frame[at]][0]);
  return { context: s.contexts[-at - 1], frames };
}

/** Longest run of `down` frames in a list of frame names. */
function downRun(names: string[]): number {
  let best = 0;
  let n = 0;
  for (const x of names) {
    n = /(^|\s)down(\s|$)/.test(x) ? n + 1 : 0;
    best = Math.max(best, n);
  }
  return best;
}

test('the stacks file holds all 80 frames from the region down to the leaf', async (t) => {
  const { r, out } = await run;
  t.is(r.code, 0, r.stderr);
  const files = readStacksFiles(out);
  t.is(files.length, 1, `stacks files: ${readdirSync(out).filter((x) => STACKS_FILE.test(x)).join(', ')}`);
  const f = files[0];
  const main = f.threads.find((x) => x.thread === 0)!;
  t.truthy(main);
  // The samples in spin() under the region: every one of them is 80 frames of down() deep.
  const spins = main.samples
    .map((n, i) => ({ n, i }))
    .filter(({ n, i }) => n > 0 && f.frames[main.frame[i]][0] === 'spin')
    .map(({ n, i }) => ({ n, ...stackOf(f, main, i) }));
  const inRegion = spins.filter((s) => /\[CONTEXT\] deep work$/.test(s.context));
  const total = spins.reduce((a, s) => a + s.n, 0);
  t.true(total >= 100, `samples in spin: ${total}`);
  // across the await: the region's samples are the region's, not the root's
  t.is(inRegion.reduce((a, s) => a + s.n, 0), total);
  const complete = inRegion.filter((s) => downRun(s.frames) === DEPTH);
  t.true(complete.reduce((a, s) => a + s.n, 0) >= 0.95 * total, `spin samples with all ${DEPTH} down() frames: ${complete.length} of ${inRegion.length} stacks`);
  // From the region's frame: the outermost frame is no down() and the leaf is spin.
  const s = complete[0];
  t.not(s.frames[0], 'down');
  t.is(s.frames.at(-1), 'spin');
  // each frame once in the frame table however deep the recursion: down() at most once per line,
  // the line where it starts (interpreted code, a perf map) or the line of its call (optimised code
  // named from V8's code events: docs/node.md)
  const downs = f.frames.filter(([fn]) => fn === 'down');
  const start = readFileSync(app, 'utf8').split('\n').findIndex((l) => l.startsWith('function down(')) + 1;
  t.true(downs.length >= 1 && downs.length <= 2, JSON.stringify(downs));
  t.is(new Set(downs.map((d) => d[2])).size, downs.length, JSON.stringify(downs));
  for (const d of downs) {
    t.true(d[1].endsWith('node_deep.mjs'), d[1]);
    t.true(d[2] === start || d[2] === start + 1, JSON.stringify(d));
    t.is(d[3], ''); // JIT code: no object file
  }
});

test("the TAU profile's chains keep the innermost 10 frames; its metadata says so", async (t) => {
  const { out } = await run;
  const main = readTauProfileDir(out).threads[0].find((x) => x.thread === 0)!;
  const meta = new Map(main.metadata);
  t.is(meta.get('hyprof unwind chain depth'), '10');
  t.regex(meta.get('hyprof samples in shortened chains') ?? '', /^\d+$/);
  t.is(meta.get('TAU_EBS_UNWIND_DEPTH'), 'auto');
  let longest = 0;
  for (const e of main.events) longest = Math.max(longest, (e.name.match(/\[UNWIND\]/g) ?? []).length);
  t.is(longest, 9); // 9 callers + the [SAMPLE] frame
  // the hot chain of spin (a chain holding less than 0.5 % of the samples keeps fewer frames)
  const spinLeaf = main.events
    .filter((e) => / => \[SAMPLE\] spin /.test(e.name) && e.name.includes('[CONTEXT] deep work'))
    .sort((a, b) => b.calls - a.calls)[0];
  t.truthy(spinLeaf);
  t.is((spinLeaf!.name.match(/\[@\] down /g) ?? []).length, 9);
});

test('collapsed, speedscope and pprof exports show the complete stack, with files and lines', async (t) => {
  const { out } = await run;
  const dir = tmpDir('node-stacks-export');
  const col = await hyprof(['export', '--format', 'collapsed', '--thread', '0', '-o', join(dir, 'c.txt'), out]);
  t.is(col.code, 0, col.stderr);
  const lines = readFileSync(join(dir, 'c.txt'), 'utf8').trim().split('\n');
  const deep = lines.filter((l) => downRun(l.slice(0, l.lastIndexOf(' ')).split(';')) === DEPTH);
  t.true(deep.length > 0, lines.slice(0, 5).join('\n'));
  t.true(deep.some((l) => /^\.TAU application;deep work;.*;spin \d/.test(l)), deep[0]);

  const ss = await hyprof(['export', '--format', 'speedscope', '--thread', '0', '-o', join(dir, 's.json'), out]);
  t.is(ss.code, 0, ss.stderr);
  const sp = JSON.parse(readFileSync(join(dir, 's.json'), 'utf8')) as { shared: { frames: Array<{ name: string; file?: string; line?: number }> }; profiles: Array<{ samples: number[][] }> };
  const downFrame = sp.shared.frames.findIndex((fr) => fr.name === 'down');
  t.true(downFrame >= 0);
  t.true(sp.shared.frames[downFrame].file!.endsWith('node_deep.mjs'));
  t.true(sp.shared.frames[downFrame].line! > 0);
  t.true(sp.profiles[0].samples.some((s) => s.filter((x) => x === downFrame).length === DEPTH));

  const pp = await hyprof(['export', '--format', 'pprof', '--thread', '0', '-o', join(dir, 'p.pb.gz'), out]);
  t.is(pp.code, 0, pp.stderr);
  const prof = Profile.decode(gunzipSync(readFileSync(join(dir, 'p.pb.gz'))));
  const str = (i: number | bigint) => prof.stringTable.strings[Number(i)];
  const fn = prof.function.find((x) => str(x.name) === 'down')!;
  t.truthy(fn);
  t.true(str(fn.filename).endsWith('node_deep.mjs'));
  t.true(Number(fn.startLine) > 0);
  const downLocs = new Set(prof.location.filter((l) => l.line.some((x) => x.functionId === fn.id && Number(x.line) > 0)).map((l) => l.id));
  t.true(downLocs.size > 0);
  t.true(prof.sample.some((s) => s.locationId.filter((id) => downLocs.has(id)).length === DEPTH));
});

test("the viewer's flame graph and tree, and report --functions, use the complete stacks", async (t) => {
  const { out } = await run;
  const profile = readTauProfileDir(out);
  const i = profile.threads[0].findIndex((x) => x.thread === 0);
  const api = new ProfileApi(profile);
  const flame = api.flame(new URLSearchParams({ thread: String(i), min: '0' }));
  let deepest = 0;
  const walk = (n: FlameNode, downs: number): void => {
    const d = /^\[(UNWIND|SAMPLE)\] down /.test(n.name) ? downs + 1 : 0;
    deepest = Math.max(deepest, d);
    for (const c of n.children) walk(c, d);
  };
  walk(flame, 0);
  t.is(deepest, DEPTH);
  // the tree: a node 80 frames of down() deep is found by its path
  const ctx = api.tree(new URLSearchParams({ thread: String(i) })) as { children: Array<{ path: string; name: string }> };
  t.truthy(ctx.children.find((c) => c.name === '.TAU application'));
  // report --functions: the outermost frames of the stacks (beyond the chains' 10) count every
  // sample of the region, as the stacks file says
  const f = readStacksFiles(out)[0];
  const main = f.threads.find((x) => x.thread === 0)!;
  const spinAt = main.samples.findIndex((n, k) => n > 0 && f.frames[main.frame[k]][0] === 'spin' && downRun(stackOf(f, main, k).frames) === DEPTH);
  const outer = stackOf(f, main, spinAt).frames[0];
  const report = buildFunctionReport(profile, { thread: parseThreadSelector('0') });
  const rows = report.threads[0].contexts.find((c) => c.context === 'deep work')!.rows;
  const outerRow = rows.find((r) => r.function === outer)!;
  const spinRow = rows.find((r) => r.function === 'spin')!;
  t.truthy(outerRow, `${outer} in ${rows.map((r) => r.function).join(', ')}`);
  t.true(outerRow.totalSamples >= spinRow.totalSamples, `${outer}: ${outerRow.totalSamples}, spin: ${spinRow.totalSamples}`);
});

test("the viewer shows the source of a frame that only the stacks file names", async (t) => {
  const { out } = await run;
  const outer = join(testNativeDir, 'node_deep_outer.mjs');
  t.true(readStacksFiles(out)[0].frames.some(([, file]) => file === outer));
  // The outer loop lies 80 frames above the samples; the few samples in its own code name it in the
  // TAU profile too. Without those entries, only the stacks file names it.
  const profile = readTauProfileDir(out);
  for (const ts of profile.threads) for (const x of ts) x.events = x.events.filter((e) => !e.name.includes(outer));
  const api = new ProfileApi(profile, [repoRoot]);
  const got = api.source(new URLSearchParams({ file: outer, line: '1' })) as { lines?: unknown[] };
  t.truthy(got.lines, JSON.stringify(got).slice(0, 200));
  // without the stacks either, the file is no source file of this profile
  for (const ts of profile.threads) for (const x of ts) delete x.stacks;
  t.throws(() => new ProfileApi(profile, [repoRoot]).source(new URLSearchParams({ file: outer, line: '1' })), { message: /not a source file of a sample/ });
});

test('without its stacks file (an older profile) the export shows the chains, with the same total', async (t) => {
  const { out } = await run;
  const old = join(tmpDir('node-stacks-old'), 'prof');
  cpSync(out, old, { recursive: true });
  for (const f of readdirSync(old)) if (STACKS_FILE.test(f)) rmSync(join(old, f));
  assertConformant(old);
  const total = (txt: string) => txt.trim().split('\n').reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  const a = await hyprof(['export', '--format', 'collapsed', '--thread', '0', out]);
  const b = await hyprof(['export', '--format', 'collapsed', '--thread', '0', old]);
  t.is(b.code, 0, b.stderr);
  const lines = b.stdout.trim().split('\n');
  // the chains: at most 10 frames, so at most 10 of down() (when the sample is in down itself)
  const most = Math.max(...lines.map((l) => downRun(l.split(';'))));
  t.true(most >= 9 && most <= 10, `${most}`);
  t.true(Math.abs(total(a.stdout) - total(b.stdout)) <= 0.01 * total(a.stdout), `${total(a.stdout)} vs ${total(b.stdout)}`);
});

test('a damaged stacks file is named, with what is wrong', async (t) => {
  const { out } = await run;
  const bad = join(tmpDir('node-stacks-bad'), 'prof');
  cpSync(out, bad, { recursive: true });
  const name = readdirSync(bad).find((f) => STACKS_FILE.test(f))!;
  const [, node, context] = STACKS_FILE.exec(name)!;
  // the file as hyprof writes it: gzip-compressed JSON
  t.regex(name, /\.json\.gz$/);
  writeFileSync(join(bad, name), gzipSync(`{"format": "hyprof-stacks", "version": 1, "node": ${node}, "context": ${context}, "metrics": ["TIME"], "frames": [], "threads": [{"thread": 0, "contexts": [], "parent": [5], "frame": [0], "samples": [1], "values": [[1]], "merged": 0}]}`));
  const r = await hyprof(['export', '--format', 'collapsed', bad]);
  t.not(r.code, 0);
  t.is(r.stderr.trim(), `hyprof: ${join(bad, name)}: not a hyprof stacks file (thread 0: node 0 has parent 5); remove it or resolve the profile again`);
  writeFileSync(join(bad, name), gzipSync('{"format": "hyprof-stacks", "ver'));
  const r2 = await hyprof(['export', '--format', 'collapsed', bad]);
  t.not(r2.code, 0);
  t.regex(r2.stderr, new RegExp(`^hyprof: ${join(bad, name).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: not a hyprof stacks file \\(.*JSON`));
});

test('a run that bounds its unwinding (HYPROF_UNWIND_DEPTH=10) writes no stacks file, as before', async (t) => {
  const out = join(tmpDir('node-stacks-bounded'), 'prof');
  const r = await hyprof(['run', '--dir', out, '--', process.execPath, ...nodeArgs], { env: { ...env, HYPROF_UNWIND_DEPTH: '10', DEEP_MS: '400' }, timeoutMs: 120_000 });
  t.is(r.code, 0, r.stderr);
  t.false(readdirSync(out).some((f) => STACKS_FILE.test(f)));
  const main = readTauProfileDir(out).threads[0].find((x) => x.thread === 0)!;
  t.is(new Map(main.metadata).get('TAU_EBS_UNWIND_DEPTH'), '10');
});

test('resolve names each distinct address of the samples once, however many stacks repeat it', async (t) => {
  const { r } = await run;
  const rawDir = /raw measurements kept in (\S+)/.exec(r.stderr)?.[1];
  if (!rawDir) return t.fail(r.stderr);
  try {
    const raw = readdirSync(rawDir).filter((f) => f.endsWith('.raw')).map((f) => join(rawDir, f));
    t.is(raw.length, 1, raw.join(', '));
    const proc = readRawFile(raw[0]);
    const symbolizer = new Symbolizer();
    await symbolizer.prepare([proc]);
    // What the assembly asks for, per thread, against what the samples hold.
    const asked = new Map<string, number>();
    let pcs = 0;
    const distinct = new Set<string>();
    for (const th of proc.threads) for (const s of th.samples) s.pcs.forEach((pc, i) => (pcs++, distinct.add(`${i > 0}:${pc}`)));
    assembleProcess(proc, {
      resolve: (pc, isReturn) => {
        const k = `${isReturn}:${pc}`;
        asked.set(k, (asked.get(k) ?? 0) + 1);
        return symbolizer.resolve(proc, pc, isReturn);
      },
    });
    // 80-frame stacks of one recursion: each address is in many of the samples' stacks.
    t.true(pcs >= 4 * distinct.size, `${pcs} addresses in the samples, ${distinct.size} distinct`);
    t.is(asked.size, distinct.size);
    const most = Math.max(...asked.values());
    t.true(most <= proc.threads.length, `an address was named ${most} times for ${proc.threads.length} threads`);
    // The symbolizer resolved each once (what it reports), the rest answered from what it resolved.
    t.is(symbolizer.lookups, distinct.size);
  } finally {
    rmSync(rawDir, { recursive: true, force: true });
  }
});
