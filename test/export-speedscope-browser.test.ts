/**
 * `hyprof export --format speedscope` opened by speedscope itself (the npm package's page, in
 * Debian's chromium through playwright-core), served from a local server as
 * `#profileURL=…&view=sandwich` and `…&view=left-heavy`: the file loads without an error, the
 * sandwich view lists the functions by name (no TAU prefixes) and the timers, and the profile is
 * named by its thread and metric.
 */
import test from 'ava';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { hyprof, tmpDir } from './helpers/native.js';
import { launchBrowser } from './helpers/view-browser.js';
import { profileCopy } from './view-fixture.js';

const release = join(dirname(createRequire(import.meta.url).resolve('speedscope/package.json')), 'dist', 'release');
let browser: Browser;
let server: Server;
let base = '';
let profile = '';

test.before(async () => {
  const fx = profileCopy('hybrid_callpath_unwind');
  profile = join(tmpDir('speedscope-browser'), 'app.speedscope.json');
  const r = await hyprof(['export', fx.dir, '--format', 'speedscope', '-o', profile]);
  if (r.code !== 0) throw new Error(r.stderr);
  // speedscope's page and the one exported file, nothing else.
  server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const file = path === '/app.speedscope.json' ? profile : join(release, path === '/' ? 'index.html' : path);
    if (!file.startsWith(release) && file !== profile) return void res.writeHead(403).end();
    try {
      const body = readFileSync(file);
      const type = file.endsWith('.html') ? 'text/html' : file.endsWith('.js') ? 'text/javascript' : file.endsWith('.json') ? 'application/json' : 'application/octet-stream';
      res.writeHead(200, { 'content-type': type }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
  server?.close();
});

test.serial('speedscope loads the export; the sandwich view lists functions and timers by name', async (t) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/index.html#profileURL=${encodeURIComponent('/app.speedscope.json')}&view=sandwich`);
  // The sandwich view's table: one row per frame name.
  await page.waitForFunction(() => document.body.innerText.includes('multiply'), undefined, { timeout: 30_000 });
  const text = await page.evaluate(() => document.body.innerText);
  for (const name of ['multiply', 'matrixMultiply', 'Iteration 1', 'main']) t.true(text.includes(name), name);
  t.false(/\[(SAMPLE|UNWIND|CONTEXT)\]/.test(text), 'no TAU prefixes');
  t.true(text.includes('n,c,t 0,0,0 TIME'), 'the profile is named by thread and metric');
  t.deepEqual(errors, []);
  await page.close();
});

test.serial('speedscope opens the export in the left-heavy view when asked', async (t) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/index.html#profileURL=${encodeURIComponent('/app.speedscope.json')}&view=left-heavy`);
  await page.waitForFunction(() => document.querySelector('canvas') !== null && document.body.innerText.includes('Left Heavy'), undefined, { timeout: 30_000 });
  // No sandwich table: the flame graph (a canvas) is shown.
  t.false((await page.evaluate(() => document.body.innerText)).includes('Self'));
  t.deepEqual(errors, []);
  await page.close();
});
