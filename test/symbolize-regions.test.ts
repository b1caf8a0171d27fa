/**
 * A new address of a function named by its symbol table alone takes the stored answer of another
 * address of that function (symbol-regions.ts, disk-cache.ts): checked against the real
 * llvm-symbolizer on a program whose one file has debug information and the other none, and that the
 * tool is then not run; regions are refused where debug information covers the code or is kept in
 * another file; the regions kept on disk are checked as the lines files are.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildRegions, SymbolRegions } from '../src/symbolize/symbol-regions.js';
import { loadRegions } from '../src/symbolize/disk-cache.js';
import { readBuildId } from '../src/symbolize/elf-build-id.js';
import { Symbolizer } from '../src/symbolize/symbolizer.js';
import { haveTool, testNativeDir, tmpDir } from './helpers/native.js';

const hasTool = haveTool('llvm-symbolizer');

interface Program {
  exe: string;
  buildId: string;
  /** Function → [start, size] in the module, from nm. */
  fns: Map<string, [bigint, bigint]>;
}

/**
 * symbolize_prog.c with -g and regions_plain.c without, linked into one executable. clang writes
 * `.debug_aranges` only when asked (`-gdwarf-aranges`); without them no region can be claimed.
 */
function mixed(cc: 'gcc' | 'clang', aranges = true): Program {
  const dir = tmpDir(`regions-${cc}${aranges ? '' : '-no-aranges'}`);
  const run = (args: string[]) => {
    const r = spawnSync(cc, args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cc} ${args.join(' ')}: ${r.stderr}`);
  };
  run(['-O2', '-g', ...(cc === 'clang' && aranges ? ['-gdwarf-aranges'] : []), '-c', join(testNativeDir, 'symbolize_prog.c'), '-o', join(dir, 'prog.o')]);
  run(['-O2', '-g0', '-c', join(testNativeDir, 'regions_plain.c'), '-o', join(dir, 'plain.o')]);
  const exe = join(dir, 'mixed');
  run([join(dir, 'prog.o'), join(dir, 'plain.o'), '-Wl,--build-id', '-o', exe]);
  const fns = new Map<string, [bigint, bigint]>();
  for (const line of spawnSync('nm', ['-S', '--defined-only', exe], { encoding: 'utf8' }).stdout.split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) [tT] (\S+)$/.exec(line);
    if (m) fns.set(m[3].replace(/\.\w+\.\d+$|\.\d+$/, ''), [BigInt(`0x${m[1]}`), BigInt(`0x${m[2]}`)]);
  }
  return { exe, buildId: readBuildId(exe)!, fns };
}

/** Addresses across a function: its first bytes, its middle, its last byte. */
function across([start, size]: [bigint, bigint]): bigint[] {
  return [...new Set([start, start + 1n, start + size / 2n, start + size - 1n])];
}

for (const cc of ['gcc', 'clang'] as const) {
  test(`${cc}: every address of a region gets the same answer from llvm-symbolizer; code with debug information has no region`, async (t) => {
    t.true(hasTool, 'llvm-symbolizer is needed by the test suite (scripts/install-deps.sh installs it)');
    const p = mixed(cc);
    const regions = SymbolRegions.read(p.exe, p.buildId, null);
    t.truthy(regions, 'a file with complete .debug_aranges and no separate debug file has regions');
    const addresses = [...p.fns.values()].flatMap(across);
    const answers = await new Symbolizer({ cacheDir: null }).symbolizeModule(p.exe, p.buildId, addresses);
    const byRegion = new Map<string, string>();
    let shared = 0;
    addresses.forEach((a, i) => {
      const r = regions!.regionOf(a);
      if (!r) return;
      const key = `${r[0]}-${r[1]}`;
      const answer = JSON.stringify(answers[i]);
      if (byRegion.has(key)) {
        shared++;
        t.is(answer, byRegion.get(key)!, `0x${a.toString(16)} answered as the rest of its region`);
      } else byRegion.set(key, answer);
    });
    t.true(shared >= 6, `several addresses shared a region (${shared})`);
    // The file built without debug information has regions; the one with it has none.
    for (const f of ['plain_global', 'plain_static', 'symlib_work']) t.truthy(regions!.regionOf(p.fns.get(f)![0] + 1n), `${f} has a region`);
    for (const f of ['sym_outer', 'main']) for (const a of across(p.fns.get(f)!)) t.is(regions!.regionOf(a), null, `${f} is covered by DWARF`);
    // A static function's answer carries its file, from the symbol table alone.
    const i = addresses.indexOf(p.fns.get('plain_static')![0] + 1n);
    t.deepEqual(answers[i], [{ function: 'plain_static', file: 'regions_plain.c', line: 0 }]);
  });
}

test('clang without .debug_aranges: debug information that cannot be bounded gives no regions', (t) => {
  const p = mixed('clang', false);
  t.is(spawnSync('readelf', ['-S', '--wide', p.exe], { encoding: 'utf8' }).stdout.includes('.debug_aranges'), false);
  t.is(SymbolRegions.read(p.exe, p.buildId, null), null);
});

test('a new address of a function seen before is named from the cache without running the tool; a new function runs it', async (t) => {
  t.true(hasTool, 'llvm-symbolizer is needed by the test suite (scripts/install-deps.sh installs it)');
  const p = mixed('gcc');
  const cacheDir = join(tmpDir('regions-cache'), 'symbols');
  // The real tool behind a wrapper that counts its runs.
  const bin = tmpDir('regions-bin');
  const log = join(bin, 'runs');
  const real = spawnSync('sh', ['-c', 'command -v llvm-symbolizer'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(join(bin, 'llvm-symbolizer'), `#!/bin/sh\necho run >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path}`;
  const runs = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
  try {
    const [start, size] = p.fns.get('plain_global')!;
    const [first] = await new Symbolizer({ cacheDir, symbolizer: 'llvm-symbolizer' }).symbolizeModule(p.exe, p.buildId, [start + 1n]);
    t.is(runs(), 1);
    t.deepEqual(first, [{ function: 'plain_global', file: '', line: 0 }]);
    const later = new Symbolizer({ cacheDir, symbolizer: 'llvm-symbolizer' });
    const [again] = await later.symbolizeModule(p.exe, p.buildId, [start + size - 2n]);
    t.deepEqual(again, first);
    t.is(runs(), 1, 'the second address of plain_global took the first one\'s answer');
    t.true(existsSync(join(cacheDir, `${p.buildId}.regions`)));
    // Kept as an answer of its own: the next resolve finds it without the regions.
    t.true(readFileSync(join(cacheDir, `${p.buildId}.llvm-symbolizer.lines`), 'utf8').includes(`${(start + size - 2n).toString(16)}\t`));
    // Another function, and a line of code with debug information: the tool runs.
    const [outer] = await new Symbolizer({ cacheDir, symbolizer: 'llvm-symbolizer' }).symbolizeModule(p.exe, p.buildId, [p.fns.get('sym_outer')![0] + 2n]);
    t.is(outer?.[0].function, 'sym_outer');
    t.true(outer![0].line > 0);
    t.is(runs(), 2);
  } finally {
    process.env.PATH = path;
  }
});

