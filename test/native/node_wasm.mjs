// WebAssembly functions that do the program's work: `spin(n)`, a loop of n multiply-adds, built here
// from its bytes twice: a module without a name section (V8 and `--cpu-prof` call the function
// `wasm-function[0]`) and one whose name section calls it `named_spin`; each called from JavaScript
// for about half a second.
const section = (id, bytes) => [id, bytes.length, ...bytes];
const body = [
  1, 1, 0x7f, // one local i32: the accumulator
  0x02, 0x40, 0x03, 0x40, // block, loop
  0x20, 0, 0x45, 0x0d, 1, // n == 0: leave the block
  0x20, 1, 0x41, 31, 0x6c, 0x20, 0, 0x6a, 0x21, 1, // acc = acc * 31 + n
  0x20, 0, 0x41, 1, 0x6b, 0x21, 0, // n -= 1
  0x0c, 0, 0x0b, 0x0b, // again; end loop, end block
  0x20, 1, 0x0b, // return acc
];
const name = Buffer.from('named_spin');
const module = (named) =>
  new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [1, 0x60, 1, 0x7f, 1, 0x7f]), // type: (i32) -> i32
    ...section(3, [1, 0]), // one function of that type
    ...section(7, [1, 4, ...Buffer.from('spin'), 0, 0]), // exported as spin
    ...section(10, [1, body.length, ...body]),
    // the custom section "name": function names (subsection 1), function 0 named
    ...(named ? section(0, [4, ...Buffer.from('name'), 1, name.length + 3, 1, 0, name.length, ...name]) : []),
  ]);
let acc = 0;
let calls = 0;
for (const named of [false, true]) {
  const { instance } = await WebAssembly.instantiate(module(named));
  const started = Date.now();
  for (; Date.now() - started < 500; calls++) acc = (acc + instance.exports.spin(20_000_000)) | 0;
}
console.log(`wasm: ${calls} calls, ${acc}`);
