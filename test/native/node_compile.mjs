// A Node program that spends its time compiling (test/node-threads.test.ts): one JavaScript function
// asks V8 again and again to compile a large generated script (new Function, a different source each
// time, so nothing comes from V8's compilation cache).
const body = Array.from(
  { length: 1500 },
  (_, i) => `function f${i}(a, b) { const c = a * ${i} + b; return c > ${i} ? c - ${i} : [a, b, c].map((x) => x + ${i}).length; }`,
).join('\n');

function compileMany(ms) {
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) {
    new Function(`${body}\nreturn ${n};`);
    n++;
  }
  return n;
}

console.log(`compiled ${compileMany(800)} scripts`);
