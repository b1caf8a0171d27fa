/**
 * Symbolization benchmark: 100,000 distinct addresses across three modules (libc, libstdc++ and the
 * node executable), spread evenly over their executable segments, resolved the way `hyprof resolve`
 * does it (maps → module addresses → one batch per module through one pipe). Prints the time and
 * the share resolved; `--tool addr2line` measures the fallback.
 *
 *   node dist/bench/symbolize.js [--tool llvm-symbolizer|addr2line] [--n 100000]
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Symbolizer } from '../src/symbolize/symbolizer.js';
import { RawContexts, RawStats, type RawMapping, type RawProcess, type RawSample } from '../src/samples/raw-model.js';

const MODULES = ['/usr/lib/x86_64-linux-gnu/libc.so.6', '/usr/lib/x86_64-linux-gnu/libstdc++.so.6', process.execPath];

function execSegment(path: string): { vaddr: bigint; size: bigint } {
  const out = spawnSync('readelf', ['-lW', path], { encoding: 'utf8' }).stdout;
  let best: { vaddr: bigint; size: bigint } | null = null;
  for (const line of out.split('\n')) {
    const m = /^\s*LOAD\s+0x[0-9a-f]+ (0x[0-9a-f]+) 0x[0-9a-f]+ 0x[0-9a-f]+ (0x[0-9a-f]+) R E/.exec(line);
    if (m && (!best || BigInt(m[2]) > best.size)) best = { vaddr: BigInt(m[1]), size: BigInt(m[2]) };
  }
  if (!best) throw new Error(`${path}: no executable segment`);
  return best;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const tool = (args[args.indexOf('--tool') + 1] ?? 'llvm-symbolizer') as 'llvm-symbolizer' | 'addr2line';
  const nIdx = args.indexOf('--n');
  const total = nIdx >= 0 ? Number(args[nIdx + 1]) : 100_000;
  const maps: RawMapping[] = [];
  const samples: RawSample[] = [];
  MODULES.forEach((path, i) => {
    const seg = execSegment(path);
    const bias = BigInt(0x7f0000000000 + i * 0x10000000000);
    maps.push({ start: bias + seg.vaddr, end: bias + seg.vaddr + seg.size, bias, path, buildId: '' });
    const n = Math.floor(total / MODULES.length) + (i < total % MODULES.length ? 1 : 0);
    const step = seg.size / BigInt(n);
    for (let k = 0n; k < BigInt(n); k++) {
      samples.push({ context: 1n, count: 1, values: [1], state: 0, pcs: [bias + seg.vaddr + k * step] });
    }
  });
  const contexts = RawContexts.of([]);
  const proc = {
    file: 'bench.raw',
    version: 1,
    info: { pid: 1, ppid: 0, node: 0, flags: 0, startNs: 0n, stopNs: 0n, metrics: ['TIME'], attributes: [] },
    events: [],
    contexts,
    threads: [{ index: 0, tid: 1, name: '', startNs: 0n, stopNs: 0n, flags: 0, stats: RawStats.of(contexts, 1, []), open: [], userStats: [], drops: [], warnings: [], samples }],
    userEvents: new Map(),
    maps,
    sampling: null,
  } as RawProcess;

  const t0 = performance.now();
  const s = new Symbolizer({ symbolizer: tool });
  await s.prepare([proc]);
  let resolved = 0;
  for (const r of samples) if (s.resolve(proc, r.pcs[0], false).resolved) resolved++;
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    `${tool}: ${samples.length} distinct addresses in ${MODULES.length} modules: ${seconds.toFixed(2)} s ` +
      `(${Math.round(samples.length / seconds)} addresses/s), ${((100 * resolved) / samples.length).toFixed(1)}% resolved; ` +
      `${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}`,
  );
  if (s.warnings.length > 0) console.log(s.warnings.join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
