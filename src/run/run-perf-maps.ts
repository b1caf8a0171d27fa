/**
 * The perf maps V8 wrote for the processes of a `hyprof run` (/tmp/perf-<pid>.map, docs/node.md):
 * read by the resolve step, then removed, so the names of the program's code do not stay in /tmp.
 * Only the user's own regular files are removed (never a link or another user's file).
 */
import { lstatSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import { perfMapPath } from '../symbolize/perf-map.js';

/** The pid in a raw file's name (`hyprof.<host>.<pid>.<start us>.raw`), or null. */
export function rawFilePid(file: string): number | null {
  const m = /\.(\d+)\.\d+\.raw$/.exec(basename(file));
  return m ? Number(m[1]) : null;
}

/** Remove the perf maps of the processes that wrote these raw files; returns the paths removed. */
export function removePerfMaps(raws: string[]): string[] {
  const removed: string[] = [];
  for (const raw of raws) {
    const pid = rawFilePid(raw);
    if (pid === null) continue;
    const path = perfMapPath(pid);
    try {
      const st = lstatSync(path);
      if (!st.isFile() || st.uid !== process.getuid?.()) continue;
      rmSync(path);
      removed.push(path);
    } catch {
      // none (not a Node process, or no perf map asked for)
    }
  }
  return removed;
}
