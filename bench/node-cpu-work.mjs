// Child of bench/node-sampling.ts: a CPU-bound script (fixed work, not fixed time). With argv[2] set
// to hyprof's index.js it loads hyprof (the addon, with its sampling) and measures the work as a
// region. Prints the wall time of the work in ms.
const hyprof = process.argv[2] ? await import(process.argv[2]) : undefined;

function mandel(size) {
  let inside = 0;
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      const cr = (2 * x) / size - 1.5, ci = (2 * y) / size - 1;
      let zr = 0, zi = 0, i = 0;
      while (i < 200 && zr * zr + zi * zi < 4) { const t = zr * zr - zi * zi + cr; zi = 2 * zr * zi + ci; zr = t; i++; }
      if (i === 200) inside++;
    }
  return inside;
}
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function work() { let s = 0; for (let r = 0; r < 8; r++) s += mandel(700) + fib(27); return s; }

const t0 = performance.now();
const c0 = process.cpuUsage();
const s = hyprof ? hyprof.region('work', work) : work();
const c = process.cpuUsage(c0);
const ms = performance.now() - t0;
// wall ms, CPU ms of the whole process over the work (every thread: the sampler's signals count)
console.log(`${ms}\t${(c.user + c.system) / 1000}\t${s}`);
