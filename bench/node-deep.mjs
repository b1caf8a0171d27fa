// Child of bench/node-unwind.ts: a JavaScript stack of a chosen depth over CPU-bound work, so that
// every sample unwinds that many JavaScript frames (plus node's own ~40 native frames under them).
// Usage: node bench/node-deep.mjs DEPTH ITERATIONS. Prints the result, so the work is not elided.
const depth = Number(process.argv[2] ?? 50);
const iterations = Number(process.argv[3] ?? 3e7);
if (!(depth >= 1) || !(iterations >= 1)) {
  console.error('usage: node bench/node-deep.mjs DEPTH>=1 ITERATIONS>=1');
  process.exit(2);
}
function leaf(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.sqrt(i);
  return s;
}
function down(d, n) {
  return d <= 1 ? leaf(n) : down(d - 1, n) + 1;
}
let total = 0;
for (let r = 0; r < 20; r++) total += down(depth, iterations / 20);
console.log(total);
