/**
 * The viewer's HTTP server and JSON API on a copy of a TAU reference profile: values against the
 * profile file, paging, the source endpoint's limits, loopback-only serving.
 */
import test from 'ava';
import { readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { ApiError, ProfileApi } from '../src/view/api.js';
import { startViewServer, type ViewServer } from '../src/view/server.js';
import { profileCopy, referenceDir, sourceLine } from './view-fixture.js';

interface Answer {
  status: number;
  body: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((ok, fail) => {
    const req = request(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d) => (body += d));
      res.on('end', () => {
        let json;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        ok({ status: res.statusCode ?? 0, body, json });
      });
    });
    req.on('error', fail);
    req.end();
  });
}

const fx = profileCopy('hybrid_callpath_unwind');
const fileText = readFileSync(join(fx.dir, 'profile.0.0.0'), 'utf8');
let view: ViewServer;

test.before(async () => {
  view = await startViewServer(readTauProfileDir(fx.dir), { host: '127.0.0.1', port: 0, sourceDirs: [fx.srcDir] });
});
test.after.always(async () => {
  view.server.closeAllConnections();
  await view.close();
});

const api = (path: string, q: Record<string, string> = {}): Promise<Answer> => get(`${view.url}api/${path}?${new URLSearchParams(q)}`);

/** calls, subrs, excl, incl of an event line of the profile file. */
function fileValues(name: string): number[] {
  const line = fileText.split('\n').find((l) => l.startsWith(`"${name}" `))!;
  return line.slice(name.length + 3).split(' ').slice(0, 4).map(Number);
}

test('summary names the metrics and threads', async (t) => {
  const s = await api('summary');
  t.is(s.status, 200);
  t.deepEqual(s.json.metrics, ['TIME']);
  t.is(s.json.threadCount, 1);
  t.true(s.json.hasSamples);
  t.true(s.json.hasCallpaths);
});

test('metadata of a thread comes back in file order', async (t) => {
  const m = await api('metadata', { thread: '0' });
  t.is(m.json.thread, 'n,c,t 0,0,0');
  t.deepEqual(m.json.attributes[0], ['Metric Name', 'TIME']);
  t.deepEqual(m.json.attributes.find(([k]: [string, string]) => k === 'TAU_CALLPATH_DEPTH'), ['TAU_CALLPATH_DEPTH', '2']);
});

test('tree children of a timer include its [CONTEXT] with the file\'s values', async (t) => {
  const a = await api('tree', { thread: '0', path: '.TAU application => main => Iteration 2' });
  t.is(a.status, 200);
  const ctx = a.json.children.find((c: { kind: string }) => c.kind === 'context');
  t.is(ctx.name, '[CONTEXT] Iteration 2');
  const [calls, , excl, incl] = fileValues('main => Iteration 2  => [CONTEXT]  Iteration 2');
  t.deepEqual([ctx.calls, ctx.excl, ctx.incl], [calls, excl, incl]);
  t.is(a.json.node.incl, fileValues('main => Iteration 2')[3]);
  const deeper = await api('tree', { thread: '0', path: ctx.path });
  t.true(deeper.json.children.length > 0);
  t.true(deeper.json.children.every((c: { kind: string }) => c.kind === 'unwind' || c.kind === 'sample'));
});

test('tree children are paged', async (t) => {
  const all = await api('tree', { thread: '0' });
  const page = await api('tree', { thread: '0', offset: '1', limit: '2' });
  t.is(page.json.total, all.json.total);
  t.deepEqual(page.json.children.map((c: { path: string }) => c.path), all.json.children.slice(1, 3).map((c: { path: string }) => c.path));
});

test('the statistics table sorts, searches and pages on the server', async (t) => {
  const a = await api('table', { thread: 'mean', sort: 'incl', limit: '3' });
  t.is(a.json.rows.length, 3);
  t.is(a.json.rows[0].name, '.TAU application');
  t.is(a.json.rows[0].incl, fileValues('.TAU application')[3]);
  t.true(a.json.total > 3);
  const s = await api('table', { thread: '0', q: '[sample] add' });
  t.deepEqual(s.json.rows.map((r: { name: string }) => r.name), [`[SAMPLE] add [{${fx.srcDir}/matmult.c} {14}]`]);
  const withPaths = await api('table', { thread: '0', paths: '1', q: '[SAMPLE] add' });
  t.true(withPaths.json.total > 1);
  const bad = await api('table', { thread: '9' });
  t.is(bad.status, 400);
  t.regex(bad.json.error, /unknown thread "9"; use mean, min, max, std or 0\.\.0/);
});

