/**
 * The viewer's server against hostile input: malformed URLs must not stop it, and a crafted profile
 * must not make it serve files outside the directories the user named (--source-dir) or confirmed in
 * the page, whatever its samples and metadata (CWD, Executable) name and whatever links lie on the
 * way; /proc, /sys and /dev are never served.
 */
import test from 'ava';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { startViewServer, type ViewServer } from '../src/view/server.js';
import { hyprof, tmpDir } from './helpers/native.js';
import { profileCopy, sourceLine } from './view-fixture.js';

/** One raw HTTP request (the client library would refuse to send some of these); the status line back. */
function rawRequest(url: string, requestLine: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((ok, fail) => {
    const socket = connect(Number(port), hostname, () => socket.write(`${requestLine}\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`));
    let got = '';
    socket.setEncoding('latin1').on('data', (d) => (got += d));
    socket.on('end', () => ok(got.split('\r\n')[0]));
    socket.on('error', fail);
  });
}

async function getJson(url: string): Promise<{ status: number; json: { error?: string; lines?: Array<{ line: number; text: string }> } }> {
  const r = await fetch(url);
  return { status: r.status, json: (await r.json()) as never };
}

/**
 * A copy of a TAU reference profile whose run directory is `<root>/src` (see view-fixture.ts), with
 * the sample `add` of line 14 renamed to name `target` instead: what a crafted profile would do.
 */
function craftedProfile(target: string, meta: { cwd?: string; executable?: string } = {}): { dir: string; srcDir: string } {
  const fx = profileCopy('hybrid_callpath_unwind');
  const file = join(fx.dir, 'profile.0.0.0');
  let text = readFileSync(file, 'utf8');
  text = text.split(`[SAMPLE] add [{${fx.srcDir}/matmult.c} {14}]`).join(`[SAMPLE] add [{${target}} {14}]`);
  const setMeta = (name: string, value: string): void => {
    const before = text;
    text = text.replace(new RegExp(`<attribute><name>${name}</name><value>[^<]*</value>`), `<attribute><name>${name}</name><value>${value}</value>`);
    if (text === before) throw new Error(`no ${name} in the fixture`);
  };
  if (meta.cwd !== undefined) setMeta('CWD', meta.cwd);
  if (meta.executable !== undefined) setMeta('Executable', meta.executable);
  writeFileSync(file, text);
  return { dir: fx.dir, srcDir: fx.srcDir };
}

/** POST /api/source-dir as the page sends it (or without its header, as another site would). */
async function confirmDir(v: ViewServer, dir: string, fromPage = true): Promise<{ status: number; json: { error?: string; allowed?: string } }> {
  const r = await fetch(`${v.url}api/source-dir?${new URLSearchParams({ dir })}`, { method: 'POST', headers: fromPage ? { 'x-hyprof-page': '1' } : {} });
  return { status: r.status, json: (await r.json()) as never };
}

async function withServer<T>(dir: string, sourceDirs: string[], fn: (v: ViewServer) => Promise<T>): Promise<T> {
  const view = await startViewServer(readTauProfileDir(dir), { host: '127.0.0.1', port: 0, sourceDirs });
  try {
    return await fn(view);
  } finally {
    view.server.closeAllConnections();
    await view.close();
  }
}

const source = (v: ViewServer, file: string) => getJson(`${v.url}api/source?${new URLSearchParams({ file, line: '1', context: '1' })}`);

test('malformed URLs are answered 400 and the server keeps serving', async (t) => {
  const fx = profileCopy('hybrid_callpath_unwind');
  await withServer(fx.dir, [], async (v) => {
    for (const path of ['/%FF', '/%', '/%E0%A4%A', '/api/%FF', '/a%2', '/%c0%af']) {
      const status = await rawRequest(v.url, `GET ${path} HTTP/1.1`);
      t.regex(status, /^HTTP\/1\.1 (400|403|404) /, path);
    }
    t.regex(await rawRequest(v.url, 'GET /%FF HTTP/1.1'), /^HTTP\/1\.1 400 /);
    const after = await getJson(`${v.url}api/summary`);
    t.is(after.status, 200);
  });
});

