// An ordinary npm program with no worker thread and no hyprof import, for test/node-builtins.test.ts:
// the TypeScript compiler from node_modules parses and type-checks generated source on the main
// thread only, so V8's copy of node's builtins is mapped after the only measured thread started.
import { createRequire } from 'node:module';

const ts = createRequire(import.meta.url)('typescript');

let text = '';
for (let i = 0; i < 150; i++) text += `export function f${i}(a: number, b: string): string { const x = { a, b, i: ${i} }; return b + a * ${i} + x.b; }\n`;
let diagnostics = 0;
for (let r = 0; r < 2; r++) {
  const file = `/virtual/m${r}.ts`;
  const host = ts.createCompilerHost({});
  const get = host.getSourceFile;
  host.getSourceFile = (name, lang) => (name === file ? ts.createSourceFile(file, text, lang) : get.call(host, name, lang));
  host.fileExists = (name) => name === file || ts.sys.fileExists(name);
  diagnostics += ts.createProgram([file], { noLib: true, noEmit: true }, host).getSemanticDiagnostics().length;
}
console.log(`diagnostics ${diagnostics}`);
