// A Node program measured by hyprof's probe API (test/node-api.test.ts): regions, a phase, parameter
// regions, a timer, a group, async regions that overlap, a worker thread, and a CPU-bound hot
// JavaScript function. The hyprof module to import is given by HYPROF_MODULE (the built
// dist/src/index.js), so the program runs as a user's would.
import { Worker, isMainThread } from 'node:worker_threads';
import { setTimeout as sleep } from 'node:timers/promises';

const { region, phase, param, timer, group, flush } = await import(process.env.HYPROF_MODULE);

// Work that takes CPU time; what it computes is printed so it cannot be optimised away.
function hotFunction(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s = (s + Math.sqrt(i) * 1.0001) % 1e9;
  return s;
}

// The CPU-bound hot function the profile must name: called once, so no caller inlines it (V8
// compiles its loop on the stack, OSR).
function hotLoop(ms) {
  const end = performance.now() + ms;
  let s = 0;
  while (performance.now() < end) for (let i = 0; i < 5000; i++) s = (s + Math.sqrt(i) * 1.0001) % 1e9;
  return s;
}

function spinFor(ms) {
  const end = performance.now() + ms;
  let s = 0;
  while (performance.now() < end) s += hotFunction(1000);
  return s;
}

if (!isMainThread) {
  let s = 0;
  for (let i = 0; i < 3; i++) s += region('worker task', () => hotFunction(200000));
  console.log('worker', s > 0);
} else {
  let out = 0;
  phase('setup', () => {
    out += region('init', () => hotFunction(1000));
  });
  for (let i = 0; i < 4; i++) out += param('solve', { n: i % 2 }, () => region('kernel', () => hotFunction(10000)));
  const io = timer('io');
  for (let i = 0; i < 2; i++) {
    io.start();
    out += hotFunction(100);
    io.stop();
  }
  const disk = group('IO');
  disk.region('read', () => hotFunction(100));

  // Two async regions that overlap: each continues after its awaits while the other is waiting.
  const [a, b] = await Promise.all([
    region('fetchA', async () => {
      await sleep(30);
      const x = region('inA', () => hotFunction(1000));
      await sleep(30);
      return x + region('inA', () => hotFunction(1000));
    }),
    region('fetchB', async () => {
      await sleep(20);
      const x = region('inB', () => hotFunction(1000));
      await sleep(30);
      return x + region('inB', () => hotFunction(1000));
    }),
  ]);
  out += a + b;
  // A plain function that returns a promise is an async region too (here: its parameter event).
  out += await param('load', { part: 3 }, () => sleep(25).then(() => 1));

  // While `waiter` is suspended, `busy` runs on the same thread: its samples are busy's, not waiter's.
  const waiting = region('waiter', async () => {
    await sleep(250);
    return 1;
  });
  out += region('busy', () => spinFor(200));
  out += await waiting;

  // The CPU-bound hot function, sampled.
  out += region('hot', () => hotLoop(300));

  const w = new Worker(new URL(import.meta.url), { env: process.env });
  await new Promise((resolve, reject) => {
    w.on('exit', resolve);
    w.on('error', reject);
  });
  flush();
  console.log('main', out > 0);
}
