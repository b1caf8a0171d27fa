/**
 * V8's copy of node's embedded builtins (docs/node.md, "What resolve does with a Node profile") in a
 * program whose only measured thread is the main one (the default HYPROF_NODE_THREADS=js, no worker):
 * V8 maps the copy after that thread started and unmaps it before the exit dump, so it must be
 * recorded when it is mapped (native/sample/maps.c, the mmap interposer). Without it a loop calling
 * Math.sqrt left about 17 % of its samples UNRESOLVED. Real node, real programs: a one-liner and the
 * TypeScript compiler from node_modules.
 */
import test from 'ava';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { hyprof, testNativeDir, tmpDir } from './helpers/native.js';

interface Leaf {
  name: string;
  excl: number;
}

async function mainThreadLeaves(name: string, args: string[]): Promise<{ leaves: Leaf[]; stderr: string }> {
  const out = join(tmpDir(name), 'prof');
  const r = await hyprof(['run', '--dir', out, '--', process.execPath, ...args], {
    env: { NODE_OPTIONS: undefined, HYPROF_NODE_THREADS: undefined },
    timeoutMs: 170_000,
  });
  if (r.code !== 0) throw new Error(`hyprof run exited ${r.code}: ${r.stderr}`);
  const main = readTauProfileDir(out).threads[0].find((t) => t.thread === 0)!;
  // every sample once: the leaf entries of the full paths
  const leaves = main.events
    .filter((e) => e.group.includes('TAU_CALLPATH') && e.group.includes('TAU_SAMPLE') && / => \[SAMPLE\] /.test(e.name))
    .map((e) => ({ name: e.name.slice(e.name.lastIndexOf(' => [SAMPLE] ') + 4), excl: e.excl }));
  return { leaves, stderr: r.stderr };
}

const share = (ls: Leaf[], pick: (l: Leaf) => boolean) => ls.filter(pick).reduce((a, l) => a + l.excl, 0) / ls.reduce((a, l) => a + l.excl, 0);
const unresolved = (ls: Leaf[]) => share(ls, (l) => /UNRESOLVED/.test(l.name));
const listing = (ls: Leaf[]) => ls.map((l) => `${l.name} ${l.excl}`).join('\n');

test.serial('a loop calling a builtin, main thread only: < 1 % unresolved', async (t) => {
  const { leaves } = await mainThreadLeaves('node-builtins-loop', ['-e', 'let s=0; for(let i=0;i<3e7;i++) s+=Math.sqrt(i)']);
  t.true(leaves.length > 0);
  const u = unresolved(leaves);
  t.true(u < 0.01, `unresolved share of the main thread ${(100 * u).toFixed(1)} %:\n${listing(leaves)}`);
});

test.serial('the TypeScript compiler, main thread only: < 1 % unresolved', async (t) => {
  const { leaves } = await mainThreadLeaves('node-builtins-tsc', [join(testNativeDir, 'node_tsc_main.mjs')]);
  t.true(leaves.length > 0);
  const u = unresolved(leaves);
  t.true(u < 0.01, `unresolved share of the main thread ${(100 * u).toFixed(1)} %:\n${listing(leaves)}`);
});
