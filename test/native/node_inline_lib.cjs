// A library function small enough for V8 to inline into its caller in another file
// (test/native/node_inline_main.cjs; test/node-v8log.test.ts).
'use strict';

function helper(x) {
  let s = 0;
  for (let i = 0; i < 40; i++) s += Math.sqrt(x + i);
  return s;
}

module.exports = { helper };
