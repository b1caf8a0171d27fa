// An HTTP server under a bounded local load generator: node:http rendering a JSON page (a list of
// records filtered, sorted and serialised per request), loaded by autocannon with 10 connections for
// a fixed number of requests. autocannon runs as a child process with a clean environment (no
// profiler preloaded into it) and is not waited for, so neither its samples nor its CPU time count
// for the server; the server exits once it answered every request.
// With `--timed` after the request count, the server also measures its own handler and the part of
// it in `res.end()` with the wall clock, and prints both (ms) on stderr as it exits, as a line
// `{"timed":{...}}`: what a profiler's wall-clock estimate of the same run is checked against
// (bench/node-server-truth.ts).
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';

const requests = Number(process.argv[2] ?? 10000);
const records = Array.from({ length: 400 }, (_, i) => ({ id: i, name: `item-${i}`, score: (i * 7919) % 1000, tags: ['a', 'b', 'c'].slice(i % 3) }));
let served = 0;
const timed = process.argv[3] === '--timed';
const spent = { handlerMs: 0, endMs: 0 };
if (timed) process.on('exit', () => console.error(JSON.stringify({ timed: spent })));
let loader;
const server = createServer((req, res) => {
  const t0 = timed ? performance.now() : 0;
  const min = Number(new URL(req.url, 'http://x').searchParams.get('min') ?? 0);
  const body = JSON.stringify(records.filter((r) => r.score >= min).sort((a, b) => b.score - a.score).slice(0, 100));
  res.writeHead(200, { 'content-type': 'application/json' });
  const t1 = timed ? performance.now() : 0;
  res.end(body);
  if (timed) {
    const t2 = performance.now();
    spent.endMs += t2 - t1;
    spent.handlerMs += t2 - t0;
  }
  if (++served === requests) {
    loader.kill();
    server.close();
    server.closeAllConnections();
    console.log(`server: ${served} requests`);
  }
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(LD_PRELOAD|NODE_OPTIONS|HYPROF_)/.test(k)));
  const bin = join(import.meta.dirname, 'node_modules', 'autocannon', 'autocannon.js');
  loader = spawn(process.execPath, [bin, '-c', '10', '-a', String(requests + 200), `http://127.0.0.1:${port}/?min=200`], {
    env, stdio: 'ignore', detached: true,
  });
  loader.unref();
});
