// For test/node-v8jit.test.ts: an optimised hot loop between full collections that compact the heap
// (run with --expose-gc --compact-on-every-full-gc --stress-compaction): the code space would be
// compacted too, and code moved while it runs, unless hyprof's preload turned that off.
function movedHot(ms) {
  const end = Date.now() + ms;
  let s = 0;
  while (Date.now() < end) {
    for (let i = 0; i < 100000; i++) s = (s + Math.sqrt(i) * 1.0001) % 1e9; // HOT LINE
  }
  return s;
}

let t = 0;
for (let round = 0; round < 40; round++) {
  t += movedHot(40);
  globalThis.gc();
}
console.log(`result ${t > 0}`);
