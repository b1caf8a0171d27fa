// Child of bench/node-probe-cost.ts: nanoseconds per probe pair from JavaScript, each way of
// measuring in the same process, after a warm-up (so every path is JIT-compiled).
// Usage: node bench/node-probe-loop.mjs <hyprof index.js> <pairs>
const { region, timer, loadAddon } = await import(process.argv[2]);
const pairs = Number(process.argv[3]);
const native = loadAddon();
const id = native.event('raw pair');
const t = timer('timer pair');
const work = () => 1;
let sink = 0;

const ways = {
  'empty loop (calls fn)': () => { for (let i = 0; i < pairs; i++) sink += work(); },
  'performance.now() x2': () => { for (let i = 0; i < pairs; i++) sink += performance.now() - performance.now(); },
  'addon start/stop (by id)': () => { for (let i = 0; i < pairs; i++) { native.start(id); sink += work(); native.stop(id); } },
  'timer().start()/stop()': () => { for (let i = 0; i < pairs; i++) { t.start(); sink += work(); t.stop(); } },
  "region('r', fn)": () => { for (let i = 0; i < pairs; i++) sink += region('r', work); },
  'performance.mark x2 + measure': () => {
    const n = Math.min(pairs, 200_000); // the timeline keeps every entry: cleared per chunk
    for (let done = 0; done < pairs; done += n) {
      for (let i = 0; i < n; i++) { performance.mark('a'); sink += work(); performance.mark('b'); performance.measure('m', 'a', 'b'); }
      performance.clearMarks(); performance.clearMeasures();
    }
  },
};
for (const f of Object.values(ways)) f(); // warm-up
for (const [name, f] of Object.entries(ways)) {
  const t0 = process.hrtime.bigint();
  f();
  const t1 = process.hrtime.bigint();
  console.log(`${name}\t${Number(t1 - t0) / pairs}`);
}
if (sink === 42) console.log('');
