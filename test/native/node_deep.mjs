// A JavaScript recursion 80 frames deep for the complete-stack tests (test/node-stacks.test.ts):
// inside the region "deep work", down(80) calls itself down to down(1), which spins; the region is
// entered before an await and left after it, so the samples stay in its context across the await.
// The loop around down(80) is in node_deep_outer.mjs, far above the samples.
const { region } = await import(process.env.HYPROF_MODULE ?? 'hyprof');
const { repeatFor } = await import('./node_deep_outer.mjs');

let sink = 0;
function spin() {
  let x = 0;
  for (let i = 0; i < 20000; i++) x += Math.sqrt(i + sink);
  return x;
}

function down(n) {
  return n <= 1 ? spin() : down(n - 1) + 1;
}

await region('deep work', async () => {
  await new Promise((r) => setTimeout(r, 1));
  sink += repeatFor(Number(process.env.DEEP_MS ?? 1500), () => (down(80) > 0 ? 1 : 0));
});
console.log(`done ${sink > 0}`);
