/**
 * V8's own work in a Node sample's chain (src/resolve/v8-groups.ts): the collector and the compiler
 * each one frame, and a compilation the chain shows a JavaScript function asking for charged to that
 * function, as `node --cpu-prof` charges it. Frames innermost first, named as node's symbols name them;
 * then a real Node program that compiles from one function (test/native/node_compile.mjs).
 */
import test from 'ava';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { COMPILE_GROUP, GC_GROUP, v8GroupEntry, v8GroupFold } from '../src/resolve/v8-groups.js';
import { hyprof, testNativeDir, tmpDir } from './helpers/native.js';

// a lazy compilation: the parser at work, under the compiler, under the builtin a call into a
// not yet compiled function went through, under the JavaScript function that made the call
const lazyCompile = [
  'v8::internal::Scanner::Next()',
  'v8::internal::Parser::ParseFunctionLiteral(v8::internal::AstRawString const*)',
  'v8::internal::parsing::ParseFunction(v8::internal::ParseInfo*)',
  'v8::internal::Compiler::Compile(v8::internal::Isolate*, v8::internal::Handle<v8::internal::JSFunction>)',
  'v8::internal::Runtime_CompileLazy(int, unsigned long*, v8::internal::Isolate*)',
  'Builtins_CEntry_Return1_ArgvOnStack_NoBuiltinExit',
  'Builtins_CompileLazy',
  'checkIdentifier',
  'checkExpression',
];
const jsFrom = (first: number) => (i: number) => i >= first;

test('a compilation the chain shows JavaScript asking for is that function’s own time', (t) => {
  const g = v8GroupEntry(lazyCompile, jsFrom(7));
  t.deepEqual(g, { at: 6, group: COMPILE_GROUP, js: 7 });
  // every frame inside the function's call is dropped: checkIdentifier is the leaf
  t.deepEqual(v8GroupFold(g!), { drop: 7, named: false });
});

test('a compilation with no JavaScript frame in the chain (cut by the depth) stays (compile)', (t) => {
  const cut = lazyCompile.slice(0, 5);
  const g = v8GroupEntry(cut, () => false);
  t.deepEqual(g, { at: 4, group: COMPILE_GROUP, js: null });
  t.deepEqual(v8GroupFold(g!), { drop: 5, named: true });
});

test('the garbage collector stays (garbage collector), also under JavaScript and under the compiler', (t) => {
  const gc = [
    'v8::internal::Scavenger::ScavengePage(v8::internal::MemoryChunk*)',
    'v8::internal::ScavengerCollector::CollectGarbage()',
    'v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace)',
    'v8::internal::Factory::NewFixedArray(int)',
    'v8::internal::Parser::ParseProgram(v8::internal::Isolate*)',
    'v8::internal::Compiler::Compile(v8::internal::Isolate*)',
    'Builtins_CompileLazy',
    'bind',
  ];
  const g = v8GroupEntry(gc, jsFrom(7));
  // the collector is what ran: its group, folded from the compiler's outermost frame down
  t.deepEqual(g, { at: 6, group: GC_GROUP, js: 7 });
  t.deepEqual(v8GroupFold(g!), { drop: 7, named: true });
});

test('no V8 group: a JavaScript leaf, or native code of no group', (t) => {
  t.is(v8GroupEntry(['checkIdentifier', 'v8::internal::Compiler::Compile()'], jsFrom(0)), null, 'a group beyond the JavaScript leaf is not what runs');
  t.is(v8GroupEntry(['__memcpy_avx_unaligned', 'node::fs::Read(v8::FunctionCallbackInfo<v8::Value> const&)'], () => false), null);
});

test('a real program compiling from one function: the time is that function’s, not (compile)', async (t) => {
  const app = join(testNativeDir, 'node_compile.mjs');
  const out = join(tmpDir('v8-compile'), 'prof');
  // unwound to the root, so that every chain reaches the JavaScript function
  const r = await hyprof(['run', '--dir', out, '--', process.execPath, app], { env: { NODE_OPTIONS: undefined, HYPROF_UNWIND_DEPTH: '0' } });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /compiled \d+ scripts/);
  const main = readTauProfileDir(out).threads[0].find((x) => x.thread === 0)!;
  const leaves = main.events.filter((e) => e.name.startsWith('[SAMPLE] '));
  const total = leaves.reduce((a, e) => a + e.excl, 0);
  const of = (pick: (name: string) => boolean) => leaves.filter((e) => pick(e.name)).reduce((a, e) => a + e.excl, 0);
  const asker = of((n) => n.startsWith(`[SAMPLE] compileMany [{${app}}`));
  const compile = of((n) => n === `[SAMPLE] ${COMPILE_GROUP}`);
  t.true(asker > 0.2 * total, `compileMany ${((100 * asker) / total).toFixed(1)} % of the main thread's samples`);
  t.true(asker > 3 * compile, `compileMany ${asker} µs against (compile) ${compile} µs`);
});
