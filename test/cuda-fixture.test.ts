/**
 * The CUDA layer's record processing on a FIXTURE, not a GPU run: test/native/cuda_fixture.c hands
 * CUPTI's own record structures, filled by hand with the values a CUDA program of its shape gives,
 * to libhyprof_cuda.so's processing with the launches noted on the launching thread as CUPTI's
 * callback does. Checked: each record under the host context that launched it (phase, timer and
 * parameter value), the GPU clock mapped to the run's, one GPU thread per stream with its metadata,
 * times and bytes as TAU's atomic user events, drops and unattributed records counted; TAU's strict
 * reader reads the profile. CUPTI itself is checked on a GPU by scripts/device-check.sh (docs/gpu.md).
 * Skipped, with its reason printed, where CUDA (CUPTI's headers and library) is not installed.
 */
import test from 'ava';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { compileC, hyprof, libDir, run, testNativeDir, tmpDir } from './helpers/native.js';
import { cudaDriverNote } from '../src/run/run-cuda.js';
import type { GpuReport } from '../src/report/gpu-report.js';
import { readWithTau, tauReaderComplaints } from './helpers/tau-reader.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { displayName, type TauThreadProfile } from '../src/profile/tau-model.js';
import { readRawFile } from '../src/samples/raw-reader.js';
import { GpuKind, type RawGpuRecord } from '../src/samples/raw-cuda.js';
import type { RawProcess } from '../src/samples/raw-model.js';
import { userEvent } from './helpers/profile-queries.js';
import { PYTHON, traceRunMissing } from './helpers/otf2.js';
import { repoRoot } from './helpers/paths.js';
import { readTrace } from '../src/trace/otf2-index.js';
import { buildModel } from '../src/trace/trace-model.js';
import { traceGpuCut } from './helpers/gpu-trace-cut.js';

const cuda = process.env.CUDA_HOME ?? '/usr/local/cuda';
const missing = !existsSync(join(cuda, 'include', 'cupti.h'))
  ? `CUDA is not installed (no ${cuda}/include/cupti.h): the CUDA layer is not built (docs/gpu.md)`
  : !existsSync(join(libDir, 'libhyprof_cuda.so'))
    ? `the CUDA layer is not built: ${join(libDir, 'libhyprof_cuda.so')}`
    : null;
if (missing) console.log(`cuda-fixture: skipped: ${missing}`);
const maybe = missing ? test.skip : test;
const untraced = missing ? null : traceRunMissing();
if (untraced) console.log(`cuda-fixture: the traced run is skipped: ${untraced}`);
const maybeTraced = missing || untraced ? test.skip : test;

let profile: TauThreadProfile[] = [];
let raw: RawProcess;
let dir = '';
let before = 0n;
let after = 0n;
let resolveSaid = '';

test.before(async () => {
  if (missing) return;
  const exe = compileC('cuda_fixture', ['cuda_fixture.c'], { cflags: ['-O1', '-g', `-I${cuda}/include`], ldflags: [`-L${libDir}`, '-lhyprof_cuda'] });
  const tmp = tmpDir('cuda-fixture');
  dir = join(tmp, 'profile');
  before = process.hrtime.bigint();
  // The run writes the raw file (kept) and resolves it at exit; run() checks the profile's conformance.
  const r = await run(exe, [], { env: { HYPROF_DIR: dir, HYPROF_RAW_DIR: join(tmp, 'raw'), HYPROF_SAMPLING: '0', HYPROF_KEEP_RAW: '1' } });
  after = process.hrtime.bigint();
  if (r.code !== 0) throw new Error(`cuda_fixture: exit ${r.code}: ${r.stderr}`);
  resolveSaid = r.stderr;
  profile = readTauProfileDir(dir).threads[0];
  const rawDir = [join(tmp, 'raw'), dir].find((d) => existsSync(d) && readdirSync(d).some((f) => f.endsWith('.raw')));
  if (!rawDir) throw new Error(`cuda_fixture: no raw file kept in ${tmp}`);
  raw = readRawFile(join(rawDir, readdirSync(rawDir).find((f) => f.endsWith('.raw')) as string));
});

