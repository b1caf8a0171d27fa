/**
 * What resolve reads besides the raw file, and must not trust blindly: V8 perf maps in /tmp (anyone
 * can create files there) and the symbol cache (a file that may be corrupt or planted). An untrusted
 * perf map is not used, with a warning; an untrusted or corrupt cache file is discarded and rebuilt
 * from the real symbolizer.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { perfMapPath, PerfMap } from '../src/symbolize/perf-map.js';
import { readBuildId } from '../src/symbolize/elf-build-id.js';
import { Symbolizer } from '../src/symbolize/symbolizer.js';
import { compileC, tmpDir } from './helpers/native.js';

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

/** A real executable with a build id, and the address of one of its functions. */
function program(): { exe: string; buildId: string; address: bigint } {
  const exe = compileC('symprog', ['symbolize_prog.c', 'symbolize_lib.c'], { link: false, cflags: ['-O1', '-g', '-no-pie', '-fno-PIE'] });
  const nm = spawnSync('nm', ['--defined-only', exe], { encoding: 'utf8' }).stdout;
  const m = /^([0-9a-f]+) [tT] sym_outer$/m.exec(nm);
  if (!m) throw new Error(`no sym_outer in ${exe}`);
  return { exe, buildId: readBuildId(exe)!, address: BigInt(`0x${m[1]}`) };
}

test('a corrupt or untrusted symbol cache file is discarded, the module symbolized afresh and the file rebuilt', async (t) => {
  const { exe, buildId, address } = program();
  t.regex(buildId, /^[0-9a-f]{40}$/);
  const cacheDir = join(tmpDir('symcache-trust'), 'symbols');
  const first = new Symbolizer({ cacheDir });
  const [frames] = await first.symbolizeModule(exe, buildId, [address]);
  t.is(frames?.[0].function, 'sym_outer');
  const file = join(cacheDir, `${buildId}.${first.tool}.lines`);
  const good = readFileSync(file, 'utf8');
  const addr = address.toString(16);
  t.true(good.startsWith(`${addr}\t[{`), good);
  const corrupt: Array<[string, string]> = [
    ['not JSON', `${good.slice(0, good.length >> 1)}\n`],
    ['a line without a tab', 'sym_outer\n'],
    ['an address that is no hex number', 'zzz\tnull\n'],
    ['frames that are no list', `${addr}\t"sym_outer"\n`],
    ['a function that is no text', `${addr}\t${JSON.stringify([{ function: 7, file: 'x.c', line: 1 }])}\n`],
    ['a negative line', `${addr}\t${JSON.stringify([{ function: 'planted', file: 'x.c', line: -1 }])}\n`],
    ['an empty inline chain', `${addr}\t[]\n`],
  ];
  for (const [what, text] of corrupt) {
    writeFileSync(file, text);
    const s = new Symbolizer({ cacheDir });
    const [again] = await s.symbolizeModule(exe, buildId, [address]);
    t.is(again?.[0].function, 'sym_outer', what);
    t.is(readFileSync(file, 'utf8'), good, `${what}: rebuilt`);
  }
  // A well-formed file planted by someone else, or writable by everyone, is not believed either.
  const planted = `${addr}\t${JSON.stringify([{ function: 'planted', file: '/x.c', line: 1 }])}\n`;
  writeFileSync(file, planted);
  chmodSync(file, 0o666);
  const [notShared] = await new Symbolizer({ cacheDir }).symbolizeModule(exe, buildId, [address]);
  t.is(notShared?.[0].function, 'sym_outer');
  if (isRoot) {
    writeFileSync(file, planted);
    chownSync(file, 65534, 65534);
    const [notForeign] = await new Symbolizer({ cacheDir }).symbolizeModule(exe, buildId, [address]);
    t.is(notForeign?.[0].function, 'sym_outer');
  } else {
    t.log('not root: a file of another user cannot be made here, that case is not run');
  }
  // And a trusted, well-formed file is used as it is (the cache does its job).
  writeFileSync(file, planted);
  chmodSync(file, 0o644);
  const [cached] = await new Symbolizer({ cacheDir }).symbolizeModule(exe, buildId, [address]);
  t.is(cached?.[0].function, 'planted');
});

