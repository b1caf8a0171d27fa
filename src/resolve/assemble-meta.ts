/**
 * The metadata of one thread's profile: every INFO attribute of the run (host, command line,
 * effective configuration, TAU's per-thread sample counters ...), then what belongs to the thread,
 * under TAU's names where TAU has one.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { INFO_EXEC_REPLACED, INFO_FROM_FLUSH, INFO_FROM_SIGNAL, type RawProcess, type RawThread } from '../samples/raw-model.js';
import type { ContextTree } from './assemble-tree.js';
import { singleExecutableText } from '../base/single-executable.js';

let packageVersion: string | undefined;

/** hyprof's version, from package.json (dist/src/resolve/ → the package root). */
export function hyprofVersion(): string {
  packageVersion ??= singleExecutableText('version');
  if (packageVersion === undefined) {
    try {
      const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
      packageVersion = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
    } catch {
      packageVersion = 'unknown';
    }
  }
  return packageVersion;
}

const usec = (ns: bigint): string => (ns / 1000n).toString();

export function threadMetadata(proc: RawProcess, t: RawThread, metric: string, tree: ContextTree): Array<[string, string]> {
  const meta = new Map<string, string>();
  meta.set('Metric Name', metric);
  for (const [k, v] of proc.info.attributes) if (k !== 'Metric Name') meta.set(k, v);
  meta.set('pid', String(proc.info.pid));
  meta.set('tid', String(t.tid));
  if (t.startNs > 0n || !meta.has('Starting Timestamp')) meta.set('Starting Timestamp', usec(t.startNs > 0n ? t.startNs : proc.info.startNs));
  if (t.stopNs > 0n || !meta.has('Ending Timestamp')) meta.set('Ending Timestamp', usec(t.stopNs > 0n ? t.stopNs : proc.info.stopNs));
  if (!meta.has('hyprof Version')) meta.set('hyprof Version', hyprofVersion());
  if (t.name) meta.set('Thread Name', t.name);
  meta.set('hyprof Thread Index', String(t.index));
  for (const [k, v] of t.metadata ?? []) meta.set(k, v);
  const f = proc.info.flags;
  meta.set(
    'hyprof Written',
    f & INFO_FROM_SIGNAL
      ? 'on SIGINT / SIGTERM'
      : f & INFO_EXEC_REPLACED
        ? 'before exec replaced the program'
        : f & INFO_FROM_FLUSH
          ? 'by hyprof_flush() while the process was still running'
          : 'at exit',
  );
  // An earlier image of its process: the program it ran is in Executable and Command Line above.
  if (f & INFO_EXEC_REPLACED) meta.set('hyprof Image', 'replaced by exec');
  for (const [reason, n] of t.drops) meta.set(`hyprof dropped ${reason}`, String(n));
  const taken = t.samples.reduce((n, s) => n + s.count, 0);
  if (taken > 0 && !meta.has(`TAU_EBS_SAMPLES_TAKEN_${t.index}`)) meta.set(`TAU_EBS_SAMPLES_TAKEN_${t.index}`, String(taken));
  t.warnings.forEach((w, i) => meta.set(`hyprof warning ${i + 1}`, w));
  if (t.open.length > 0) {
    const names = [...new Set(t.open.map((c) => tree.name(tree.event(tree.row(c)))))];
    meta.set('hyprof timers closed at exit', names.join(', '));
  }
  return [...meta.entries()];
}
