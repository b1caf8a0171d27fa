// A real JavaScript workload for the sampling tests (test/node-real.test.ts): the TypeScript compiler
// from node_modules parses and type-checks generated source (its own bundled functions), with much
// allocation (garbage collection), inside a region entered across an await; a worker thread runs the
// same work. Prints the pid so the test can look for V8's perf map.
import { createRequire } from 'node:module';
import { Worker, isMainThread } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const { region } = await import(process.env.HYPROF_MODULE ?? 'hyprof');

function source(n) {
  let s = '';
  for (let i = 0; i < n; i++) s += `export function f${i}(a: number, b: string): string { const x = { a, b, i: ${i} }; return b + a * ${i} + x.b; }\n`;
  return s;
}

function check(rounds) {
  let diagnostics = 0;
  for (let r = 0; r < rounds; r++) {
    const file = `/virtual/m${r}.ts`;
    const text = source(100);
    const host = ts.createCompilerHost({});
    const get = host.getSourceFile;
    host.getSourceFile = (name, lang) => (name === file ? ts.createSourceFile(file, text, lang) : get.call(host, name, lang));
    host.fileExists = (name) => name === file || ts.sys.fileExists(name);
    const program = ts.createProgram([file], { noLib: true, noEmit: true }, host);
    diagnostics += program.getSemanticDiagnostics().length;
  }
  return diagnostics;
}

async function pause() {
  await new Promise((r) => setTimeout(r, 5));
}

if (isMainThread) {
  const worker = new Worker(new URL(import.meta.url));
  const done = new Promise((r) => worker.once('exit', r));
  const total = await region('compile work', async () => {
    let d = 0;
    for (let i = 0; i < 2; i++) {
      await pause();
      d += check(1);
    }
    return d;
  });
  await done;
  const { statSync } = await import('node:fs');
  let mode = 'none';
  try {
    mode = (statSync(`/tmp/perf-${process.pid}.map`).mode & 0o777).toString(8);
  } catch {
    // no perf map
  }
  console.log(`pid ${process.pid} diagnostics ${total} perf map mode ${mode}`);
} else {
  check(1);
}
