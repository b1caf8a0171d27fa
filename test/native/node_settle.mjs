// A Node program whose async regions await known wall times (test/node-settle.test.ts): one region
// awaiting a 30 ms timer, 20 times one after the other; then ten regions at once, the i-th awaiting
// 20 + 2·i ms (20 … 38 ms); a parameter region awaiting 5 ms twice and 10 ms once; and one region
// still pending when the program exits. The hyprof module to import is given by HYPROF_MODULE (the
// built dist/src/index.js), so it runs as a user's would.
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

const { region, param } = await import(process.env.HYPROF_MODULE);

// A little own code before and after each await: the region's own time stays far below its wall time.
function work(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s = (s + Math.sqrt(i)) % 1e9;
  return s;
}

// The wall time of each await as the program itself sees it (performance.now() just before and just
// after): a region's settle time holds its await, so it is at least this, and only a little more.
const inner = { awaited: [], concurrent: [] };
async function timed(list, ms) {
  const t0 = performance.now();
  await sleep(ms);
  list.push(performance.now() - t0);
}

let out = 0;
await region('main', async () => {
  for (let i = 0; i < 20; i++) {
    out += await region('awaited 30 ms', async () => {
      const a = work(2000);
      await timed(inner.awaited, 30);
      return a + work(2000);
    });
  }
  const waits = Array.from({ length: 10 }, (_, i) => 20 + 2 * i);
  const done = await Promise.all(
    waits.map((ms) =>
      region('concurrent 20-38 ms', async () => {
        const a = work(1000);
        await timed(inner.concurrent, ms);
        return a + work(1000);
      }),
    ),
  );
  out += done.reduce((a, b) => a + b, 0);
  // a parameter region: its settle time per parameter value, and the region's own
  for (const ms of [5, 5, 10]) await param('param awaited', { ms }, async () => sleep(ms));
});

// Pending at exit: recorded with its time so far, not as a settle time. The timer is unref'd, so the
// program exits about 10 ms from now, with the region still waiting.
region('pending at exit', async () => {
  await new Promise((resolve) => setTimeout(resolve, 60_000).unref());
});
setTimeout(() => console.log(JSON.stringify({ done: out > 0, inner })), 10);
