/**
 * Writes the raw files of a made-up MPI run of many ranks, for the scale test and the resolve
 * benchmark (bench/mpi-scale.ts): what a real run of an iterative solver would leave, rank by rank,
 * written byte for byte in the raw format (test/raw-fixture.ts). Per rank: the events of the
 * program (main, 10 iterations as phases, solve, compute_flux, exchange_halo, io_write) and of its
 * MPI calls, about 120 contexts, `threads` threads (thread 0 runs everything, the others compute
 * compute_flux as a team would), sampled call paths into a real shared object
 * (the C library, so symbolization runs for real), the MPI layer's byte events and its call sites.
 * Rank r computes longer than rank 0 (imbalance), so the reports have something to find.
 * Deterministic: the same arguments give the same files.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Bytes, encodeSections, assemble, type Fixture, type FixtureContext, type FixtureSample, type FixtureStat } from '../raw-fixture.js';

export interface GenOptions {
  ranks: number;
  threads: number;
  /** Distinct sampled call paths per thread. */
  samples?: number;
  seed?: number;
}

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The C library this process uses, and addresses of functions in it (module addresses). */
function libcFunctions(): { path: string; addrs: bigint[] } {
  const maps = readFileSync('/proc/self/maps', 'utf8');
  const path = /\s(\/\S*libc\.so\.6)\s*$/m.exec(maps)?.[1] ?? '/lib/x86_64-linux-gnu/libc.so.6';
  const nm = spawnSync('nm', ['-D', '--defined-only', path], { encoding: 'utf8' });
  const addrs = (nm.stdout ?? '')
    .split('\n')
    .map((l) => /^([0-9a-f]+) [Tt] /.exec(l)?.[1])
    .filter((x): x is string => !!x)
    .slice(0, 400)
    .map((h) => BigInt(`0x${h}`) + 8n);
  return { path, addrs: addrs.length > 0 ? addrs : [0x28000n] };
}

const MPI = ['MPI_Init()', 'MPI_Finalize()', 'MPI_Comm_rank()', 'MPI_Comm_size()', 'MPI_Isend()', 'MPI_Irecv()', 'MPI_Waitall()', 'MPI_Allreduce()', 'MPI_Bcast()', 'MPI_Barrier()'];
const USER = ['Message size sent to all nodes', 'Message size received from all nodes', 'Message size for all-reduce', 'Message size for broadcast'];

