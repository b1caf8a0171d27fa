/**
 * JavaScript functions of every kind named as `node --cpu-prof` names them, with file and line:
 * getters and setters (V8's names have a space, `get node`, which once lost the file and line),
 * class and static methods, an async function, a bound function. The same real script
 * (test/native/node_names.mjs) is run under `node --cpu-prof` and under `hyprof run`; the functions
 * of the script that hold at least 3 % of `--cpu-prof`'s samples must be among hyprof's sampled
 * functions under the same names, in the script's file, at a line of the function.
 */
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { hyprof, run, testNativeDir, tmpDir } from './helpers/native.js';

const script = join(testNativeDir, 'node_names.mjs');

interface CpuNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}

test('getters, setters, methods, async and bound functions: the names of --cpu-prof, with file and line', async (t) => {
  const dir = tmpDir('node-names');
  const cpu = await run(process.execPath, ['--cpu-prof', '--cpu-prof-dir', join(dir, 'cpu'), script, '1500'], {
    env: { NODE_OPTIONS: undefined },
    timeoutMs: 60_000,
  });
  t.is(cpu.code, 0, cpu.stderr);
  const profile = JSON.parse(readFileSync(join(dir, 'cpu', readdirSync(join(dir, 'cpu'))[0]), 'utf8')) as { nodes: CpuNode[] };
  const total = profile.nodes.reduce((a, n) => a + n.hitCount, 0);
  const hits = new Map<string, { hits: number; line: number }>();
  for (const n of profile.nodes) {
    if (!n.callFrame.url.startsWith('file:') || fileURLToPath(n.callFrame.url) !== script || !n.callFrame.functionName) continue;
    const h = hits.get(n.callFrame.functionName) ?? { hits: 0, line: n.callFrame.lineNumber + 1 };
    h.hits += n.hitCount;
    hits.set(n.callFrame.functionName, h);
  }
  const hot = [...hits].filter(([, h]) => h.hits / total >= 0.03);
  // the script's six kinds are all hot under --cpu-prof: the comparison below covers each
  t.deepEqual(hot.map(([n]) => n).sort(), ['boundWork', 'build', 'get node', 'set value', 'settle', 'walk']);

  const out = join(dir, 'prof');
  const r = await hyprof(['run', '--dir', out, '--', process.execPath, script, '1500'], { env: { NODE_OPTIONS: undefined }, timeoutMs: 120_000 });
  t.is(r.code, 0, r.stderr);
  const main = readTauProfileDir(out).threads[0].find((x) => x.thread === 0)!;
  const sampled = main.events
    .filter((e) => e.group.includes('TAU_SAMPLE') && e.excl > 0)
    .map((e) => /\[SAMPLE\] (.*) \[\{(.*)\} \{(\d+)\}\]$/.exec(e.name))
    .filter((m): m is RegExpExecArray => m !== null && m[2] === script)
    .map((m) => ({ fn: m[1], line: Number(m[3]) }));
  for (const [name, { line }] of hot) {
    const found = sampled.filter((s) => s.fn === name);
    t.true(found.length > 0, `${name} (line ${line}) not among hyprof's functions of ${script}: ${JSON.stringify(sampled)}`);
    // the line where the function starts or one inside it (each is a few lines long)
    for (const f of found) t.true(f.line >= line && f.line <= line + 5, `${name} at line ${f.line}, starts at ${line}`);
  }
});
