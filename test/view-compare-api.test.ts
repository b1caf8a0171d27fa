/**
 * The compare mode's API errors through the real server (`hyprof view A B`, HTTP requests): each
 * refusal of src/view/compare-api.ts and of the server's compare routes answers with its status and
 * a message naming what was asked and what is missing, and one thread is the same n,c,t in both runs
 * whatever its index in each. Profiles: copies of TAU's own reference profile as threads or ranks.
 */
import test from 'ava';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tauReferenceDir, tmpDir } from './helpers/native.js';
import { startView, type ViewServerProcess } from './helpers/view-server.js';

const probes = join(tauReferenceDir, 'probes');

/** TAU's probes profile as the threads `files` (profile.n.c.t names) of one directory. */
function threadsOf(name: string, files: string[], edit = (text: string) => text): string {
  const dir = join(tmpDir(`compare-api-${name}`), name);
  cpSync(probes, dir, { recursive: true });
  const text = edit(readFileSync(join(probes, 'profile.0.0.0'), 'utf8'));
  for (const f of files) writeFileSync(join(dir, f), text);
  return dir;
}

async function get(s: ViewServerProcess, path: string, init?: RequestInit): Promise<{ status: number; body: { error?: string } & Record<string, unknown> }> {
  const res = await fetch(`${s.url}${path}`, init);
  return { status: res.status, body: (await res.json()) as { error?: string } };
}

async function serving(args: string[], use: (s: ViewServerProcess) => Promise<void>): Promise<void> {
  const s = await startView([...args, '--port', '0']);
  try {
    await use(s);
  } finally {
    await s.stop();
  }
}

test('a thread B lacks, a statistic other than the mean, and a thread A lacks are refused; a thread at another index in B is found', async (t) => {
  const a = threadsOf('three', ['profile.0.0.0', 'profile.0.0.1', 'profile.0.0.2']);
  // thread 0,0,1 missing: B's index 1 is 0,0,2
  const b = threadsOf('gap', ['profile.0.0.0', 'profile.0.0.2']);
  await serving([a, b], async (s) => {
    t.deepEqual(await get(s, 'api/diff?thread=max'), { status: 400, body: { error: 'the comparison is of the mean or one thread, not the max' } });
    t.deepEqual(await get(s, 'api/diff?thread=1'), { status: 404, body: { error: `thread n,c,t 0,0,1 is not in ${b}` } });
    t.deepEqual(await get(s, 'api/diff-flame?thread=1'), { status: 404, body: { error: `thread n,c,t 0,0,1 is not in ${b}` } });
    t.deepEqual(await get(s, 'api/diff?thread=3'), { status: 400, body: { error: 'unknown thread "3"; use mean, min, max, std or 0..2' } });
    // widths from A, where B lacks the thread: every frame's value in B is 0
    const fromA = await get(s, 'api/diff-flame?thread=1&width=a');
    t.is(fromA.status, 200);
    t.true((fromA.body.value as number) > 0);
    t.is(fromA.body.other, 0);
    // A's thread 2 is B's thread at index 1: the same numbers (the same file), not a 404
    const same = await get(s, 'api/diff-flame?thread=2');
    t.is(same.status, 200, JSON.stringify(same.body));
    t.is(same.body.other, same.body.value);
    const diff = await get(s, 'api/diff?thread=2');
    t.is(diff.status, 200, JSON.stringify(diff.body));
    t.is((diff.body.b as { thread: string }).thread, 'n,c,t 0,0,2');
  });
});

const asCpuTime = (text: string) =>
  text.replace('MULTI_TIME', 'MULTI_CPU_TIME').replace('<name>Metric Name</name><value>TIME</value>', '<name>Metric Name</name><value>CPU_TIME</value>');

test('a metric B lacks is refused, naming B and its metrics: of a run of two metrics, and of a run opened from the page', async (t) => {
  // A measured TIME and CPU_TIME (TAU's MULTI__ directories), B only TIME
  const two = join(tmpDir('compare-api-two'), 'two');
  cpSync(threadsOf('time', ['profile.0.0.0']), join(two, 'MULTI__TIME'), { recursive: true });
  cpSync(threadsOf('cpu', ['profile.0.0.0'], asCpuTime), join(two, 'MULTI__CPU_TIME'), { recursive: true });
  await serving([two, probes], async (s) => {
    const refused = { status: 400, body: { error: `metric CPU_TIME is not in ${probes} (it has TIME)` } };
    t.deepEqual(await get(s, 'api/diff?metric=CPU_TIME'), refused);
    t.deepEqual(await get(s, 'api/diff-flame?metric=CPU_TIME&thread=0'), refused);
    t.is((await get(s, 'api/diff?metric=TIME')).status, 200);
  });
  // the page may open a run that measured another metric: its comparisons are refused, not empty
  const cpu = threadsOf('cpu-only', ['profile.0.0.0'], asCpuTime);
  await serving([probes], async (s) => {
    const opened = await get(s, `api/open?dir=${encodeURIComponent(cpu)}`, { method: 'POST', headers: { 'x-hyprof-page': '1' } });
    t.is(opened.status, 200, JSON.stringify(opened.body));
    t.deepEqual(opened.body.common, []);
    t.deepEqual(await get(s, 'api/diff'), { status: 400, body: { error: `metric TIME is not in ${cpu} (it has CPU_TIME)` } });
  });
});

test('without a second run the compare routes say how to give one; opening one from the page names what is wrong', async (t) => {
  const file = join(tmpDir('compare-api-file'), 'file');
  writeFileSync(file, 'x');
  await serving([probes], async (s) => {
    const none = { status: 404, body: { error: 'no second profile to compare with: hyprof view A B, or open one from the page' } };
    t.deepEqual(await get(s, 'api/diff'), none);
    t.deepEqual(await get(s, 'api/diff-flame'), none);
    t.deepEqual(await get(s, 'api/threads?run=b'), none);
    const page = { method: 'POST', headers: { 'x-hyprof-page': '1' } };
    t.deepEqual(await get(s, 'api/open', page), { status: 400, body: { error: 'give the directory of the profile to compare with' } });
    const notDir = await get(s, `api/open?dir=${encodeURIComponent(file)}`, page);
    t.is(notDir.status, 400);
    t.regex(notDir.body.error ?? '', new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: `));
    // still no second run after the refusals
    t.deepEqual(await get(s, 'api/diff'), none);
  });
});
