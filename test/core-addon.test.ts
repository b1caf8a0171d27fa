/**
 * The Node addon is the same runtime: probes from JavaScript land in the same kind of raw file.
 */
import test from 'ava';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readRawFile } from '../src/samples/raw-reader.js';
import { repoRoot, run, tmpDir } from './helpers/native.js';

test('the addon loads through node-gyp-build and records regions, phases and parameters', async (t) => {
  const dir = tmpDir('addon');
  const script = `
    import { loadAddon } from ${JSON.stringify(join(repoRoot, 'dist', 'src', 'index.js'))};
    const h = loadAddon();
    const region = h.event('js region');
    const phase = h.event('js phase', 'TAU_USER', true);
    h.start(phase);
    for (let i = 0; i < 5; i++) { h.start(region); h.param('n', i % 2); h.stop(region); }
    h.stop(phase);
    let threw = '';
    try { h.start(12345); } catch (e) { threw = e.message; }
    console.log(threw);
  `;
  const r = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: { HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0' },
  });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.trim(), 'hyprof: unknown event handle');
  const files = readdirSync(dir).filter((f) => f.endsWith('.raw'));
  t.is(files.length, 1);
  const p = readRawFile(join(dir, files[0]));
  const id = (n: string) => p.events.find((e) => e.name === n)!.id;
  const calls = (n: string) =>
    p.threads[0].stats.list().filter((s) => p.contexts.get(s.context)!.event === id(n)).reduce((a, s) => a + s.calls, 0);
  t.is(calls('js region'), 5);
  t.is(calls('js phase'), 1);
  t.is(calls('js region  [ <n> = <1> ]  '), 2);
  t.is(calls('js region  [ <n> = <0> ]  '), 3);
  t.is(p.events.find((e) => e.name === 'js phase')!.group, 'TAU_USER|TAU_PHASE');
});
