#!/usr/bin/env node
// Checks what scripts/device-check.sh brought back from a GPU machine (docs/gpu.md), with the package
// built here (dist/): resolves the raw file, then
//   - every kernel and copy is present on the host thread under the context that launched it
//     (`Iteration i => solve => [GPU] spin`, 15 spin launches per iteration), and in the raw records
//     under the parameter value of that iteration (`solve [ <n> = <N> ]`);
//   - the copies' bytes are exactly those the program copied;
//   - the kernels' time per iteration is within 10 % of the program's CUDA-event timings;
//   - the overhead per kernel launch (the quiet loop with and without the CUDA layer, min of 3);
//   - the traced run: each spin launch an interval on a GPU stream's lane, the waits on the host, the
//     cut of the GPU's time by report --gpu.
// Usage: node scripts/device-check-verify.mjs OUT_DIR      exit 0 when every check holds, else 1.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2];
if (!out || !existsSync(join(out, 'events.jsonl'))) {
  console.error(`device-check-verify: ${out ?? '(no directory given)'}: no events.jsonl (run scripts/device-check.sh on a GPU machine first)`);
  process.exit(1);
}
const { readRawFile } = await import(join(root, 'dist/src/samples/raw-reader.js'));
const { readTauProfileDir } = await import(join(root, 'dist/src/profile/tau-reader.js'));
const { displayName } = await import(join(root, 'dist/src/profile/tau-model.js'));