test('a file under the run\'s own directories is shown only once the user confirms one', async (t) => {
  const fx = profileCopy('hybrid_callpath_unwind');
  await withServer(fx.dir, [], async (v) => {
    const refused = await source(v, fx.source);
    t.is(refused.status, 403);
    t.is(
      refused.json.error,
      `${fx.source}: not under a directory you named (none yet); confirm its directory in the page, or hyprof view --source-dir DIR shows files under DIR`,
    );
    // The run's directory (from the metadata: its executable's) and the file's own are offered.
    t.deepEqual((refused.json as { confirm?: string[] }).confirm, [fx.srcDir]);
    // Another site cannot confirm (no page header), nor can a relative path or a missing directory.
    t.is((await confirmDir(v, fx.srcDir, false)).status, 403);
    t.is((await source(v, fx.source)).status, 403);
    t.is((await confirmDir(v, 'src')).status, 400);
    t.is((await confirmDir(v, join(fx.srcDir, 'nope'))).status, 400);
    const ok = await confirmDir(v, fx.srcDir);
    t.is(ok.status, 200);
    t.is(ok.json.allowed, fx.srcDir);
    const own = await source(v, fx.source);
    t.is(own.status, 200);
    t.deepEqual(own.json.lines, [1, 2].map((n) => ({ line: n, text: sourceLine(n) })));
  });
});

test('a crafted sample naming a file outside the confirmed directories is refused, a link out of them too', async (t) => {
  const secretDir = tmpDir('view-secret');
  const secret = join(secretDir, 'secret.c');
  writeFileSync(secret, 'the secret\n');
  const outside = craftedProfile(secret);
  await withServer(outside.dir, [outside.srcDir], async (v) => {
    const r = await source(v, secret);
    t.is(r.status, 403);
    t.is(
      r.json.error,
      `${secret}: not under a directory you named (${outside.srcDir}); confirm its directory in the page, or hyprof view --source-dir DIR shows files under DIR`,
    );
    // The files the run's own samples name are still shown.
    const own = await source(v, join(outside.srcDir, 'matmult.c'));
    t.is(own.status, 200);
    t.deepEqual(own.json.lines, [1, 2].map((n) => ({ line: n, text: sourceLine(n) })));
  });
  // /etc/passwd by name, and through a link placed inside the run's directory.
  const system = craftedProfile('/etc/passwd');
  await withServer(system.dir, [system.srcDir], async (v) => t.is((await source(v, '/etc/passwd')).status, 403));
  const relinked = craftedProfile('');
  const link = join(relinked.srcDir, 'innocent.c');
  symlinkSync(secret, link);
  const file = join(relinked.dir, 'profile.0.0.0');
  writeFileSync(file, readFileSync(file, 'utf8').split('[SAMPLE] add [{} {14}]').join(`[SAMPLE] add [{${link}} {14}]`));
  await withServer(relinked.dir, [relinked.srcDir], async (v) => {
    const r = await source(v, link);
    t.is(r.status, 403);
    t.notRegex(JSON.stringify(r.json), /the secret/);
  });
  // The path comes from the profile: a request for anything else, ../ included, is refused.
  await withServer(outside.dir, [outside.srcDir], async (v) => {
    t.is((await source(v, `${outside.srcDir}/../../${secret}`)).status, 403);
    t.is((await source(v, join(outside.dir, 'profile.0.0.0'))).status, 403);
  });
});

