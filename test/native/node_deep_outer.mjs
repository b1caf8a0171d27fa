// The outermost JavaScript frame of test/native/node_deep.mjs's deep stacks, in a file of its own:
// it runs `work` many times between clock reads, so few samples land in its own code, and it lies
// far beyond the innermost 10 frames of every other sample (their chains in the TAU profile do not
// reach it; the complete stacks do).
export function repeatFor(ms, work) {
  const end = Date.now() + ms;
  let n = 0;
  while (Date.now() < end) for (let k = 0; k < 200; k++) n += work();
  return n;
}
