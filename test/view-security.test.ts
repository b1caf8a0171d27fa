/** The viewer's server against hostile input: malformed URLs must not stop it. */
import test from 'ava';
import { connect } from 'node:net';
import { join } from 'node:path';
import { readTauProfileDir } from '../src/output/tau-reader.js';
import { startViewServer, type ViewServer } from '../src/view/server.js';
import { profileCopy } from './view-fixture.js';

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

async function withServer<T>(dir: string, fn: (v: ViewServer) => Promise<T>): Promise<T> {
  const view = await startViewServer(readTauProfileDir(dir), { host: '127.0.0.1', port: 0 });
  try {
    return await fn(view);
  } finally {
    view.server.closeAllConnections();
    await view.close();
  }
}

test('malformed URLs are answered 400 and the server keeps serving', async (t) => {
  const fx = profileCopy('hybrid_callpath_unwind');
  await withServer(fx.dir, async (v) => {
    for (const path of ['/%FF', '/%', '/%E0%A4%A', '/api/%FF', '/a%2', '/%c0%af']) {
      const status = await rawRequest(v.url, `GET ${path} HTTP/1.1`);
      t.regex(status, /^HTTP\/1\.1 (400|403|404) /, path);
    }
    t.regex(await rawRequest(v.url, 'GET /%FF HTTP/1.1'), /^HTTP\/1\.1 400 /);
    const after = await getJson(`${v.url}api/summary`);
    t.is(after.status, 200);
  });
});
