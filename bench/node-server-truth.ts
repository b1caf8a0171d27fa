/**
 * bench/node-server-truth: a wall-clock profiler's estimate of where an HTTP server's time goes,
 * checked against the server's own clock in the same run, for `node --cpu-prof` and for hyprof.
 * bench/node-programs/server.mjs with `--timed` measures its request handler and the part of it in
 * `res.end()` (which writes the response: node's write path down to `writev`) with
 * `performance.now()` and prints both as it exits. Each profiler's estimate is the wall time of the
 * samples whose stack holds that function: the handler (server.mjs's `createServer` callback) and node's `end`
 * (node:_http_outgoing), from `.cpuprofile`'s time deltas and from hyprof's stacks file. The two
 * profilers run interleaved, rounds as given; the ratio estimate ÷ measured per round, min and median.
 * Run: node dist/bench/node-server-truth.js [rounds] [requests]
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { asHyprofRun, largestRaw } from './node-run.js';
import { readStacksFiles } from '../src/profile/stacks-file.js';
import { cliPath, repoRoot, tmpDir } from '../test/helpers/native.js';
import { conditions, fmt, interleave, Samples } from './lib.js';
import { spawnSync } from 'node:child_process';

const rounds = Number(process.argv[2] ?? 4);
const requests = process.argv[3] ?? '10000';
const server = join(repoRoot, 'bench', 'node-programs', 'server.mjs');
const node = process.execPath;
const dir = tmpDir('node-server-truth');

interface Spent {
  handlerMs: number;
  endMs: number;
}

/** The request handler's lines in server.mjs: from `createServer((req, res) => {` to its `});`. */
const source = readFileSync(server, 'utf8').split('\n');
const first = source.findIndex((l) => l.includes('createServer((req, res) => {')) + 1;
const last = source.findIndex((l, i) => i >= first && l === '});') + 1;
if (first < 1 || last < first) throw new Error(`${server}: no request handler found`);

/**
 * Where each function is found in a profile: the handler by its file and a line within it (a
 * `.cpuprofile` gives a function's first line, hyprof the line a frame was at), node's `end` by its
 * module.
 */
const isHandler = (fn: string, file: string, line: number) => fn === '(anonymous)' && file.endsWith('/server.mjs') && line >= first && line <= last;
const isEnd = (fn: string, file: string) => fn === 'end' && file === 'node:_http_outgoing';

/** The server's run: its own measurements, from the line it prints on stderr. */
function run(args: string[], env: NodeJS.ProcessEnv): Spent {
  const r = spawnSync(node, args, { env, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`server failed (${r.status}): ${r.stderr}`);
  const line = r.stderr.split('\n').find((l) => l.startsWith('{"timed":'));
  if (!line) throw new Error(`the server printed no timing: ${r.stderr}`);
  return (JSON.parse(line) as { timed: Spent }).timed;
}

/** Wall ms of the samples whose stack holds the handler, and `end`, in a .cpuprofile. */
function fromCpuprof(file: string): Spent {
  const p = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const out = { handlerMs: 0, endMs: 0 };
  p.samples.forEach((id, i) => {
    let handler = false;
    let end = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      const file = f.url.replace(/^file:\/\//, '');
      handler ||= isHandler(f.functionName || '(anonymous)', file, f.lineNumber + 1); // V8 leaves an arrow function's name empty
      end ||= isEnd(f.functionName, file);
    }
    const ms = (p.timeDeltas[i] ?? 0) / 1000;
    if (handler) out.handlerMs += ms;
    if (end) out.endMs += ms;
  });
  return out;
}

/** The same from hyprof's stacks file (the main thread). */
function fromHyprof(profDir: string): Spent {
  const f = readStacksFiles(profDir)[0];
  const t = f?.threads.find((x) => x.thread === 0);
  if (!f || !t) throw new Error(`${profDir}: no stacks of the main thread`);
  const time = Math.max(0, f.metrics.indexOf('TIME'));
  const out = { handlerMs: 0, endMs: 0 };
  t.samples.forEach((n, i) => {
    if (!n) return;
    let handler = false;
    let end = false;
    for (let at = i; at >= 0; at = t.parent[at]) {
      const [fn, file, line] = f.frames[t.frame[at]];
      handler ||= isHandler(fn, file, Number(line));
      end ||= isEnd(fn, file);
    }
    const ms = (t.values[time][i] ?? 0) / 1000;
    if (handler) out.handlerMs += ms;
    if (end) out.endMs += ms;
  });
  return out;
}

type Config = 'node --cpu-prof' | 'hyprof';
const ratios = new Samples();
const rows: string[] = [];
console.log(`workload: node ${server} ${requests} --timed`);
console.log(`before: ${conditions()}`);
interleave<Config>(['node --cpu-prof', 'hyprof'], rounds, (config, round) => {
  const base = { ...process.env, NODE_OPTIONS: '' };
  let measured: Spent;
  let estimate: Spent;
  if (config === 'node --cpu-prof') {
    const d = join(dir, `cpuprof-${round}`);
    measured = run(['--cpu-prof', '--cpu-prof-interval', '1000', '--cpu-prof-dir', d, server, requests, '--timed'], base);
    const main = readdirSync(d).find((x) => /\.0\.\d+\.cpuprofile$/.test(x)) ?? readdirSync(d)[0];
    estimate = fromCpuprof(join(d, main));
  } else {
    const raw = join(dir, `raw-${round}`);
    mkdirSync(raw, { recursive: true });
    const { env, args } = asHyprofRun(base, raw, [server, requests, '--timed']);
    measured = run(args, env);
    const out = join(dir, `prof-${round}`);
    rmSync(out, { recursive: true, force: true });
    const r = spawnSync(node, [cliPath, 'resolve', '-o', out, largestRaw(raw)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`hyprof resolve failed: ${r.stderr}`);
    estimate = fromHyprof(out);
  }
  for (const k of ['handlerMs', 'endMs'] as const) ratios.add(`${config} ${k}`, estimate[k] / measured[k]);
  rows.push(
    `| ${config} | ${round} | ${fmt(measured.handlerMs, 0)} | ${fmt(estimate.handlerMs, 0)} (${fmt(estimate.handlerMs / measured.handlerMs)}) | ` +
      `${fmt(measured.endMs, 0)} | ${fmt(estimate.endMs, 0)} (${fmt(estimate.endMs / measured.endMs)}) |`,
  );
});
console.log(`after: ${conditions()}`);
console.log(`${rounds} rounds, interleaved\n`);
console.log('| profiler | round | handler, measured ms | handler, estimated ms (÷ measured) | res.end(), measured ms | res.end(), estimated ms (÷ measured) |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log('\n| profiler | handler: estimate ÷ measured, min / median | res.end(): estimate ÷ measured, min / median |');
console.log('|---|---|---|');
for (const c of ['node --cpu-prof', 'hyprof']) {
  const h = ratios.get(`${c} handlerMs`);
  const e = ratios.get(`${c} endMs`);
  console.log(`| ${c} | ${fmt(h.min)} / ${fmt(h.median)} | ${fmt(e.min)} / ${fmt(e.median)} |`);
}