const ev = (t: TauThreadProfile, name: string) => t.events.find((e) => displayName(e.name) === name);
const meta = (t: TauThreadProfile, key: string) => t.metadata.find(([k]) => k === key)?.[1];
const stream = (s: number) => profile.find((t) => meta(t, 'CUDA Stream') === String(s));

maybe('each GPU record sits under the host context that launched it, parameter value included', (t) => {
  const host = profile[0];
  t.is(ev(host, '[GPU] saxpy')?.calls, 3);
  t.is(ev(host, '[GPU] saxpy')?.incl, 420, '100 + 120 + 200 µs of kernel time');
  t.is(ev(host, '.TAU application => Iteration 1 => solve => cudaLaunchKernel => [GPU] saxpy')?.calls, 2);
  t.is(ev(host, '.TAU application => Iteration 2 => solve => cudaLaunchKernel => [GPU] saxpy')?.incl, 200);
  t.is(ev(host, '.TAU application => Iteration 2 => solve => cudaLaunchKernel => [GPU] scale')?.calls, 1);
  t.is(ev(host, '.TAU application => Iteration 1 => solve => [GPU] [CUDA memcpy HtoD]')?.incl, 40);
  t.is(ev(host, '.TAU application => Iteration 2 => solve => [GPU] [CUDA memcpy DtoH]')?.calls, 1, 'the copy whose launch was not seen is not attributed');
  t.is(ev(host, '[GPU] [CUDA memset]'), undefined, 'no launch context: on its stream only');
  // TAU's paths drop parameter specialisations; the raw records keep the specialised context.
  const names = (r: RawGpuRecord): string[] => {
    const out: string[] = [];
    for (let c = raw.contexts.get(r.hostContext); c; c = raw.contexts.get(c.parent)) out.push(raw.events[c.event].name);
    return out;
  };
  const saxpy = raw.cuda?.records.filter((r) => r.kind === GpuKind.KERNEL && r.name === '_Z5saxpyifPKfPf') ?? [];
  t.is(saxpy.length, 2, 'one aggregate per launching context');
  const first = saxpy.find((r) => r.count === 2) as RawGpuRecord;
  t.true(names(first).some((n) => /n.*4096/.test(n)), names(first).join(' <= '));
  t.true(names(first).includes('Iteration 1'), names(first).join(' <= '));
  t.deepEqual([first.grid, first.block], [[16, 1, 1], [256, 1, 1]]);
});

maybe('GPU times are on the run clock (CLOCK_MONOTONIC), within the run', (t) => {
  const recs = raw.cuda?.records ?? [];
  t.is(recs.length, 8);
  for (const r of recs) {
    t.true(r.firstStart > before && r.lastEnd < after, `${r.name}: ${r.firstStart}..${r.lastEnd} outside ${before}..${after}`);
    t.true(r.ns <= Number(r.lastEnd - r.firstStart));
  }
});

maybe('one thread per GPU stream: metadata, busy and idle time, bytes and kernel times as user events', (t) => {
  t.is(profile.length, 4, 'the host thread and streams 0 (synchronisation), 7 and 13');
  t.regex(resolveSaid, /profile of 4 threads/, 'the GPU threads are counted where the resolve says what it wrote');
  const s7 = stream(7) as TauThreadProfile;
  const s13 = stream(13) as TauThreadProfile;
  t.is(meta(s7, 'CUDA Device'), '0');
  t.is(meta(s7, 'CUDA Context'), '1');
  t.is(ev(s7, '[GPU] saxpy')?.calls, 3);
  // Stream 7 ran from 1 µs to 660 µs of the GPU clock, busy 40 + 100 + 120 + 200 + 10 µs.
  t.is(ev(s7, '.TAU application')?.incl, 659);
  t.is(ev(s7, '.TAU application')?.excl, 189);
  t.deepEqual(userEvent(s7, 'GPU Bytes : [CUDA memcpy HtoD]'), { count: 1, sum: 4 << 20 });
  t.deepEqual(userEvent(s7, 'GPU Bytes : [CUDA memset]'), { count: 1, sum: 1 << 20 });
  t.deepEqual(userEvent(s7, 'GPU Kernel Time (us) : saxpy'), { count: 3, sum: 420 });
  const dtoh = s13.userEvents.find((u) => u.name === 'GPU Bytes : [CUDA memcpy DtoH]');
  t.deepEqual([dtoh?.count, dtoh?.min, dtoh?.max], [2, 4096, 8 << 20]);
  t.is(meta(stream(0) as TauThreadProfile, 'hyprof GPU records without their launch'), '2', 'the memset and the copy of correlation 99');
});