test('the symbol cache: each resolve appends the addresses it symbolized, and reads only the lines it needs', async (t) => {
  const { exe, buildId, address } = program();
  const nm = spawnSync('nm', ['--defined-only', exe], { encoding: 'utf8' }).stdout;
  const other = BigInt(`0x${/^([0-9a-f]+) [tT] main$/m.exec(nm)![1]}`);
  const cacheDir = join(tmpDir('symcache-append'), 'symbols');
  const first = new Symbolizer({ cacheDir });
  await first.symbolizeModule(exe, buildId, [address]);
  const file = join(cacheDir, `${buildId}.${first.tool}.lines`);
  const one = readFileSync(file, 'utf8');
  // A later resolve that needs another address appends its line; the first stays as it was.
  const [main] = await new Symbolizer({ cacheDir }).symbolizeModule(exe, buildId, [address, other]);
  t.is(main?.[0].function, 'sym_outer');
  const two = readFileSync(file, 'utf8');
  t.true(two.startsWith(one), two);
  t.is(two.split('\n').filter((l) => l !== '').length, 2, two);
  t.true(two.slice(one.length).startsWith(`${other.toString(16)}\t`), two);
  // Only the lines of the addresses asked for are parsed: a line of another address that is no JSON
  // (here: cut short) changes nothing, and a last line not ended by a newline (a resolve still
  // appending) is not read.
  const planted = `${address.toString(16)}\t${JSON.stringify([{ function: 'planted', file: '/x.c', line: 1 }])}\n`;
  writeFileSync(file, `${other.toString(16)}\t[{"function":\n${planted}${address.toString(16)}\t[{"function":"half"`);
  const [cached] = await new Symbolizer({ cacheDir }).symbolizeModule(exe, buildId, [address]);
  t.is(cached?.[0].function, 'planted');
});

test('the symbol cache index: a resolve reads the lines it needs through it, and a stale one is not used', async (t) => {
  const { exe, buildId, address } = program();
  const nm = spawnSync('nm', ['--defined-only', exe], { encoding: 'utf8' }).stdout;
  const other = BigInt(`0x${/^([0-9a-f]+) [tT] main$/m.exec(nm)![1]}`);
  const cacheDir = join(tmpDir('symcache-index'), 'symbols');
  const first = new Symbolizer({ cacheDir });
  await first.symbolizeModule(exe, buildId, [address]);
  const file = join(cacheDir, `${buildId}.${first.tool}.lines`);
  const index = join(cacheDir, `${buildId}.${first.tool}.index`);
  // A cache without an index (as earlier versions kept it) is scanned, and its index written.
  t.false(existsSync(index));
  const planted = `${address.toString(16)}\t${JSON.stringify([{ function: 'planted', file: '/x.c', line: 1 }])}\n`;
  const otherLine = `${other.toString(16)}\t${JSON.stringify([{ function: 'main', file: '/x.c', line: 2 }])}\n`;
  writeFileSync(file, planted + otherLine);
  const [scanned] = await new Symbolizer({ cacheDir }).symbolizeModule(exe, buildId, [address]);
  t.is(scanned?.[0].function, 'planted');
  t.true(existsSync(index));
  // Through the index only the wanted line is read: the other line, spoilt in place (no tab, which a
  // scan refuses, the file then rebuilt), is not looked at.
  writeFileSync(file, planted + `${'x'.repeat(otherLine.length - 1)}\n`);
  const [indexed] = await new Symbolizer({ cacheDir }).symbolizeModule(exe, buildId, [address]);
  t.is(indexed?.[0].function, 'planted');
  // Lines appended after the index was written are scanned and then indexed.
  writeFileSync(file, planted + otherLine);
  await new Symbolizer({ cacheDir }).symbolizeModule(exe, buildId, [address]);
  writeFileSync(file, planted + otherLine + `${(address + 1n).toString(16)}\tnull\n`);
  const sizeBefore = statSync(index).size;
  const sizeOfLines = statSync(file).size;
  const [still] = await new Symbolizer({ cacheDir }).symbolizeModule(exe, buildId, [address]);
  t.is(still?.[0].function, 'planted');
  t.true(statSync(index).size > sizeBefore, 'the appended line is in the index');
  // A stale index (the file replaced: its offsets point at other lines) is not used: the file is
  // scanned, and the line of the address found where it now is.
  const moved = `${address.toString(16)}\t${JSON.stringify([{ function: 'moved', file: '/x.c', line: 1 }])}\n`;
  const filler = `${(address + 2n).toString(16)}\tnull\n${(address + 3n).toString(16)}\tnull\n`;
  writeFileSync(file, otherLine + moved + filler);
  t.true(statSync(file).size >= sizeOfLines, 'the index covers no more than the new file: its offsets are checked');
  const [rescanned] = await new Symbolizer({ cacheDir }).symbolizeModule(exe, buildId, [address]);
  t.is(rescanned?.[0].function, 'moved');
  // A spoilt index (cut short) is ignored the same way.
  writeFileSync(index, 'HYIX');
  const [again] = await new Symbolizer({ cacheDir }).symbolizeModule(exe, buildId, [address]);
  t.is(again?.[0].function, 'moved');
});
