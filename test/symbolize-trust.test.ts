/**
 * What resolve reads besides the raw file, and must not trust blindly: V8 perf maps in /tmp (anyone
 * can create files there). An untrusted perf map is not used, with a warning.
 */
import test from 'ava';
import { chmodSync, chownSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { perfMapPath, PerfMap } from '../src/symbolize/perf-map.js';
import { tmpDir } from './helpers/native.js';

const LINE = '1000 10 JS:*f file:///x.js:3:1\n';
const isRoot = process.getuid?.() === 0;

/** A pid no process has (above the kernel's pid_max of 4,194,304), so the map is ours alone. */
const freshPid = (): number => 5_000_000 + Math.floor(Math.random() * 1_000_000);

function forProcess(pid: number): { map: PerfMap | null; warnings: string[] } {
  const warnings: string[] = [];
  const map = PerfMap.forProcess(pid, BigInt(Date.now() - 60_000) * 1_000_000n, (w) => warnings.push(w));
  return { map, warnings };
}

test('a perf map that is a symbolic link, writable by every user or another user\'s is not used', (t) => {
  const target = join(tmpDir('perfmap-target'), 'map');
  writeFileSync(target, LINE);
  const pid = freshPid();
  const path = perfMapPath(pid);
  try {
    writeFileSync(path, LINE, { mode: 0o644 });
    chmodSync(path, 0o644);
    const good = forProcess(pid);
    t.is(good.map?.lookup(0x1004n), 'JS:*f file:///x.js:3:1');
    t.deepEqual(good.warnings, []);

    chmodSync(path, 0o666);
    const shared = forProcess(pid);
    t.is(shared.map, null);
    t.deepEqual(shared.warnings, [`${path} is writable by every user: not used for the JIT frames of process ${pid}`]);
    chmodSync(path, 0o644);

    if (isRoot) {
      chownSync(path, 65534, 65534);
      const foreign = forProcess(pid);
      t.is(foreign.map, null);
      t.deepEqual(foreign.warnings, [`${path} belongs to uid 65534, not to this user (uid 0): not used for the JIT frames of process ${pid}`]);
    } else {
      t.log('not root: a file of another user cannot be made here, that case is not run');
    }

    rmSync(path);
    symlinkSync(target, path);
    const linked = forProcess(pid);
    t.is(linked.map, null);
    t.deepEqual(linked.warnings, [`${path} is a symbolic link: not used for the JIT frames of process ${pid}`]);
  } finally {
    rmSync(path, { force: true });
  }
});