test('thread bars carry the top timers and add up to the thread total', async (t) => {
  const a = await api('threads');
  t.is(a.json.total, 1);
  const row = a.json.rows[0];
  t.is(row.total, row.values.reduce((s: number, v: number) => s + v, row.other));
  t.is(row.total, fileValues('.TAU application')[3]);
  t.false(a.json.top.some((n: string) => n.startsWith('[')));
  const samples = await api('threads', { kind: 'samples' });
  t.true(samples.json.top.every((n: string) => n.startsWith('[SAMPLE]')));
});

test('the flame graph answer nests and is bounded', async (t) => {
  const f = await api('flame', { thread: '0' });
  t.is(f.json.name, 'all');
  const walk = (n: { value: number; children: Array<{ value: number }> }): void => {
    t.true(n.value + 1e-9 >= n.children.reduce((s, c) => s + c.value, 0));
    for (const c of n.children) walk(c as typeof n);
  };
  walk(f.json);
  const small = await api('flame', { thread: '0', max: '10' });
  let count = 0;
  const countAll = (n: { children: unknown[] }): void => {
    count++;
    for (const c of n.children) countAll(c as typeof n);
  };
  countAll(small.json);
  t.true(count <= 11);
});

test('source lines are served for files that samples name, and only those', async (t) => {
  const ok = await api('source', { file: fx.source, line: '14', context: '2' });
  t.is(ok.status, 200);
  t.deepEqual(ok.json.lines, [12, 13, 14, 15, 16].map((n) => ({ line: n, text: sourceLine(n) })));
  const other = await api('source', { file: '/etc/passwd', line: '1' });
  t.is(other.status, 403);
  t.regex(other.json.error, /\/etc\/passwd: not a source file of a sample in this profile/);
  const profileFile = await api('source', { file: join(fx.dir, 'profile.0.0.0'), line: '1' });
  t.is(profileFile.status, 403);
});

test('a sample\'s file that is not on this machine is reported as not readable', (t) => {
  // Its directory is not here: nothing to confirm.
  const api = new ProfileApi(readTauProfileDir(referenceDir('hybrid_unwind')));
  const away = t.throws(() => api.source(new URLSearchParams({ file: '/home/user/tau-example/matmult.c', line: '14' })), { instanceOf: ApiError });
  t.is(away!.status, 403);
  t.is(
    away!.message,
    '/home/user/tau-example/matmult.c: not under a directory you named (none yet); its directory is not on this machine or is never shown (/proc, /sys, /dev); hyprof view --source-dir DIR shows files under DIR',
  );
  t.deepEqual(away!.more, { confirm: [] });
  // Its directory named, the file gone.
  const copy = profileCopy('hybrid_unwind');
  rmSync(copy.source);
  const e = t.throws(() => new ProfileApi(readTauProfileDir(copy.dir), [copy.srcDir]).source(new URLSearchParams({ file: copy.source, line: '14' })), {
    instanceOf: ApiError,
  });
  t.is(e!.status, 404);
  t.is(e!.message, `${copy.source}: not readable here (ENOENT)`);
});

test('static files stay inside the page directory', async (t) => {
  const index = await get(view.url);
  t.is(index.status, 200);
  t.regex(index.body, /<title>hyprof view<\/title>/);
  const up = await get(`${view.url}..%2f..%2fpackage.json`);
  t.true(up.status === 403 || up.status === 404);
  t.false(up.body.includes('"name": "hyprof"'));
  const noApi = await api('nothing');
  t.is(noApi.status, 404);
});

test('requests naming another host are refused (DNS rebinding)', async (t) => {
  const a = await get(`${view.url}api/summary`, { host: 'attacker.example:80' });
  t.is(a.status, 403);
});

test('a port in use and a non-loopback host are refused with clear messages', async (t) => {
  const port = Number(new URL(view.url).port);
  const profile = readTauProfileDir(fx.dir);
  await t.throwsAsync(startViewServer(profile, { host: '127.0.0.1', port }), {
    message: `port ${port} on 127.0.0.1 is in use; choose another with --port (0 picks a free one)`,
  });
  await t.throwsAsync(startViewServer(profile, { host: '127.0.0.1', port: 0, webDir: join(fx.dir, 'web') }), {
    message: `${join(fx.dir, 'web')}: the viewer page is not built (run "npm run build:web")`,
  });
  await t.throwsAsync(startViewServer(profile, { host: '0.0.0.0', port: 0 }), {
    message: '--host 0.0.0.0: the viewer listens on a loopback address only (127.0.0.1, ::1, localhost)',
  });
});
