/**
 * The timeline's load on a large trace: an OTF2 archive of about N events (default 10^7) written by
 * the OTF2 library (test/native/otf2_gen.c `big`: 4 ranks × 2 threads of nested regions and messages),
 * then, configurations interleaved round by round:
 *  - floor: hyprof-otf2-read alone (OTF2's reader into the index, output discarded);
 *  - load:  what `hyprof view` does before serving (read the index, build the model: lanes, messages),
 *           then the first whole-run range query (it builds the summary pyramids), the same query
 *           again, a query of 1 % of the run and one of 10 µs, each at 1,200 pixels.
 * Each: wall, CPU (user + system) and peak resident memory (GNU time), min and median.
 *
 *   node dist/bench/trace-load.js [N] [--rounds R]     (default 10000000, 3 rounds)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { conditions, interleave, summary } from './lib.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const reader = join(root, 'build', 'Release', 'hyprof-otf2-read');

interface Measure {
  wall: number;
  cpu: number;
  peakMb: number;
  stages?: Record<string, number>;
}

function timed(cmd: string[]): Measure {
  const r = spawnSync('/usr/bin/time', ['-f', 'HYPROF_BENCH %e %U %S %M', ...cmd], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const m = /HYPROF_BENCH ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`${cmd.join(' ')} failed (${r.status}):\n${r.stderr.slice(-2000)}`);
  const stages = /^STAGES (.*)$/m.exec(r.stdout);
  return { wall: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), peakMb: Number(m[4]) / 1024, stages: stages ? JSON.parse(stages[1]) : undefined };
}

function sizeMb(p: string): number {
  const st = statSync(p);
  if (!st.isDirectory()) return st.size / 1048576;
  return readdirSync(p).reduce((s, f) => s + sizeMb(join(p, f)), 0);
}

/** The child: the viewer's load and its first queries, each stage timed. */
async function child(dir: string): Promise<void> {
  const { readTrace } = await import('../src/trace/otf2-index.js');
  const { buildModel } = await import('../src/trace/trace-model.js');
  const { TraceQuery } = await import('../src/trace/trace-query.js');
  const stages: Record<string, number> = {};
  let t = performance.now();
  const lap = (name: string): void => {
    const now = performance.now();
    stages[name] = Math.round(now - t);
    t = now;
  };
  const index = await readTrace(dir);
  lap('read ms');
  const events = index.events.reduce((n, e) => n + e.time.length, 0);
  const model = buildModel(index);
  lap('model ms');
  const q = new TraceQuery(model);
  const query = (t0: number, t1: number): number => {
    let blocks = 0;
    for (const l of model.lanes) blocks += q.laneBlocks(l.index, t0, t1, (t1 - t0) / 1200).length;
    return blocks;
  };
  const span = model.last - model.first;
  stages['blocks (whole run)'] = query(model.first, model.last);
  lap('first query ms');
  query(model.first, model.last);
  lap('whole run ms');
  stages['blocks (1 %)'] = query(model.first + span / 2, model.first + span / 2 + span / 100);
  lap('1 % ms');
  query(model.first + span / 3, model.first + span / 3 + 10_000);
  lap('10 µs ms');
  stages.events = events;
  process.stdout.write(`STAGES ${JSON.stringify(stages)}\n`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1]);
  const ri = args.indexOf('--rounds');
  const rounds = ri >= 0 ? Number(args[ri + 1]) : 3;
  const n = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--rounds') ?? 10_000_000);
  const work = mkdtempSync(join(tmpdir(), 'hyprof-trace-bench-'));
  try {
    const gen = join(work, 'otf2_gen');
    const cc = spawnSync('gcc', ['-O2', join(root, 'test', 'native', 'otf2_gen.c'), '-o', gen, '-lopen-trace-format2'], { encoding: 'utf8' });
    if (cc.status !== 0) throw new Error(cc.stderr);
    const dir = join(work, 'run');
    const made = spawnSync(gen, [dir, 'big', String(n)], { encoding: 'utf8' });
    if (made.status !== 0) throw new Error(made.stderr);
    console.log(`# trace load, about ${n} events; archive ${sizeMb(join(dir, 'traces')).toFixed(0)} MB; ${conditions()}`);
    const configs = ['floor: hyprof-otf2-read', 'load: index + model + queries'];
    const results = new Map<string, Measure[]>(configs.map((c) => [c, []]));
    interleave(configs, rounds, (c) => {
      const m =
        c === configs[0]
          ? timed(['sh', '-c', `"${reader}" "${join(dir, 'traces.otf2')}" > /dev/null`])
          : timed([process.execPath, fileURLToPath(import.meta.url), '--child', dir]);
      results.get(c)!.push(m);
    });
    console.log('| configuration | wall s min / median | CPU s min / median | peak MB min / median |');
    console.log('|---|---|---|---|');
    for (const [c, ms] of results) {
      const w = summary(ms.map((m) => m.wall));
      const u = summary(ms.map((m) => m.cpu));
      const p = summary(ms.map((m) => m.peakMb));
      console.log(`| ${c} | ${w.min.toFixed(2)} / ${w.median.toFixed(2)} | ${u.min.toFixed(2)} / ${u.median.toFixed(2)} | ${p.min.toFixed(0)} / ${p.median.toFixed(0)} |`);
    }
    const stages = results.get(configs[1])!.map((m) => m.stages!);
    console.log('\nstages of the load (min / median over the rounds):');
    for (const k of Object.keys(stages[0])) {
      const s = summary(stages.map((x) => x[k]));
      console.log(`  ${k}: ${s.min} / ${s.median}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
