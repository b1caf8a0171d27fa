// Folding a Node async region by its instances (test/node-fold.test.ts, docs/fold.md): N instances
// of the async region "request", one after the other, each spinning in parse() for its first 30 %
// (of `ms` milliseconds), then awaiting (a macrotask turn of the event loop), then spinning in
// render() for the other 70 %. The regions are separated by pauses of pseudo-random length spent in
// idle() outside any region, so samples fall at every phase of the instances. The hyprof module is
// given by HYPROF_MODULE (the built dist/src/index.js), so the program runs as a user's would.
//   node node_fold.mjs N ms [clock]
// clock "wall" (default): the spins count wall-clock time; "cpu": the process's CPU time, so the
// truth holds on an oversubscribed machine too, folded over CPU_TIME (as fold_truth.c's "cpu").
const { region } = await import(process.env.HYPROF_MODULE);

const n = Number(process.argv[2] ?? 200);
const ms = Number(process.argv[3] ?? 5);
const cpuClock = process.argv[4] === 'cpu';
const now = cpuClock
  ? () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    }
  : () => performance.now();
// Turns of the inner loop between two reads of the clock: reading the CPU time is a system call
// (getrusage), which would otherwise be where most samples fall.
const turns = cpuClock ? 20000 : 200;

// Each spins (in its own loop: the fold names a sample by its innermost function) until a point in
// time counted from the instance's start, so the await's own time is inside the part before
// render(), and render() ends the instance.
function parse(until) {
  let s = 0;
  while (now() < until) for (let i = 0; i < turns; i++) s += i * 1e-9;
  return s;
}
function render(until) {
  let s = 0;
  while (now() < until) for (let i = 0; i < turns; i++) s += i * 1e-9;
  return s;
}
function idle(until) {
  let s = 0;
  while (now() < until) for (let i = 0; i < turns; i++) s += i * 1e-9;
  return s;
}

let seed = 12345;
let sink = 0;
for (let i = 0; i < n; i++) {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  sink += idle(now() + (ms * 0.2 * ((seed >>> 8) % 1000)) / 1000);
  sink += await region('request', async () => {
    const start = now();
    let s = parse(start + 0.3 * ms);
    await new Promise((resolve) => setImmediate(resolve));
    s += render(start + ms);
    return s;
  });
}
console.log('done', n, sink > 0);