/** Write `ranks` raw files into dir; returns their paths. */
export function generateRanks(dir: string, o: GenOptions): string[] {
  const random = rng(o.seed ?? 42);
  const libc = libcFunctions();
  const base = 0x7f0000000000n;
  const files: string[] = [];
  const events: Fixture['events'] = [
    { kind: 3, name: '.TAU application', group: 'TAU_UTILITY' },
    { name: 'main' },
    { name: 'solve' },
    { name: 'compute_flux' },
    { name: 'exchange_halo' },
    { name: 'io_write' },
    ...MPI.map((name) => ({ name, group: 'MPI' })),
    ...Array.from({ length: 10 }, (_, i) => ({ kind: 1, name: `Iteration ${i}`, group: 'TAU_USER|TAU_PHASE' })),
  ];
  const ev = (name: string) => events.findIndex((e) => e.name === name);
  const pool = Array.from({ length: 40 }, () => {
    const depth = 1 + Math.floor(random() * 5);
    return Array.from({ length: depth }, () => base + libc.addrs[Math.floor(random() * Math.min(libc.addrs.length, 60))]);
  });
  for (let r = 0; r < o.ranks; r++) {
    const contexts: FixtureContext[] = [];
    let nextCtx = 0x1000n + BigInt(r) * 0x100000n;
    const ctx = (parent: bigint, name: string): bigint => {
      const c = nextCtx++;
      contexts.push({ context: c, parent, event: ev(name) });
      return c;
    };
    const root = ctx(0n, '.TAU application');
    const main = ctx(root, 'main');
    const work = 1 + r / Math.max(1, o.ranks - 1); // the last rank computes twice what rank 0 does
    const ms = 1_000_000;
    const stats: FixtureStat[] = [];
    const put = (c: bigint, calls: number, incl: number, excl: number) => stats.push({ context: c, calls, incl: [Math.round(incl)], excl: [Math.round(excl)] });
    const sampled: bigint[] = [];
    let total = 0;
    put(ctx(main, 'MPI_Init()'), 1, 300 * ms, 300 * ms);
    put(ctx(main, 'MPI_Comm_rank()'), 1, 1000, 1000);
    put(ctx(main, 'MPI_Comm_size()'), 1, 1000, 1000);
    total += 300 * ms;
    for (let i = 0; i < 10; i++) {
      const it = ctx(main, `Iteration ${i}`);
      const solve = ctx(it, 'solve');
      const flux = ctx(solve, 'compute_flux');
      const halo = ctx(solve, 'exchange_halo');
      const isend = ctx(halo, 'MPI_Isend()');
      const irecv = ctx(halo, 'MPI_Irecv()');
      const wait = ctx(halo, 'MPI_Waitall()');
      const allr = ctx(solve, 'MPI_Allreduce()');
      const fluxT = 40 * ms * work * (0.998 + 0.004 * random());
      const waitT = 2 * ms * random();
      const allrT = 40 * ms * (2 - work) + ms * random();
      put(flux, 4, fluxT, fluxT);
      put(isend, 8, 0.05 * ms, 0.05 * ms);
      put(irecv, 8, 0.04 * ms, 0.04 * ms);
      put(wait, 4, waitT, waitT);
      put(halo, 4, waitT + 0.09 * ms + 0.1 * ms, 0.1 * ms);
      put(allr, 4, allrT, allrT);
      const solveT = fluxT + waitT + 0.19 * ms + allrT + 0.5 * ms;
      put(solve, 1, solveT, 0.5 * ms);
      put(it, 1, solveT + 0.2 * ms, 0.2 * ms);
      total += solveT + 0.2 * ms;
      sampled.push(flux, wait, allr);
    }
    const io = ctx(main, 'io_write');
    put(io, 2, 20 * ms, 20 * ms);
    put(ctx(main, 'MPI_Finalize()'), 1, 50 * ms, 50 * ms);
    total += 70 * ms;
    put(main, 1, total, 1 * ms);
    put(root, 1, total + 2 * ms, 2 * ms);
    // Every rank runs the same code: its samples come from one pool of call paths.
    const chain = (): bigint[] => pool[Math.floor(random() * pool.length)];
    // Worker threads: a team computing under their own root (compute_flux), sampled there.
    const workerFlux = ctx(root, 'compute_flux');
    const fluxTotal = stats.filter((x) => contexts.find((c) => c.context === x.context)?.event === ev('compute_flux')).reduce((n, x) => n + x.incl[0], 0);
    const threads: Fixture['threads'] = [];
    for (let t = 0; t < o.threads; t++) {
      const samples: FixtureSample[] = [];
      for (let s = 0; s < (o.samples ?? 60); s++) {
        const c = t === 0 ? sampled[Math.floor(random() * sampled.length)] : workerFlux;
        const count = 1 + Math.floor(random() * 20);
        samples.push({ context: c, count, values: [count * ms], pcs: chain() });
      }
      threads.push({
        index: t,
        tid: 10000 * r + t,
        name: t === 0 ? '' : `OpenMP worker ${t}`,
        stats:
          t === 0
            ? stats
            : [
                { context: root, calls: 1, incl: [Math.round(total)], excl: [Math.round(total - 0.9 * fluxTotal)] },
                { context: workerFlux, calls: 10, incl: [Math.round(0.9 * fluxTotal)], excl: [Math.round(0.9 * fluxTotal)] },
              ],
        user:
          t === 0
            ? [
                { event: 0, count: 80, min: 4096, max: 4096, sum: 80 * 4096, sumsqr: 80 * 4096 * 4096 },
                { event: 1, count: 80, min: 4096, max: 4096, sum: 80 * 4096, sumsqr: 80 * 4096 * 4096 },
                { event: 2, count: 40, min: 8, max: 8, sum: 320, sumsqr: 40 * 64 },
              ]
            : [],
        samples,
      });
    }
    const pid = 20000 + r;
    const fixture: Fixture = {
      pid,
      node: r,
      flags: (1 << 5) | (1 << 6),
      startNs: 1_700_000_000_000_000_000n,
      stopNs: 1_700_000_000_000_000_000n + BigInt(Math.round(total)),
      attributes: [
        ['Hostname', `node${Math.floor(r / 32)}`],
        ['MPI Rank', String(r)],
        ['MPI World Size', String(o.ranks)],
        ['MPI Run Id', 'openmpi:generated'],
        ['MPI Rank Source', 'MPI_Comm_rank'],
        ['HYPROF_CALLPATH', 'on'],
        ['HYPROF_CALLPATH_DEPTH', '100'],
        ['HYPROF_SAMPLING', '1'],
      ],
      events,
      contexts,
      threads,
      userEvents: USER.map((n, i) => [i, n]),
      maps: [{ start: base, end: base + 0x200000n, bias: base, path: libc.path }],
      sampling: { unwind: true, depth: 10 },
    };
    const sections = encodeSections(fixture);
    // The MPI layer's call sites (docs/raw-format.md, tag 10).
    const sites = new Bytes().u32(2);
    for (const [name, c] of [['MPI_Allreduce()', sampled[2]], ['MPI_Waitall()', sampled[1]]] as const) {
      sites.u32(0).u32(ev(name)).u64(c).u64(base + libc.addrs[0] + 5n).u64(base).str(libc.path).u64(40).u64(10 * ms);
    }
    sections.push({ tag: 10, payload: sites.buffer });
    const file = join(dir, `hyprof.generated.${pid}.${1_700_000_000_000_000 + r}.raw`);
    writeFileSync(file, assemble(sections));
    files.push(file);
  }
  return files;
}
