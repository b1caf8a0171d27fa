/**
 * The viewer's HTTP server: the built page (dist/web) and the JSON API, on a loopback address only.
 * Requests whose Host header is not loopback are refused, so a web page elsewhere cannot reach the
 * profile through DNS rebinding.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../base/errors.js';
import type { TauProfile } from '../profile/tau-model.js';
import { ApiError, ProfileApi, type Query } from './api.js';
import { CompareApi } from './compare-api.js';
import { RefusedDirectory, SourceAccess } from './source-access.js';
import { foldAnswer } from './fold-api.js';
import { matrixAnswer, type MatrixAnswer } from './matrix-api.js';
import { readTauProfileDir } from '../profile/tau-reader.js';
import { TraceApi } from './trace-api.js';
import type { ScaledProfile } from './scaled-profile.js';
import type { TraceModel } from '../trace/trace-model.js';

/** dist/web beside dist/src (this file is dist/src/view/server.js once built). */
export const webRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

export interface ViewServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export async function startViewServer(
  profile: TauProfile,
  opts: {
    host: string;
    port: number;
    webDir?: string;
    webFiles?: WebFiles;
    sourceDirs?: string[];
    compare?: TauProfile;
    /** `profile` as a profile of many threads, read a thread at a time (scaled-profile.ts). */
    scaled?: ScaledProfile;
    /** The run's trace (the timeline), or why there is none to show. */
    trace?: TraceModel | { none: string };
  },
): Promise<ViewServer> {
  if (!isLoopback(opts.host)) {
    throw new UserError(`--host ${opts.host}: the viewer listens on a loopback address only (127.0.0.1, ::1, localhost)`);
  }
  const web = opts.webFiles ?? opts.webDir ?? webRoot;
  if (typeof web === 'string' && !existsSync(join(web, 'index.html'))) {
    throw new UserError(`${web}: the viewer page is not built (run "npm run build:web")`, 1);
  }
  // The directories whose source files may be shown, shared by runs A and B: those named with
  // --source-dir now, those the user confirms in the page later (POST /api/source-dir).
  let sources: SourceAccess;
  try {
    sources = new SourceAccess(opts.sourceDirs ?? []);
  } catch (e) {
    if (e instanceof RefusedDirectory) throw new UserError(`--source-dir ${e.message}`);
    throw e;
  }
  const api = new ProfileApi(profile, sources, opts.scaled);
  // Run B of the compare mode: given on the command line, or opened from the page (/api/open).
  let compare: CompareApi | undefined;
  const setB = (b: TauProfile): void => {
    compare = new CompareApi(api, new ProfileApi(b, sources));
  };
  if (opts.compare) setB(opts.compare);
  const noB = (): never => {
    throw new ApiError(404, 'no second profile to compare with: hyprof view A B, or open one from the page');
  };
  /** `run=b` asks run B's views (its threads, table, tree ...); anything else run A's. */
  const pick = (q: Query): ProfileApi => (q.get('run') === 'b' ? (compare?.b ?? noB()) : api);
  const trace = opts.trace && 'lanes' in opts.trace ? new TraceApi(opts.trace) : undefined;
  const noTrace = (): never => {
    throw new ApiError(404, opts.trace && 'none' in opts.trace ? opts.trace.none : 'this run has no trace (record one with HYPROF_TRACE=1)');
  };
  /** The communication matrix of each run, made at its first request (a pass over every thread). */
  const matrices = new WeakMap<TauProfile, MatrixAnswer>();
  const routes: Record<string, (q: Query) => unknown> = {
    '/api/trace/summary': () => (trace ? trace.summary() : { none: opts.trace && 'none' in opts.trace ? opts.trace.none : null }),
    '/api/trace/range': (q) => (trace ?? noTrace()).range(q),
    '/api/trace/at': (q) => (trace ?? noTrace()).at(q),
    '/api/trace/profile': (q) => (trace ?? noTrace()).profile(q),
    '/api/trace/findings': () => (trace ?? noTrace()).findings(),
    '/api/summary': (q) => ({ ...(pick(q).summary() as object), ...(compare ? { compare: compare.summary() } : {}) }),
    '/api/threads': (q) => pick(q).threads(q),
    '/api/table': (q) => pick(q).table(q),
    '/api/tree': (q) => pick(q).tree(q),
    '/api/search': (q) => pick(q).search(q),
    '/api/flame': (q) => pick(q).flame(q),
    '/api/functions': (q) => pick(q).functions(q),
    '/api/source': (q) => pick(q).source(q),
    '/api/metadata': (q) => pick(q).metadata(q),
    '/api/event': (q) => pick(q).event(q),
    '/api/userevents': (q) => pick(q).userEvents(q),
    '/api/fold': (q) => foldAnswer(pick(q).profile.dir, q),
    '/api/matrix': (q) => {
      const p = pick(q).profile;
      let m = matrices.get(p);
      if (!m) matrices.set(p, (m = matrixAnswer(p)));
      return m;
    },
    '/api/diff': (q) => (compare ?? noB()).diff(q),
    '/api/diff-flame': (q) => (compare ?? noB()).flame(q),
  };
  /** POST /api/open?dir=D: read D as run B (only from the page: handlePost). */
  const open = (q: Query): unknown => {
    const dir = q.get('dir') ?? '';
    if (!dir) throw new ApiError(400, 'give the directory of the profile to compare with');
    try {
      setB(readTauProfileDir(dir));
    } catch (e) {
      if (e instanceof UserError) throw new ApiError(400, e.message);
      const code = (e as NodeJS.ErrnoException).code;
      throw new ApiError(400, `${dir}: cannot read (${code ?? (e as Error).message})`);
    }
    return compare!.summary();
  };
  /** POST /api/source-dir?dir=D: the user confirmed in the page that files under D may be shown. */
  const confirmSourceDir = (q: Query): unknown => {
    const dir = q.get('dir') ?? '';
    if (!isAbsolute(dir)) throw new ApiError(400, `give the absolute path of a directory to show source files from, not "${dir}"`);
    try {
      return { allowed: sources.allow(dir), directories: sources.directories };
    } catch (e) {
      if (e instanceof RefusedDirectory) throw new ApiError(400, e.message);
      throw e;
    }
  };
  const posts: Record<string, (q: Query) => unknown> = { '/api/open': open, '/api/source-dir': confirmSourceDir };
  const server = createServer((req, res) => {
    // Nothing a request holds may stop the server (a malformed URL such as /%FF): any page or local
    // process can send one.
    try {
      if (req.method === 'POST') return handlePost(req, res, posts);
      handle(req, res, routes, web);
    } catch {
      if (!res.headersSent) send(res, 500, 'text/plain', 'internal error');
      else res.destroy();
    }
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE') fail(new UserError(`port ${opts.port} on ${opts.host} is in use; choose another with --port (0 picks a free one)`, 1));
      else if (e.code === 'EACCES') fail(new UserError(`port ${opts.port} on ${opts.host}: permission denied; choose a port above 1023 or 0`, 1));
      else fail(new UserError(`cannot listen on ${opts.host}:${opts.port}: ${e.message}`, 1));
    });
    server.listen(opts.port, opts.host, () => ok());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const hostPart = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    server,
    url: `http://${hostPart}:${port}/`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

/** The page's files held in memory (the single executable's assets), by path relative to dist/web. */
export type WebFiles = Map<string, Buffer>;

/**
 * The page's actions (open run B, confirm a source directory). Only from the page: the custom header
 * makes a browser ask first (CORS preflight) for any other origin, which this server never allows,
 * and the Host check stops DNS rebinding.
 */
function handlePost(req: IncomingMessage, res: ServerResponse, posts: Record<string, (q: Query) => unknown>): void {
  const hostHeader = (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  if (!isLoopback(hostHeader)) return send(res, 403, 'text/plain', 'forbidden host');
  if (req.headers['x-hyprof-page'] !== '1') return send(res, 403, 'application/json', JSON.stringify({ error: 'only the viewer page does this' }));
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://localhost');
  } catch {
    return send(res, 400, 'text/plain', 'malformed URL');
  }
  const post = posts[url.pathname];
  if (!post) return send(res, 405, 'text/plain', 'method not allowed');
  answer(res, () => post(url.searchParams));
}

/** A route's JSON answer, or its ApiError's status and message (and any more fields). */
function answer(res: ServerResponse, route: () => unknown): void {
  try {
    send(res, 200, 'application/json', JSON.stringify(route()));
  } catch (e) {
    if (e instanceof ApiError) return send(res, e.status, 'application/json', JSON.stringify({ error: e.message, ...e.more }));
    send(res, 500, 'application/json', JSON.stringify({ error: String((e as Error).message ?? e) }));
  }
}

function handle(req: IncomingMessage, res: ServerResponse, routes: Record<string, (q: Query) => unknown>, web: string | WebFiles): void {
  const hostHeader = (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  if (!isLoopback(hostHeader)) return send(res, 403, 'text/plain', 'forbidden host');
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'method not allowed');
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://localhost');
  } catch {
    return send(res, 400, 'text/plain', 'malformed URL');
  }
  const route = routes[url.pathname];
  if (route) return answer(res, () => route(url.searchParams));
  if (url.pathname.startsWith('/api/')) return send(res, 404, 'application/json', JSON.stringify({ error: `no API ${url.pathname}` }));
  let rel: string;
  try {
    rel = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname).replace(/^\/+/, '');
  } catch {
    return send(res, 400, 'text/plain', 'malformed URL');
  }
  if (typeof web !== 'string') {
    const held = web.get(rel);
    if (!held) return send(res, 404, 'text/plain', 'not found');
    return send(res, 200, TYPES[extname(rel)] ?? 'application/octet-stream', held);
  }
  const file = resolve(web, rel);
  if (!file.startsWith(web + sep)) return send(res, 403, 'text/plain', 'forbidden');
  let body: Buffer;
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
    body = readFileSync(file);
  } catch {
    return send(res, 404, 'text/plain', 'not found');
  }
  send(res, 200, TYPES[extname(file)] ?? 'application/octet-stream', body);
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
  });
  res.end(body);
}
