/**
 * Images of one process: a process that replaced its program by exec wrote a raw file just before
 * (INFO flag bit 7), and the new program, when measured, writes its own with the same host and pid.
 * Numbered as any process would be, they would write the same profile files. The last image of a
 * (host, pid) keeps the ordinary numbering (assemble.ts, fileNumbering); each earlier one gets a
 * context of its own on its node, after the highest context any other process of this resolve uses
 * there, in order of (host, pid, start). So the numbering depends only on the set of files resolved.
 */
import { INFO_EXEC_REPLACED, type RawInfo } from '../samples/raw-model.js';
import { fileNumbering } from './assemble.js';

export interface ImageSummary {
  file: string;
  info: Pick<RawInfo, 'node' | 'flags' | 'pid' | 'startNs' | 'attributes'>;
}

/** An earlier image and the context it is given. */
export interface ReplacedImage {
  file: string;
  node: number;
  context: number;
  /** What the image ran (its Executable attribute), '' when unknown. */
  executable: string;
}

/** The attributes of a process this file reads (a resolve keeps only these of each process). */
export const IMAGE_ATTRIBUTES = new Set(['Hostname', 'Executable']);

function attribute(p: ImageSummary, key: string): string {
  return p.info.attributes.find(([k]) => k === key)?.[1] ?? '';
}

/** The images replaced by exec that another image of their process follows, with their contexts. */
export function replacedImages(procs: ImageSummary[], underRun: boolean): ReplacedImage[] {
  const byProcess = new Map<string, ImageSummary[]>();
  for (const p of procs) {
    const key = `${attribute(p, 'Hostname')}\u0000${p.info.pid}`;
    const list = byProcess.get(key) ?? [];
    list.push(p);
    byProcess.set(key, list);
  }
  const earlier: ImageSummary[] = [];
  for (const list of byProcess.values()) {
    list.sort((a, b) => (a.info.startNs < b.info.startNs ? -1 : a.info.startNs > b.info.startNs ? 1 : 0));
    for (const p of list.slice(0, -1)) if ((p.info.flags & INFO_EXEC_REPLACED) !== 0) earlier.push(p);
  }
  if (earlier.length === 0) return [];
  const replaced = new Set(earlier);
  const highest = new Map<number, number>();
  for (const p of procs) {
    if (replaced.has(p)) continue;
    const { node, context } = fileNumbering(p, underRun);
    highest.set(node, Math.max(highest.get(node) ?? 0, context));
  }
  earlier.sort(
    (a, b) =>
      attribute(a, 'Hostname').localeCompare(attribute(b, 'Hostname')) ||
      a.info.pid - b.info.pid ||
      (a.info.startNs < b.info.startNs ? -1 : a.info.startNs > b.info.startNs ? 1 : 0),
  );
  return earlier.map((p) => {
    const node = fileNumbering(p, underRun).node;
    const context = (highest.get(node) ?? 0) + 1;
    highest.set(node, context);
    return { file: p.file, node, context, executable: attribute(p, 'Executable') };
  });
}
