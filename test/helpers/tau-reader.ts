/**
 * TAU's own profile reader (test/tools/tau-reader: perfdmf's TauDataSource, what ParaProf uses) run on
 * a profile directory. Every profile the tests produce should pass through it in strict mode.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repoRoot } from './paths.js';

export const tauReaderPath = join(repoRoot, 'test', 'tools', 'tau-reader', 'tau-reader');

export interface TauReaderFunction {
  name: string;
  groups: string;
  calls: number;
  subroutines: number;
  exclusive: number[];
  inclusive: number[];
}

export interface TauReaderThread {
  node: number;
  context: number;
  thread: number;
  metadata: Record<string, string>;
  functions: TauReaderFunction[];
  user_events: { name: string; count: number; max: number; min: number; mean: number; sumsqr: number }[];
}

export interface TauReaderResult {
  /** Exit status: 0 accepted, 2 complaints, 3 refused. */
  status: number;
  stderr: string;
  ok: boolean;
  diagnostics: string[];
  callpath_warnings: string[];
  metrics: string[];
  /** Metadata common to every thread (TAU moves it out of the threads). */
  trial_metadata: Record<string, string>;
  num_threads: number;
  threads: TauReaderThread[];
}

/**
 * What TAU's reader said about an input, by the input's path and the names and bytes of every file
 * under it: a test that reads a profile directory the run helpers have just checked (helpers/native.ts
 * runs this reader on every profile written) gets the same answer without a second Java start (about
 * half a second of CPU each). The reader is a function of those bytes alone; a file changed, added or
 * removed since, even in place and within the file system's timestamp granularity, is a new key.
 */
const answers = new Map<string, TauReaderResult>();

/** Inputs above this many bytes are not kept: hashing them would not be worth it, nor holding the answer. */
const KEEP_UP_TO = 64 << 20;

function inputKey(path: string, strict: boolean): string | undefined {
  const hash = createHash('sha256').update(JSON.stringify([resolve(path), strict]));
  let bytes = 0;
  const add = (p: string, rel: string): boolean => {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) return true;
    if (st.isDirectory()) {
      hash.update(`d ${rel}\0`);
      for (const name of readdirSync(p).sort()) if (!add(join(p, name), `${rel}/${name}`)) return false;
      return true;
    }
    if (!st.isFile()) {
      hash.update(`o ${rel}\0`);
      return true;
    }
    bytes += st.size;
    if (bytes > KEEP_UP_TO) return false;
    hash.update(`f ${rel} ${st.size}\0`).update(readFileSync(p));
    return true;
  };
  return add(path, '.') ? hash.digest('hex') : undefined;
}

/** Load `dir` with TAU's reader (strict by default). Throws only when the reader could not run. */
export function readWithTau(dir: string, strict = true): TauReaderResult {
  const key = inputKey(dir, strict);
  const known = key === undefined ? undefined : answers.get(key);
  if (known) return structuredClone(known);
  const result = runTauReader(dir, strict);
  if (key !== undefined) answers.set(key, structuredClone(result));
  return result;
}

function runTauReader(dir: string, strict: boolean): TauReaderResult {
  const r = spawnSync(tauReaderPath, [...(strict ? ['--strict'] : []), dir], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.error) throw new Error(`tau-reader could not run: ${r.error.message}`);
  if (r.status === 1) throw new Error(`tau-reader usage error on ${dir}: ${r.stderr}`);
  let parsed: Partial<TauReaderResult> = {};
  try {
    parsed = JSON.parse(r.stdout) as Partial<TauReaderResult>;
  } catch {
    // Refused inputs may print nothing on stdout; status and stderr say why.
  }
  return {
    status: r.status ?? -1,
    stderr: r.stderr,
    ok: parsed.ok ?? false,
    diagnostics: parsed.diagnostics ?? [],
    callpath_warnings: parsed.callpath_warnings ?? [],
    metrics: parsed.metrics ?? [],
    trial_metadata: parsed.trial_metadata ?? {},
    num_threads: parsed.num_threads ?? 0,
    threads: parsed.threads ?? [],
  };
}

/** A one-paragraph account of why TAU's reader did not accept `dir` (for assertion messages). */
export function tauReaderComplaints(r: TauReaderResult): string {
  return [`tau-reader exit ${r.status}`, ...r.diagnostics.slice(0, 10), ...r.callpath_warnings.slice(0, 10), r.stderr.trim()].join('\n');
}