test('no regions where debug information is kept in another file the tool would read', (t) => {
  t.true(haveTool('objcopy'), 'objcopy (binutils, with gcc) is needed by the test suite');
  const p = mixed('gcc');
  t.truthy(SymbolRegions.read(p.exe, p.buildId, null));
  const debug = `${p.exe}.debug`;
  spawnSync('objcopy', ['--only-keep-debug', p.exe, debug]);
  const r = spawnSync('objcopy', ['--strip-debug', `--add-gnu-debuglink=${debug}`, p.exe], { encoding: 'utf8' });
  t.is(r.status, 0, r.stderr);
  t.is(SymbolRegions.read(p.exe, p.buildId, null), null, 'the .gnu_debuglink target is beside it');
  rmSync(debug);
  t.truthy(SymbolRegions.read(p.exe, p.buildId, null), 'without its target the link names nothing');
  // A link naming a path (written in place of the name, same length): no regions, whatever exists.
  const bytes = readFileSync(p.exe);
  const at = bytes.indexOf(Buffer.from('mixed.debug\0'));
  t.true(at > 0);
  bytes.write('x/xed.debug', at, 'latin1');
  writeFileSync(p.exe, bytes);
  t.is(SymbolRegions.read(p.exe, p.buildId, null), null, 'a link with a slash');
  t.is(SymbolRegions.read(p.exe, 'ab'.repeat(20), null), null, 'another build id: not the file measured');
  const urls = process.env.DEBUGINFOD_URLS;
  process.env.DEBUGINFOD_URLS = 'http://127.0.0.1:1';
  try {
    t.is(SymbolRegions.read(p.exe, p.buildId, null), null, 'debuginfod may give the tool debug information');
  } finally {
    if (urls === undefined) delete process.env.DEBUGINFOD_URLS;
    else process.env.DEBUGINFOD_URLS = urls;
  }
});

