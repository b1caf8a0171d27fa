// A library function small enough for V8 to inline into its caller in another file
// (test/native/node_inline_main.cjs; test/node-v8log.test.ts); what it calls is never optimised, so
// it stays a call of its own, made from the inlined code.
'use strict';

function leafWork(x) {
  let s = 0;
  for (let i = 0; i < 40; i++) s += Math.sqrt(x + i);
  return s;
}

function helper(x) {
  return leafWork(x) + 1;
}

// run with --allow-natives-syntax: V8's own directive, in a function compiled only then
if (process.execArgv.includes('--allow-natives-syntax')) new Function('f', '%NeverOptimizeFunction(f)')(leafWork);

module.exports = { helper };
