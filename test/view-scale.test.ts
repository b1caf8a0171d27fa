/**
 * Large profiles stay responsive because the server answers in bounded pieces: 1,000 threads page
 * by 100 in the main window, a thread with 100,000 events sends 200 tree children and a pruned
 * flame graph at a time. Sizes of the answers are asserted, never times (they are logged).
 */
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { ProfileApi } from '../src/view/api.js';
import { tmpDir } from './helpers/native.js';

/** A profile file in TAU's format; `events` are [name, calls, subrs, excl, incl, group]. */
function writeProfile(file: string, events: Array<[string, number, number, number, number, string]>): void {
  const lines = [
    `${events.length} templated_functions_MULTI_TIME`,
    '# Name Calls Subrs Excl Incl ProfileCalls # <metadata><attribute><name>Metric Name</name><value>TIME</value></attribute></metadata>',
    ...events.map(([n, c, s, e, i, g]) => `"${n}" ${c} ${s} ${e} ${i} 0 GROUP="${g}" `),
    '0 aggregates',
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** One thread: root, main, `k` leaf timers under main, each with a context and two sampled lines. */
function threadEvents(k: number, scale: number): Array<[string, number, number, number, number, string]> {
  const ev: Array<[string, number, number, number, number, string]> = [];
  const leaf = 1000 * scale;
  ev.push(['.TAU application', 1, 1, 10, 10 + 5 + k * leaf, 'TAU_UTILITY']);
  ev.push(['main', 1, k, 5, 5 + k * leaf, 'TAU_USER']);
  ev.push(['.TAU application => main', 1, k, 5, 5 + k * leaf, 'TAU_CALLPATH|TAU_USER']);
  for (let i = 0; i < k; i++) {
    const f = `f${i}`;
    ev.push([f, 1, 0, leaf, leaf, 'TAU_USER']);
    ev.push([`.TAU application => main => ${f}`, 1, 0, leaf, leaf, 'TAU_CALLPATH|TAU_USER']);
    ev.push([`.TAU application => main => ${f}  => [CONTEXT] ${f}`, 10, 0, 0, leaf, 'TAU_SAMPLE_CONTEXT|TAU_CALLPATH']);
    ev.push([`.TAU application => main => ${f}  => [CONTEXT] ${f}  => [SAMPLE] ${f} [{/src/a.c} {${i + 1}}]`, 6, 0, leaf * 0.6, leaf * 0.6, 'TAU_SAMPLE|TAU_CALLPATH']);
    ev.push([`.TAU application => main => ${f}  => [CONTEXT] ${f}  => [SAMPLE] g [{/src/a.c} {${i + 2}}]`, 4, 0, leaf * 0.4, leaf * 0.4, 'TAU_SAMPLE|TAU_CALLPATH']);
  }
  return ev;
}

test('1,000 threads: the main window gets 100 bars at a time', (t) => {
  const dir = tmpDir('view-1000');
  for (let i = 0; i < 1000; i++) writeProfile(join(dir, `profile.0.0.${i}`), threadEvents(12, 1 + (i % 7)));
  let at = Date.now();
  const profile = readTauProfileDir(dir);
  t.log(`read 1000 threads in ${Date.now() - at} ms`);
  const api = new ProfileApi(profile);
  at = Date.now();
  const page = JSON.stringify(api.threads(new URLSearchParams({ limit: '100', offset: '900' })));
  t.log(`threads page in ${Date.now() - at} ms, ${page.length} bytes`);
  const a = JSON.parse(page);
  t.is(a.total, 1000);
  t.is(a.rows.length, 100);
  t.is(a.rows[0].label, 'n,c,t 0,0,900');
  t.true(page.length < 100_000);
  // Statistics over all 1,000 threads: thread i has scale 1 + i % 7.
  const mean = a.stats.find((s: { key: string }) => s.key === 'mean');
  let expected = 0;
  for (let i = 0; i < 1000; i++) expected += 10 + 5 + 12 * 1000 * (1 + (i % 7));
  t.true(Math.abs(mean.total - expected / 1000) < 1e-6 * mean.total);
  const table = api.table(new URLSearchParams({ thread: 'max', limit: '50', paths: '1' })) as { rows: Array<{ name: string; incl: number }> };
  t.is(table.rows.length, 50);
  t.is(table.rows.find((r) => r.name === '.TAU application')!.incl, 15 + 12 * 7000);
});

test('100,000 events in one thread: tree children and flame graph are bounded', (t) => {
  const dir = tmpDir('view-100k');
  const events = threadEvents(20_000, 1);
  t.true(events.length >= 100_000);
  writeProfile(join(dir, 'profile.0.0.0'), events);
  const api = new ProfileApi(readTauProfileDir(dir));
  let at = Date.now();
  const children = JSON.stringify(api.tree(new URLSearchParams({ thread: '0', path: '.TAU application => main' })));
  t.log(`first tree answer (builds the tree) in ${Date.now() - at} ms, ${children.length} bytes`);
  const c = JSON.parse(children);
  t.is(c.total, 20_000);
  t.is(c.children.length, 200);
  at = Date.now();
  const flame = api.flame(new URLSearchParams({ thread: '0' }));
  let nodes = 0;
  const count = (n: { children: unknown[] }): void => {
    nodes++;
    for (const k of n.children) count(k as typeof n);
  };
  count(flame);
  t.log(`flame answer in ${Date.now() - at} ms, ${nodes} nodes`);
  t.true(nodes <= 5001);
  t.is(flame.value, 10 + 5 + 20_000 * 1000);
  const found = api.search(new URLSearchParams({ thread: '0', q: 'f1999', limit: '10' })) as { total: number; nodes: unknown[] };
  t.true(found.total > 0 && found.nodes.length <= 10);
});

test('depth-2 event paths of 30,000 functions are hung under their callers in one go', (t) => {
  const dir = tmpDir('view-depth2');
  const ev: Array<[string, number, number, number, number, string]> = [];
  const n = 30_000;
  ev.push(['.TAU application', 1, n, 0, n * 2, 'TAU_UTILITY']);
  for (let i = 0; i < n; i++) {
    ev.push([`f${i}`, 1, 1, 1, 2, 'TAU_USER']);
    ev.push([`g${i}`, 1, 0, 1, 1, 'TAU_USER']);
    ev.push([`.TAU application => f${i}`, 1, 1, 1, 2, 'TAU_CALLPATH|TAU_USER']);
    ev.push([`f${i} => g${i}`, 1, 0, 1, 1, 'TAU_CALLPATH|TAU_USER']);
  }
  writeProfile(join(dir, 'profile.0.0.0'), ev);
  const api = new ProfileApi(readTauProfileDir(dir));
  const at = Date.now();
  const roots = api.tree(new URLSearchParams({ thread: '0', limit: '5' })) as { total: number; children: Array<{ name: string }> };
  t.log(`tree of ${ev.length} events in ${Date.now() - at} ms`);
  t.is(roots.total, 1);
  t.is(roots.children[0].name, '.TAU application');
  const under = api.tree(new URLSearchParams({ thread: '0', path: '.TAU application => f123' })) as { children: Array<{ path: string }> };
  t.deepEqual(under.children.map((c) => c.path), ['.TAU application => f123 => g123']);
});