test('regions kept on disk are used only when they are this user\'s own and of their layout', (t) => {
  const p = mixed('gcc');
  const cacheDir = join(tmpDir('regions-trust'), 'symbols');
  const fresh = SymbolRegions.read(p.exe, p.buildId, cacheDir)!;
  const file = join(cacheDir, `${p.buildId}.regions`);
  const stored = loadRegions(cacheDir, p.buildId);
  t.truthy(stored);
  const probe = p.fns.get('plain_global')![0] + 1n;
  t.deepEqual(SymbolRegions.read(p.exe, p.buildId, cacheDir)!.regionOf(probe), fresh.regionOf(probe));
  // Garbage in its place: not read, computed again and the file replaced.
  writeFileSync(file, 'not regions at all, but long enough');
  t.is(loadRegions(cacheDir, p.buildId), null);
  t.deepEqual(SymbolRegions.read(p.exe, p.buildId, cacheDir)!.regionOf(probe), fresh.regionOf(probe));
  t.truthy(loadRegions(cacheDir, p.buildId));
  // Starts out of order: refused.
  const bytes = readFileSync(file);
  const count = bytes.readDoubleLE(8);
  t.true(count >= 2);
  bytes.writeDoubleLE(bytes.readDoubleLE(16 + 8), 16);
  writeFileSync(file, bytes);
  t.is(loadRegions(cacheDir, p.buildId), null);
  SymbolRegions.read(p.exe, p.buildId, cacheDir);
  // Writable by every user: not believed.
  chmodSync(file, 0o666);
  t.is(loadRegions(cacheDir, p.buildId), null);
  t.true(readdirSync(cacheDir).every((f) => !f.includes('.tmp.')));
});

/** One ELF64 symbol: name offset 0, its type, section 1 (defined) or 0, value and size. */
function sym(type: number, value: number, size: number, shndx = 1): Buffer {
  const b = Buffer.alloc(24);
  b[4] = type;
  b.writeUInt16LE(shndx, 6);
  b.writeBigUInt64LE(BigInt(value), 8);
  b.writeBigUInt64LE(BigInt(size), 16);
  return b;
}

test('a region runs from a sized function\'s start to its end or the next symbol, and never over debug information', (t) => {
  const FUNC = 2;
  const NOTYPE = 0;
  const OBJECT = 1;
  const FILE = 4;
  const table = Buffer.concat([
    sym(FUNC, 0x1000, 0x40),
    sym(NOTYPE, 0x1010, 0), // a label inside it: cuts the region
    sym(FUNC, 0x2000, 0), // no size: the tool may name what follows it
    sym(FUNC, 0x3000, 0x40), // two names of one function, of two sizes: the smaller holds
    sym(FUNC, 0x3000, 0x20),
    sym(FUNC, 0x4000, 0x100), // debug information covers part of it
    sym(OBJECT, 0x5000, 0x10),
    sym(FUNC, 0x6000, 0x10),
    sym(FILE, 0x6008, 0), // files and undefined symbols are no starts
    sym(FUNC, 0x6004, 0x10, 0),
  ]);
  const regions = SymbolRegions.of(buildRegions([[table, 24]], [[0x4080, 0x4090]]));
  t.deepEqual(regions.regionOf(0x1000n), [0x1000n, 0x1010n]);
  t.deepEqual(regions.regionOf(0x100fn), [0x1000n, 0x1010n]);
  t.is(regions.regionOf(0x1010n), null);
  t.is(regions.regionOf(0x2004n), null);
  t.deepEqual(regions.regionOf(0x301fn), [0x3000n, 0x3020n]);
  t.is(regions.regionOf(0x3020n), null);
  t.is(regions.regionOf(0x4000n), null);
  t.is(regions.regionOf(0x5004n), null);
  t.deepEqual(regions.regionOf(0x600an), [0x6000n, 0x6010n]);
  t.is(regions.regionOf(0x6010n), null);
  t.is(regions.regionOf(0xfffn), null);
});
