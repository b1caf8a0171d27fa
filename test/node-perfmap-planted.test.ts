/**
 * V8's perf map (the fallback for naming JavaScript frames: HYPROF_V8_JIT=0, or no V8 part) must not
 * let V8 write through a file planted at /tmp/perf-<pid>.map before it starts (native/sample/node.c):
 * V8 opens that path with fopen("w"), which follows a symbolic link. A shell plants the path for its
 * own pid and then execs node, which keeps the pid, under `hyprof run`.
 */
import test from 'ava';
import { lstatSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hyprof, testNativeDir, tmpDir } from './helpers/native.js';

const app = join(testNativeDir, 'node_perfmap_check.mjs');

async function runPlanted(plant: string) {
  const dir = tmpDir('perfmap-planted');
  const victim = join(dir, 'victim');
  writeFileSync(victim, 'untouched\n');
  const script = `echo "pid $$"; ${plant}; exec "$1" "$2"`;
  const r = await hyprof(['run', '--dir', join(dir, 'prof'), '--', 'sh', '-c', script, 'sh', process.execPath, app], {
    env: { HYPROF_V8_JIT: '0', NODE_OPTIONS: undefined, VICTIM: victim },
  });
  const pid = /^pid (\d+)$/m.exec(r.stdout)?.[1];
  const path = `/tmp/perf-${pid}.map`;
  return { r, victim, path };
}

test('a symbolic link planted at /tmp/perf-<pid>.map: V8 does not write through it, and a line names it', async (t) => {
  const { r, victim, path } = await runPlanted('ln -s "$VICTIM" /tmp/perf-$$.map');
  try {
    t.is(r.code, 0, r.stderr);
    t.is(readFileSync(victim, 'utf8'), 'untouched\n', 'the file the link points to is unchanged');
    t.regex(r.stdout, /perf map: the planted link/);
    t.true(lstatSync(path).isSymbolicLink(), 'the link is left where it was');
    const lines = r.stderr.split('\n').filter((l) => l.includes(path));
    t.true(
      lines.includes(
        `hyprof: ${path} already exists (a symbolic link): V8's perf map is not started (its flag is taken out of NODE_OPTIONS), so that V8 does not write through it; JavaScript frames are not named in this process`,
      ),
      r.stderr,
    );
  } finally {
    rmSync(path, { force: true });
  }
});

test("a perf map this user left with the same pid is replaced by a private one, which V8 writes", async (t) => {
  const { r, victim, path } = await runPlanted('echo stale > /tmp/perf-$$.map; chmod 644 /tmp/perf-$$.map');
  try {
    t.is(r.code, 0, r.stderr);
    t.regex(r.stdout, /perf map: a file, mode 600, stale line gone, JS code named/);
    t.notRegex(r.stderr, /already exists/);
    t.is(readFileSync(victim, 'utf8'), 'untouched\n');
  } finally {
    rmSync(path, { force: true });
  }
});