maybe("TAU's strict reader reads the profile", (t) => {
  const r = readWithTau(dir);
  t.true(r.ok, tauReaderComplaints(r));
  t.is(r.num_threads, 4);
});

// Without a GPU driver (these machines): a CUDA program behaves as without hyprof, which says so once.
maybe('a CUDA program without a driver runs as without hyprof, said once; a program without CUDA loads no CUDA layer', async (t) => {
  const tmp = tmpDir('cuda-nodriver');
  const exe = join(tmp, 'cuda_nodriver');
  const nvcc = spawnSync(join(cuda, 'bin', 'nvcc'), ['-O1', join(testNativeDir, 'cuda_nodriver.cu'), '-o', exe], { encoding: 'utf8' });
  if (nvcc.error || nvcc.status !== 0) return t.fail(`nvcc: ${nvcc.error?.message ?? nvcc.stderr}`);
  if (cudaDriverNote(exe, process.env) === null) {
    t.log('a CUDA driver is installed: scripts/device-check.sh measures this program instead');
    return t.pass();
  }
  const bare = await run(exe, []);
  const under = await hyprof(['run', '--dir', join(tmp, 'profile'), '--', exe]);
  t.is(under.code, bare.code);
  t.is(under.stdout, bare.stdout);
  t.regex(bare.stdout, /cudaGetDeviceCount: cudaError/);
  t.is(under.stderr.split('no CUDA driver (libcuda.so.1) on this machine').length - 1, 1, under.stderr);
  const maps = await hyprof(['run', '--dir', join(tmp, 'plain'), '--', 'cat', '/proc/self/maps']);
  t.is(maps.code, 0, maps.stderr);
  t.regex(maps.stdout, /libhyprof\.so/, 'the runtime is loaded');
  t.notRegex(maps.stdout, /libhyprof_cuda|libcupti/);
  t.notRegex(maps.stderr, /CUDA/);
});

