/**
 * TAU's own profile reader (test/tools/tau-reader: perfdmf's TauDataSource, what ParaProf uses) run on
 * a profile directory. Every profile the tests produce should pass through it in strict mode.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
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

/** Load `dir` with TAU's reader (strict by default). Throws only when the reader could not run. */
export function readWithTau(dir: string, strict = true): TauReaderResult {
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