test('a profile\'s metadata is no authority: CWD=/etc, Executable=/etc/x, Executable=/proc/self/x', async (t) => {
  const cases: Array<{ meta: { cwd?: string; executable?: string }; target: string }> = [
    { meta: { cwd: '/etc' }, target: '/etc/shadow' },
    { meta: { cwd: '/etc' }, target: '/etc/passwd' },
    { meta: { executable: '/etc/x' }, target: '/etc/shadow' },
    { meta: { executable: '/etc/x' }, target: '/etc/passwd' },
    { meta: { executable: '/proc/self/x' }, target: '/proc/self/environ' },
    { meta: { cwd: '/proc/self', executable: '/proc/self/exe' }, target: '/proc/self/environ' },
  ];
  for (const { meta, target } of cases) {
    const crafted = craftedProfile(target, meta);
    await withServer(crafted.dir, [], async (v) => {
      const r = await source(v, target);
      const what = `${JSON.stringify(meta)} ${target}`;
      t.is(r.status, 403, what);
      t.falsy(r.json.lines, what);
      t.true(r.json.error?.startsWith(`${target}: not under a directory you named (none yet)`), what);
      // /proc is never offered nor confirmable, even by the page.
      if (target.startsWith('/proc')) {
        t.deepEqual((r.json as { confirm?: string[] }).confirm, [], what);
        const c = await confirmDir(v, '/proc/self');
        t.is(c.status, 400, what);
        t.regex(c.json.error ?? '', /\/proc \(system state, not source\); files there are never shown/, what);
        t.is((await source(v, target)).status, 403, what);
      }
    });
  }
});

test('/proc, /sys, /dev and the root are never shown, whatever was named or confirmed', async (t) => {
  const crafted = craftedProfile('/proc/self/environ');
  for (const dir of ['/proc', '/proc/self', '/sys', '/dev', '/']) {
    const r = await hyprof(['view', crafted.dir, '--source-dir', dir]);
    t.is(r.code, 2, dir);
    t.regex(r.stderr, /^hyprof: --source-dir \/\S*: (is \/\S+, )?(the file system root|\/(proc|sys|dev) \(system state, not source\)); files there are never shown\n$/, dir);
  }
  // A link to /proc named as a source directory is /proc.
  const link = join(tmpDir('view-proc-link'), 'p');
  symlinkSync('/proc/self', link);
  const viaLink = await hyprof(['view', crafted.dir, '--source-dir', link]);
  t.is(viaLink.code, 2);
  t.regex(viaLink.stderr, /is \/proc\/\d+, \/proc \(system state, not source\); files there are never shown/);
  // A confirmed directory holding a link into /proc does not reach it either.
  const planted = craftedProfile('');
  const env = join(planted.srcDir, 'env.c');
  symlinkSync('/proc/self/environ', env);
  const file = join(planted.dir, 'profile.0.0.0');
  writeFileSync(file, readFileSync(file, 'utf8').split('[SAMPLE] add [{} {14}]').join(`[SAMPLE] add [{${env}} {14}]`));
  await withServer(planted.dir, [], async (v) => {
    t.is((await confirmDir(v, planted.srcDir)).status, 200);
    const r = await source(v, env);
    t.is(r.status, 403);
    t.falsy(r.json.lines);
  });
});

test('--source-dir names more directories whose files may be shown', async (t) => {
  const secretDir = tmpDir('view-named');
  mkdirSync(join(secretDir, 'lib'));
  const file = join(secretDir, 'lib', 'kernel.c');
  writeFileSync(file, 'int kernel;\nint other;\n');
  const crafted = craftedProfile(file);
  await withServer(crafted.dir, [secretDir], async (v) => {
    const r = await source(v, file);
    t.is(r.status, 200);
    t.deepEqual(r.json.lines, [
      { line: 1, text: 'int kernel;' },
      { line: 2, text: 'int other;' },
    ]);
  });
  const bad = await hyprof(['view', crafted.dir, '--source-dir', join(secretDir, 'nope')]);
  t.is(bad.code, 2);
  t.is(bad.stderr, `hyprof: option '--source-dir <dir>' argument '${join(secretDir, 'nope')}' is invalid. --source-dir ${join(secretDir, 'nope')}: not a directory.\n`);
});