maybe('hyprof report --gpu: per kernel, per stream, per launching context, host wait and GPU idle', async (t) => {
  const r = await hyprof(['report', dir, '--gpu', '--json']);
  t.is(r.code, 0, r.stderr);
  const g = JSON.parse(r.stdout) as GpuReport;
  const saxpy = g.kernels.find((k) => k.name === 'saxpy');
  t.deepEqual([saxpy?.calls, saxpy?.time, saxpy?.min, saxpy?.max, saxpy?.streams], [3, 420, 100, 200, ['0/1/7']]);
  t.is(g.kernels.find((k) => k.name === '[CUDA memcpy DtoH]')?.bytes, (8 << 20) + 4096);
  const s7 = g.streams.find((s) => s.stream === '7');
  t.deepEqual([s7?.busy, s7?.span], [470, 659]);
  t.true(Math.abs((s7?.idleShare ?? 0) - 189 / 659) < 1e-9);
  t.deepEqual(
    g.launches.filter((l) => l.name === 'saxpy').map((l) => [l.context, l.calls, l.time]),
    [
      ['.TAU application => Iteration 1 => solve => cudaLaunchKernel', 2, 220],
      ['.TAU application => Iteration 2 => solve => cudaLaunchKernel', 1, 200],
    ],
  );
  t.is(g.hostWait, 100);
  // The GPU's time cut by the host's waits, from 1,000 to 660,000 ns of the GPU clock: busy 560,000
  // (the union of the kernels, copies and set), waiting 100,000 (500,000-600,000), both 80,000.
  t.deepEqual(
    g.cut.map((c) => [c.process, c.span, c.hostWaitingGpuBusy, c.hostWaitingGpuIdle, c.hostNotWaitingGpuBusy, c.hostNotWaitingGpuIdle, c.late]),
    [['process 0.0', 659_000, 80_000, 20_000, 480_000, 79_000, 0]],
  );
  t.is(g.cut[0].idleShareOfWait, 0.2);
  t.deepEqual(g.cutNotes, []);
  t.true(Math.abs(g.gpuIdleShare - (1 - (100 + 470 + 140) / (100 + 659 + 330))) < 1e-9);
  const text = await hyprof(['report', dir, '--gpu']);
  t.regex(text.stdout, /GPU STREAMS/);
  t.regex(text.stdout, /GPU AND HOST OVER TIME \(µs\): process 0\.0, 659 µs/);
  t.regex(text.stdout, /host waiting, GPU idle\s+20\.00\s+3\.0\s+20\.0 % of the host's wait/);
  t.regex(text.stdout, /host not waiting, GPU idle\s+79\.00\s+12\.0\s+79\.8 % of the GPU's idle time/);
  // A profile without GPU threads: one line, non-zero.
  const plain = join(tmpDir('cuda-plain'), 'p');
  t.is((await hyprof(['run', '--dir', plain, '--', 'true'])).code, 0);
  const none = await hyprof(['report', plain, '--gpu']);
  t.not(none.code, 0);
  t.regex(none.stderr, /^hyprof: --gpu: .* has no GPU threads/);
  t.is(none.stderr.trim().split('\n').length, 1, none.stderr);
});

// Traced (HYPROF_TRACE=1): the fixture's GPU records (GPU clock, ns after its base): stream 7 HtoD
// 1,000-41,000, saxpy 50,000-150,000, 160,000-280,000, 300,000-500,000, memset 650,000-660,000;
// stream 13 scale 300,000-350,000, DtoH 520,000-600,000 and 620,000-630,000; the host waits
// (synchronisation) 500,000-600,000.
maybeTraced('traced: each GPU stream an OTF2 location under its process, the wait on the launching thread, report --gpu cuts the time', async (t) => {
  const exe = compileC('cuda_fixture', ['cuda_fixture.c'], { cflags: ['-O1', '-g', `-I${cuda}/include`], ldflags: [`-L${libDir}`, '-lhyprof_cuda'] });
  const tdir = join(tmpDir('cuda-fixture-traced'), 'profile');
  const r = await run(exe, [], { env: { HYPROF_DIR: tdir, HYPROF_SAMPLING: '0', HYPROF_TRACE: '1' } });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /trace: traces\.otf2 \(OTF2, 3 locations/, 'the host thread and two GPU streams');
  t.is(readTauProfileDir(tdir).threads[0].length, 4, 'the profile is the untraced one');

  // OTF2's own reader.
  const py = spawnSync(PYTHON, [join(repoRoot, 'test', 'helpers', 'otf2_check.py'), join(tdir, 'traces.otf2')], { encoding: 'utf8' });
  t.is(py.status, 0, py.stderr);
  type Loc = { name: string; group: string; group_type: string; group_creator: string | null; type: string; mismatched: number; backwards: number; open_at_end: number; first: number; regions: Record<string, { incl: number; calls: number; lead: number }> };
  const locs = (JSON.parse(py.stdout) as { locations: Loc[] }).locations;
  t.deepEqual(locs.map((l) => l.name), ['thread 0', 'GPU 0 context 1 stream 7', 'GPU 0 context 1 stream 13'], 'the GPU lanes after the host thread');
  const [host, s7, s13] = locs;
  for (const l of locs) t.deepEqual([l.mismatched, l.backwards, l.open_at_end], [0, 0, 0], l.name);
  for (const l of [s7, s13]) {
    t.regex(l.type, /ACCELERATOR_STREAM|LocationType\.GPU/, 'OTF2_LOCATION_TYPE_ACCELERATOR_STREAM (python3-otf2 names it GPU)');
    t.regex(l.group_type, /ACCELERATOR/);
    t.is(l.group_creator, host.group, 'the device\'s group is created by the process');
  }
  t.deepEqual(s7.regions['[GPU] saxpy'], { incl: 420_000, calls: 3, lead: 0 });
  t.deepEqual(s7.regions['[GPU] [CUDA memcpy HtoD]'], { incl: 40_000, calls: 1, lead: 0 });
  t.deepEqual(s7.regions['[GPU] [CUDA memset]'], { incl: 10_000, calls: 1, lead: 0 });
  t.deepEqual(s13.regions['[GPU] scale'], { incl: 50_000, calls: 1, lead: 0 });
  t.deepEqual(s13.regions['[GPU] [CUDA memcpy DtoH]'], { incl: 90_000, calls: 2, lead: 0 });
  t.deepEqual(host.regions['[GPU] [CUDA context synchronize]'], { incl: 100_000, calls: 1, lead: 0 }, 'the wait, on the thread that waited');
  t.is(s13.first - s7.first, 299_000, 'one clock for both streams');

  // hyprof's reader: the wait at its GPU time on the host lane; the lanes belong to the process.
  const model = buildModel(await readTrace(tdir));
  const [hl, l7] = model.lanes;
  t.deepEqual(model.lanes.map((l) => [l.gpu, l.process === hl.process]), [[false, true], [true, true], [true, true]]);
  const wait = [...Array(hl.count).keys()].find((k) => model.defs.regions.get(hl.region[k])?.name === '[GPU] [CUDA context synchronize]') as number;
  t.is(hl.start[wait] - l7.start[0], 499_000);

  // The cut report --gpu prints (the CUDA layer's bounded sets) is the one the trace's lanes give.
  const rep = await hyprof(['report', tdir, '--gpu', '--json']);
  t.is(rep.code, 0, rep.stderr);
  const { cut: [c] } = JSON.parse(rep.stdout) as GpuReport;
  t.deepEqual(traceGpuCut(model).get(hl.process), { span: c.span, hostWaitingGpuBusy: c.hostWaitingGpuBusy, hostWaitingGpuIdle: c.hostWaitingGpuIdle, hostNotWaitingGpuBusy: c.hostNotWaitingGpuBusy, hostNotWaitingGpuIdle: c.hostNotWaitingGpuIdle });
  t.is(c.hostWaitingGpuIdle, 20_000);

  // Chrome's trace format: the GPU lanes named, after the host thread.
  const chrome = await hyprof(['export', tdir, '--format', 'chrome']);
  t.is(chrome.code, 0, chrome.stderr);
  const evs = (JSON.parse(chrome.stdout) as { traceEvents: Array<{ name: string; ph: string; tid: number; args?: { name?: string } }> }).traceEvents;
  const names = evs.filter((e) => e.name === 'thread_name').map((e) => [e.tid > 0 && e.tid >= 1_000_000, e.args?.name]);
  t.deepEqual(names, [[false, 'thread 0'], [true, 'GPU 0 context 1 stream 7'], [true, 'GPU 0 context 1 stream 13']]);
  t.is(evs.filter((e) => e.ph === 'X' && e.name === '[GPU] saxpy').length, 3);
});

// More intervals than the CUDA layer keeps (10,000 kernels 1 µs apart, 5,000 waits): it adds up the
// time before the middle of a full set and keeps the rest, so memory stays bounded and the cut exact
// (the trace's). Then a record that reaches the layer after its time was added up: counted as late.
maybeTraced('more GPU intervals than the layer keeps: the cut stays exact; a late record is counted', async (t) => {
  const exe = compileC('cuda_fixture', ['cuda_fixture.c'], { cflags: ['-O1', '-g', `-I${cuda}/include`], ldflags: [`-L${libDir}`, '-lhyprof_cuda'] });
  const tdir = join(tmpDir('cuda-fixture-many'), 'profile');
  const r = await run(exe, ['many', '10000'], { env: { HYPROF_DIR: tdir, HYPROF_SAMPLING: '0', HYPROF_TRACE: '1', HYPROF_KEEP_RAW: '1', HYPROF_RAW_DIR: join(tdir, '..', 'raw') } });
  t.is(r.code, 0, r.stderr);
  const rawDir = join(tdir, '..', 'raw');
  const spans = readRawFile(join(rawDir, readdirSync(rawDir).find((f) => f.endsWith('.raw')) as string)).cuda?.spans;
  t.true((spans?.settled ?? 0) > 0 && (spans?.busy.length ?? 5000) < 5000, 'the layer added up part of the run and kept less than it saw');
  t.is(spans?.late, 2000, 'the copy that came after its time was added up');
  const model = buildModel(await readTrace(tdir));
  const exact = traceGpuCut(model).get(model.lanes[0].process);
  const rep = await hyprof(['report', tdir, '--gpu', '--json']);
  t.is(rep.code, 0, rep.stderr);
  const { cut: [c] } = JSON.parse(rep.stdout) as GpuReport;
  t.deepEqual(exact, c && { span: c.span, hostWaitingGpuBusy: c.hostWaitingGpuBusy, hostWaitingGpuIdle: c.hostWaitingGpuIdle, hostNotWaitingGpuBusy: c.hostNotWaitingGpuBusy, hostNotWaitingGpuIdle: c.hostNotWaitingGpuIdle });
  t.true((exact?.hostWaitingGpuIdle ?? 0) >= 5000 * 500, 'each of the 5,000 waits outlasts its kernel by 0.5 µs');
  t.is(c?.late, 2000);
  // A template kernel in a namespace: demangled as its source says it, in the profile and the trace.
  const s22 = readTauProfileDir(tdir).threads[0].find((th) => meta(th, 'CUDA Stream') === '22');
  t.truthy(s22 && ev(s22, '[GPU] solver::reduce<256>'), 'the profile names _ZN6solver6reduceILi256EEEvPKfPfi solver::reduce<256>');
  t.true([...model.defs.regions.values()].some((g) => g.name === '[GPU] solver::reduce<256>'));
  // cudaStreamWaitEvent: named, on the host thread's lane, and no host wait (the cut above equals the
  // lanes', whose waits leave it out; counted as a wait it would add 300 ns of waiting with the GPU idle).
  const kernels = (JSON.parse(rep.stdout) as GpuReport).kernels;
  t.is(kernels.find((k) => k.name === '[CUDA stream wait event]')?.calls, 1);
  t.is((JSON.parse(rep.stdout) as GpuReport).hostWait, 100 + 5000 * 1.5, 'the waits in µs: the first run\'s and 5,000 of 1.5 µs');
  const text = await hyprof(['report', tdir, '--gpu']);
  t.regex(text.stdout, /\(2\.00 µs of GPU activity or waits reached hyprof after their time had been added up/);
});

// The CUDA layer's record processing (records.c, spans.c) under AddressSanitizer and UBSan: the
// fixture's records and 20,000 more, traced, so that every path of the bounded sets runs.
maybe('the CUDA layer under ASan and UBSan: no report', async (t) => {
  const san = ['-fsanitize=address,undefined', '-fno-omit-frame-pointer', '-fno-sanitize-recover=undefined'];
  const out = tmpDir('cuda-asan');
  const objects: string[] = [];
  for (const f of readdirSync(join(repoRoot, 'native', 'cuda')).filter((x) => x.endsWith('.c'))) {
    const o = join(out, `${f}.o`);
    const cc = spawnSync('gcc', ['-std=gnu11', '-O1', '-g', '-fPIC', ...san, `-I${join(repoRoot, 'native', 'include')}`, `-I${join(repoRoot, 'native')}`, `-I${cuda}/include`, '-c', join(repoRoot, 'native', 'cuda', f), '-o', o], { encoding: 'utf8' });
    if (cc.status !== 0) return t.fail(cc.stderr);
    objects.push(o);
  }
  const layer = join(out, 'libhyprof_cuda.so');
  const ld = spawnSync('gcc', ['-shared', ...san, '-o', layer, ...objects, `-L${libDir}`, '-lhyprof', `-L${cuda}/lib64`, '-lcupti', `-Wl,-rpath,${libDir}`, `-Wl,-rpath,${cuda}/lib64`], { encoding: 'utf8' });
  if (ld.status !== 0) return t.fail(ld.stderr);
  const exe = compileC('cuda_fixture_asan', ['cuda_fixture.c'], { cflags: ['-O1', '-g', ...san, `-I${cuda}/include`], ldflags: [`-L${out}`, '-lhyprof_cuda', `-Wl,-rpath,${out}`] });
  const r = await run(exe, ['many', '20000'], { env: { HYPROF_DIR: join(out, 'profile'), HYPROF_SAMPLING: '0', HYPROF_TRACE: '1', ASAN_OPTIONS: 'detect_leaks=0' } });
  t.is(r.code, 0, r.stderr);
  t.notRegex(r.stderr, /ERROR: AddressSanitizer|runtime error/);
});

/** CRC-32C (Castagnoli), as the trace file's blocks carry it (docs/raw-format.md). */
function crc32c(parts: Buffer[]): number {
  let c = 0xffffffff;
  for (const p of parts)
    for (const byte of p) {
      c ^= byte;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    }
  return (c ^ 0xffffffff) >>> 0;
}

// A damaged GPU record (its block's checksum made right again, so only the record is wrong): the
// resolve refuses the trace file in one line naming it and the place, and writes nothing.
maybeTraced('a GPU record of the wrong size in a trace file is refused in one line', async (t) => {
  const exe = compileC('cuda_fixture', ['cuda_fixture.c'], { cflags: ['-O1', '-g', `-I${cuda}/include`], ldflags: [`-L${libDir}`, '-lhyprof_cuda'] });
  const dir = tmpDir('cuda-fixture-damaged');
  const r = await run(exe, [], { env: { HYPROF_DIR: dir, HYPROF_SAMPLING: '0', HYPROF_TRACE: '1', HYPROF_RESOLVE: '0' } });
  t.is(r.code, 0, r.stderr);
  const trace = join(dir, readdirSync(dir).find((f) => f.endsWith('.trace')) as string);
  const buf = Buffer.from(readFileSync(trace));
  // Blocks after the 32-byte file header: magic, kind, thread, gen, length, crc32, then 24 more bytes
  // of header; RECORDS (1) and SNAPSHOT (2) blocks hold records of 16 + 8n bytes.
  let damagedAt = -1;
  for (let at = 32; at + 48 <= buf.length && damagedAt < 0; at += 48 + buf.readUInt32LE(at + 16)) {
    const kind = buf.readUInt32LE(at + 4);
    const len = buf.readUInt32LE(at + 16);
    if (kind !== 1 && kind !== 2) continue;
    for (let off = 0; off + 16 <= len; off += 16 + 8 * buf[at + 48 + off + 14]) {
      if (buf[at + 48 + off + 15] !== 33) continue; // kind 33: a GPU record (3 more words)
      buf[at + 48 + off + 14] = 2;
      buf.writeUInt32LE(crc32c([buf.subarray(at + 24, at + 48), buf.subarray(at + 48, at + 48 + len)]), at + 20);
      damagedAt = at + 48 + off;
      break;
    }
  }
  t.true(damagedAt > 0, 'a GPU record found');
  writeFileSync(trace, buf);
  const out = tmpDir('cuda-fixture-damaged-out');
  const res = await hyprof(['resolve', dir, '-o', out]);
  t.is(res.code, 2, res.stderr);
  t.regex(res.stderr.trim(), new RegExp(`^hyprof: ${trace.replace(/[.]/g, '\\.')}: offset ${damagedAt}: record \\d+ of the block \\(kind 33\\) has 2 words, not the kind's: this trace file is damaged; it is not converted$`));
  t.false(existsSync(join(out, 'profile.0.0.0')), 'nothing written');
});