const rawFiles = readdirSync(join(out, 'raw')).filter((f) => f.endsWith('.raw'));
if (rawFiles.length !== 1) {
  console.error(`device-check-verify: ${join(out, 'raw')}: ${rawFiles.length} raw files (1 expected)`);
  process.exit(1);
}
const rawPath = join(out, 'raw', rawFiles[0]);
const profileDir = join(out, 'profile');
const r = spawnSync(process.execPath, [join(root, 'dist/src/cli/main.js'), 'resolve', '-o', profileDir, rawPath], { encoding: 'utf8' });
if (r.status !== 0) {
  console.error(`device-check-verify: resolve failed: ${r.stderr}`);
  process.exit(1);
}
const lines = readFileSync(join(out, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const threads = readTauProfileDir(profileDir).threads[0];
const raw = readRawFile(rawPath);
const problems = [];
const said = [];
const check = (ok, text) => (ok ? said : problems).push(`${ok ? 'ok  ' : 'FAIL'} ${text}`);

const host = threads[0];
const ev = (t, name) => t.events.find((e) => displayName(e.name) === name);
const sizes = [...new Set(lines.filter((l) => l.kernel).map((l) => l.n))].sort((a, b) => a - b);
sizes.forEach((n, i) => {
  const at = `.TAU application => Iteration ${i + 1} => solve`;
  check(ev(host, `${at} => [GPU] spin`)?.calls === 15, `${at} => [GPU] spin: ${ev(host, `${at} => [GPU] spin`)?.calls} calls (15 launched)`);
  for (const k of ['[GPU] scale', '[GPU] [CUDA memcpy HtoD]', '[GPU] [CUDA memcpy DtoH]']) check(ev(host, `${at} => ${k}`)?.calls === 1, `${at} => ${k}: ${ev(host, `${at} => ${k}`)?.calls} calls (1)`);
  // Kernel time of the iteration against the CUDA events of its launches.
  const cudaUs = lines.filter((l) => l.kernel === 'spin' && l.n === n).reduce((s, l) => s + l.ms * 1000, 0);
  const ours = ev(host, `${at} => [GPU] spin`)?.incl ?? 0;
  const dev = Math.abs(ours - cudaUs) / cudaUs;
  check(dev <= 0.1, `Iteration ${i + 1} spin: ${ours.toFixed(1)} µs by CUPTI, ${cudaUs.toFixed(1)} µs by CUDA events (${(dev * 100).toFixed(2)} %, at most 10 %)`);
});
// The launching context of each kernel record names the parameter value of its iteration.
const chain = (c) => {
  const names = [];
  for (let x = raw.contexts.get(c); x; x = raw.contexts.get(x.parent)) names.push(raw.events[x.event].name);
  return names.join(' <= ');
};
for (const rec of (raw.cuda?.records ?? []).filter((x) => x.kind === 1 && /spin/.test(x.name))) {
  const c = chain(rec.hostContext);
  check(sizes.some((n) => c.includes(String(n))) && /Iteration \d/.test(c), `spin x${rec.count} launched in ${c || '(no context)'}`);
}
// Bytes exact.
const gpuThreads = threads.filter((t) => t.metadata.some(([k]) => k === 'CUDA Stream'));
const bytes = (name) => gpuThreads.flatMap((t) => t.userEvents.filter((u) => u.name === `GPU Bytes : ${name}`)).reduce((s, u) => s + Math.round(u.mean * u.count), 0);
for (const [kind, name] of [['HtoD', '[CUDA memcpy HtoD]'], ['DtoH', '[CUDA memcpy DtoH]']]) {
  const want = lines.filter((l) => l.copy === kind).reduce((s, l) => s + l.bytes, 0);
  check(bytes(name) === want, `${name}: ${bytes(name)} bytes (${want} copied)`);
}
check(gpuThreads.length >= 2, `${gpuThreads.length} GPU stream threads (2 streams used)`);
check((raw.cuda?.droppedByCupti ?? -1) === 0 && (raw.cuda?.droppedByHyprof ?? -1) === 0, `dropped: ${raw.cuda?.droppedByCupti} by CUPTI, ${raw.cuda?.droppedByHyprof} by hyprof`);
// The traced run: every spin launch an interval on a GPU stream's lane, the host's waits on its
// thread, and the cut of the GPU's time (report --gpu).
if (existsSync(join(out, 'traced'))) {
  const tprofile = join(out, 'traced-profile');
  const tr = spawnSync(process.execPath, [join(root, 'dist/src/cli/main.js'), 'resolve', '-o', tprofile, join(out, 'traced')], { encoding: 'utf8' });
  check(tr.status === 0, `traced run resolved: ${(tr.stderr ?? '').trim().split('\n').pop()}`);
  if (tr.status === 0) {
    const { readTrace } = await import(join(root, 'dist/src/trace/otf2-index.js'));
    const { buildModel } = await import(join(root, 'dist/src/trace/trace-model.js'));
    const model = buildModel(await readTrace(tprofile));
    const named = (l, name) => [...Array(l.count).keys()].filter((k) => model.defs.regions.get(l.region[k])?.name === name).length;
    const gpuLanes = model.lanes.filter((l) => l.gpu);
    const spins = gpuLanes.reduce((s, l) => s + named(l, '[GPU] spin'), 0);
    const launched = lines.filter((l) => l.kernel === 'spin').length;
    check(gpuLanes.length >= 2 && spins === launched, `trace: ${gpuLanes.length} GPU stream lanes, ${spins} spin intervals (${launched} launched)`);
    const waits = model.lanes.filter((l) => !l.gpu).reduce((s, l) => s + [...Array(l.count).keys()].filter((k) => /synchronize\]$/.test(model.defs.regions.get(l.region[k])?.name ?? '')).length, 0);
    check(waits > 0, `trace: ${waits} synchronisations on the host threads`);
    const rep = spawnSync(process.execPath, [join(root, 'dist/src/cli/main.js'), 'report', tprofile, '--gpu', '--json'], { encoding: 'utf8' });
    const o = rep.status === 0 ? JSON.parse(rep.stdout).cut?.[0] : undefined;
    check(o !== undefined && o.span > 0, `report --gpu, the GPU's time cut by the host's waits: ${o ? `span ${(o.span / 1e3).toFixed(0)} µs, host waiting with the GPU busy ${(o.hostWaitingGpuBusy / 1e3).toFixed(0)} µs and idle ${(o.hostWaitingGpuIdle / 1e3).toFixed(0)} µs, GPU idle with the host not waiting ${(o.hostNotWaitingGpuIdle / 1e3).toFixed(0)} µs, late ${(o.late / 1e3).toFixed(0)} µs` : rep.stderr}`);
    // The same cut from the trace's lanes (the tests' second opinion): equal within what came late.
    const oracle = join(root, 'dist/test/helpers/gpu-trace-cut.js');
    if (o && existsSync(oracle)) {
      const { traceGpuCut } = await import(oracle);
      const exact = [...traceGpuCut(model).values()][0];
      const parts = ['hostWaitingGpuBusy', 'hostWaitingGpuIdle', 'hostNotWaitingGpuBusy', 'hostNotWaitingGpuIdle'];
      const off = exact ? Math.max(...parts.map((k) => Math.abs(exact[k] - o[k]))) : Infinity;
      check(off <= o.late + 1000, `the cut against the trace's lanes: off by at most ${(off / 1e3).toFixed(1)} µs (${(o.late / 1e3).toFixed(1)} µs came late)`);
    }
  }
}
// Overhead per launch.
const runs = readFileSync(join(out, 'overhead.txt'), 'utf8').split('\n').filter(Boolean).map((l) => {
  const [mode, ...rest] = l.split(' ');
  return { mode, ...JSON.parse(rest.join(' ')) };
}).filter((x) => x.launches);
const best = (mode) => Math.min(...runs.filter((x) => x.mode === mode).map((x) => x.seconds));
const launches = runs[0]?.launches ?? 0;
if (launches) said.push(`overhead: ${(((best('on') - best('off')) / launches) * 1e6).toFixed(2)} µs per kernel launch (min of ${runs.length / 2} runs each: off ${best('off').toFixed(4)} s, on ${best('on').toFixed(4)} s, ${launches} launches; the loop includes the copies and synchronisation)`);
console.log([...said, ...problems].join('\n'));
process.exit(problems.length ? 1 : 0);
