/**
 * The viewer's server against hostile input: malformed URLs must not stop it, and a crafted profile
 * must not make it serve files outside the directories of the profile's run (or those named with
 * --source-dir), whatever its samples name and whatever links lie on the way.
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
function craftedProfile(target: string): { dir: string; srcDir: string } {
  const fx = profileCopy('hybrid_callpath_unwind');
  const file = join(fx.dir, 'profile.0.0.0');
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.split(`[SAMPLE] add [{${fx.srcDir}/matmult.c} {14}]`).join(`[SAMPLE] add [{${target}} {14}]`));
  return { dir: fx.dir, srcDir: fx.srcDir };
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

test('a crafted sample naming a file outside the run\'s directories is refused, a link out of them too', async (t) => {
  const secretDir = tmpDir('view-secret');
  const secret = join(secretDir, 'secret.c');
  writeFileSync(secret, 'the secret\n');
  const outside = craftedProfile(secret);
  await withServer(outside.dir, [], async (v) => {
    const r = await source(v, secret);
    t.is(r.status, 403);
    t.is(
      r.json.error,
      `${secret}: outside the directories of this profile's run (${outside.srcDir}/runs/hybrid_callpath_unwind, ${outside.srcDir}); hyprof view --source-dir DIR shows files under DIR`,
    );
    // The files the run's own samples name are still shown.
    const own = await source(v, join(outside.srcDir, 'matmult.c'));
    t.is(own.status, 200);
    t.deepEqual(own.json.lines, [1, 2].map((n) => ({ line: n, text: sourceLine(n) })));
  });
  // /etc/passwd by name, and through a link placed inside the run's directory.
  const system = craftedProfile('/etc/passwd');
  await withServer(system.dir, [], async (v) => t.is((await source(v, '/etc/passwd')).status, 403));
  const relinked = craftedProfile('');
  const link = join(relinked.srcDir, 'innocent.c');
  symlinkSync(secret, link);
  const file = join(relinked.dir, 'profile.0.0.0');
  writeFileSync(file, readFileSync(file, 'utf8').split('[SAMPLE] add [{} {14}]').join(`[SAMPLE] add [{${link}} {14}]`));
  await withServer(relinked.dir, [], async (v) => {
    const r = await source(v, link);
    t.is(r.status, 403);
    t.notRegex(JSON.stringify(r.json), /the secret/);
  });
  // The path comes from the profile: a request for anything else, ../ included, is refused.
  await withServer(outside.dir, [], async (v) => {
    t.is((await source(v, `${outside.srcDir}/../../${secret}`)).status, 403);
    t.is((await source(v, join(outside.dir, 'profile.0.0.0'))).status, 403);
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
