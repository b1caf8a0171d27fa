/**
 * When hyprof's V8 part does not start, it is said, with why: in a node of another ABI (a V8 part
 * built for another Node, helpers/v8-part.ts: node refuses it with its own message, kept whole), by
 * the preload `hyprof run` gives node. The program runs on.
 */
import test from 'ava';
import { join } from 'node:path';
import { run } from './helpers/native.js';
import { packageWithV8PartOfAnotherAbi } from './helpers/v8-part.js';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Node's own refusal of a module of ABI `abi`, as one line. */
const abiReason = (part: string, abi: string) =>
  `The module '${part}' was compiled against a different Node.js version using NODE_MODULE_VERSION ${abi}. ` +
  `This version of Node.js requires NODE_MODULE_VERSION ${process.versions.modules}.`;

test('the preload in a node of another ABI says so once, with node\'s reason, and the program runs', async (t) => {
  const pkg = packageWithV8PartOfAnotherAbi();
  const preload = join(pkg.root, 'dist', 'src', 'events', 'v8-jit-preload.cjs');
  const program = "const { Worker } = require('node:worker_threads'); new Worker('0', { eval: true }).on('exit', () => console.log('ran'));";
  const r = await run(process.execPath, ['--require', preload, '-e', program], { env: { LD_PRELOAD: undefined, NODE_OPTIONS: undefined } });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), 'ran');
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('hyprof:'));
  t.is(lines.length, 1, r.stderr);
  t.regex(
    lines[0],
    new RegExp(
      `^hyprof: ${esc(pkg.part)} does not load in this node ${esc(process.version)} \\(${esc(abiReason(pkg.part, pkg.abi))} .*\\): ` +
        `its JavaScript frames stay UNRESOLVED; HYPROF_V8_JIT=0 names them from V8's perf map instead, or rebuild hyprof with this node \\(docs/install\\.md\\)$`,
    ),
  );
});
