import test from 'ava';
import { copyFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Symbolizer } from '../src/symbolize/symbolizer.js';
import { readBuildId } from '../src/symbolize/elf-build-id.js';
import { RawContexts, RawStats, type RawMapping, type RawProcess } from '../src/samples/raw-model.js';
import type { Resolution } from '../src/symbolize/frames.js';
import { compileC, haveTool, libPath, tmpDir } from './helpers/native.js';

interface Built {
  exe: string;
  lib: string;
  stripped: string;
  syms: Map<string, { addr: bigint; size: bigint }>;
  libSyms: Map<string, { addr: bigint; size: bigint }>;
}

function nmSymbols(file: string): Map<string, { addr: bigint; size: bigint }> {
  const r = spawnSync('nm', ['-S', '--defined-only', file], { encoding: 'utf8' });
  const out = new Map<string, { addr: bigint; size: bigint }>();
  for (const line of r.stdout.split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) [tT] (\S+)$/.exec(line);
    if (m) out.set(m[3], { addr: BigInt('0x' + m[1]), size: BigInt('0x' + m[2]) });
  }
  return out;
}

function build(cc: 'gcc' | 'clang', pie: boolean): Built {
  const dir = tmpDir(`sym-${cc}-${pie ? 'pie' : 'nopie'}`);
  const lib = compileC('libsymlib.so', ['symbolize_lib.c'], { cc, cflags: ['-O2', '-g', '-shared', '-fPIC'], link: false, outDir: dir });
  const exe = compileC('symprog', ['symbolize_prog.c'], {
    cc,
    cflags: ['-O2', '-g', pie ? '-pie' : '-no-pie', pie ? '-fPIE' : '-fno-PIE'],
    link: false,
    outDir: dir,
    ldflags: [`-L${dir}`, '-lsymlib', `-Wl,-rpath,${dir}`],
  });
  const stripped = join(dir, 'symprog.stripped');
  copyFileSync(exe, stripped);
  spawnSync('strip', [stripped]);
  return { exe, lib, stripped, syms: nmSymbols(exe), libSyms: nmSymbols(lib) };
}

/** A process image as the runtime records it: the executable, the library and the vdso mapped. */
function fakeProcess(b: Built, pie: boolean, exe = b.exe): { proc: RawProcess; exeBias: bigint; libBias: bigint } {
  const exeBias = pie ? 0x555555554000n : 0n;
  const libBias = 0x7f1234560000n;
  const maps: RawMapping[] = [
    { start: exeBias + 0x1000n, end: exeBias + 0x800000n, bias: exeBias, path: exe, buildId: "" },
    { start: libBias + 0x1000n, end: libBias + 0x2000n, bias: libBias, path: b.lib, buildId: '' },
    { start: 0x7fff00000000n, end: 0x7fff00002000n, bias: 0x7fff00000000n, path: '[vdso]', buildId: '' },
  ];
  const proc = {
    file: 'x.raw',
    version: 1,
    info: { pid: 1, ppid: 0, node: 0, flags: 0, startNs: 0n, stopNs: 0n, metrics: ['TIME'], attributes: [] },
    events: [],
    contexts: RawContexts.of([]),
    threads: [],
    userEvents: new Map(),
    maps,
    sampling: null,
  } as RawProcess;
  return { proc, exeBias, libBias };
}

function withSamples(proc: RawProcess, pcs: bigint[][]): RawProcess {
  proc.threads = [
    {
      index: 0, tid: 1, name: '', startNs: 0n, stopNs: 0n, flags: 0, stats: RawStats.of(proc.contexts, 1, []), open: [], userStats: [], drops: [], warnings: [],
      samples: pcs.map((p) => ({ context: 1n, count: 1, values: [1], state: 0, pcs: p })),
    },
  ];
  return proc;
}

function fnNames(r: Resolution): string[] {
  return r.resolved ? r.frames.map((f) => f.function) : [`UNRESOLVED ${r.module}`];
}

/** The return address after main's call to sym_outer, from the disassembly. */
function returnAddressOfCall(exe: string, caller: string, callee: string): bigint {
  const r = spawnSync('objdump', ['-d', '--no-show-raw-insn', exe], { encoding: 'utf8' });
  const lines = r.stdout.split('\n');
  let inCaller = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^[0-9a-f]+ <(.*)>:$/.test(lines[i])) inCaller = lines[i].endsWith(`<${caller}>:`);
    if (inCaller && lines[i].includes('call') && lines[i].includes(`<${callee}>`)) {
      const next = /^\s*([0-9a-f]+):/.exec(lines[i + 1]);
      if (next) return BigInt('0x' + next[1]);
    }
  }
  throw new Error(`no call from ${caller} to ${callee} in ${exe}`);
}

const tools = ['llvm-symbolizer', 'addr2line'].filter(haveTool);

for (const cc of ['gcc', 'clang'] as const) {
  for (const pie of [true, false]) {
    test(`${cc} ${pie ? 'PIE' : 'non-PIE'}: functions, lines, inlining, shared library, return addresses`, async (t) => {
      t.true(tools.includes('llvm-symbolizer'));
      const b = build(cc, pie);
      const { proc, exeBias, libBias } = fakeProcess(b, pie);
      const outer = b.syms.get('sym_outer')!;
      const main = b.syms.get('main')!;
      const libFn = b.libSyms.get('symlib_work')!;
      t.truthy(outer && main && libFn);
      const outerRange: bigint[] = [];
      for (let a = outer.addr; a < outer.addr + outer.size; a++) outerRange.push(exeBias + a);
      const ret = exeBias + returnAddressOfCall(b.exe, 'main', 'sym_outer');
      const libRange: bigint[] = [];
      for (let a = libFn.addr; a < libFn.addr + libFn.size; a++) libRange.push(libBias + a);
      withSamples(proc, [[exeBias + main.addr], [outerRange[0], ret], ...outerRange.map((a) => [a]), ...libRange.map((a) => [a])]);

      const byTool = new Map<string, string[][]>();
      for (const tool of tools) {
        const s = new Symbolizer({ symbolizer: tool as 'llvm-symbolizer' | 'addr2line' });
        await s.prepare([proc]);
        const mainR = s.resolve(proc, exeBias + main.addr, false);
        t.deepEqual(fnNames(mainR), ['main'], tool);
        t.true(mainR.resolved && mainR.frames[0].file.endsWith('symbolize_prog.c'), tool);

        // A return address names the call site: main's line 19, not the line after the call.
        const call = s.resolve(proc, ret, true);
        t.true(call.resolved, tool);
        if (call.resolved) {
          t.is(call.frames.at(-1)!.function, 'main');
          t.is(call.frames.at(-1)!.line, 19, `${tool}: call site line`);
        }

        const chains = outerRange.map((a) => fnNames(s.resolve(proc, a, false)));
        for (const c of chains) t.is(c.at(-1), 'sym_outer', `${tool}: outermost frame of every address in sym_outer`);
        // llvm-symbolizer reports inlined frames for both compilers (addr2line does not always).
        if (tool === 'llvm-symbolizer') {
          t.true(chains.some((c) => c.join(',') === 'sym_square,sym_outer'), `${tool}: inlined sym_square seen`);
        }
        byTool.set(tool, chains);

        const lib = libRange.map((a) => s.resolve(proc, a, false));
        t.true(lib.every((r) => r.resolved && r.frames.at(-1)!.function === 'symlib_work'), tool);
        t.true(lib.some((r) => r.resolved && r.frames[0].line === 4 && r.frames[0].file.endsWith('symbolize_lib.c')), tool);

        t.deepEqual(s.resolve(proc, 0x10n, false), { resolved: false, module: 'UNKNOWN', address: 0x10n });
        t.deepEqual(s.resolve(proc, 0x7fff00000100n, false), { resolved: false, module: '[vdso]', address: 0x7fff00000100n });
      }
      if (byTool.size === 2) {
        // The fallback gives the same function names (outermost frame) for every address.
        t.deepEqual(byTool.get('addr2line')!.map((c) => c.at(-1)), byTool.get('llvm-symbolizer')!.map((c) => c.at(-1)));
      }
    });
  }
}

test('a stripped executable and a missing module give UNRESOLVED <module>', async (t) => {
  const b = build('gcc', true);
  const { proc, exeBias } = fakeProcess(b, true, b.stripped);
  const outer = b.syms.get('sym_outer')!;
  withSamples(proc, [[exeBias + outer.addr]]);
  const s = new Symbolizer({ symbolizer: 'auto' });
  await s.prepare([proc]);
  t.deepEqual(s.resolve(proc, exeBias + outer.addr, false), { resolved: false, module: b.stripped, address: exeBias + outer.addr });

  const gone = fakeProcess(b, true, join(tmpDir('gone'), 'deleted-binary')).proc;
  withSamples(gone, [[exeBias + outer.addr]]);
  const s2 = new Symbolizer();
  await s2.prepare([gone]);
  const r = s2.resolve(gone, exeBias + outer.addr, false);
  t.false(r.resolved);
  t.regex(s2.warnings.join('\n'), /deleted-binary: module not found; its samples stay UNRESOLVED/);
});

test("hyprof's own library is never sent to the symbolizer: its frames are left out of every profile", async (t) => {
  const b = build('gcc', true);
  const { proc, exeBias } = fakeProcess(b, true);
  const own = nmSymbols(libPath);
  const fn = [...own.entries()].find(([name]) => name.startsWith('hp_'));
  if (!fn) return t.fail(`nm shows no hp_ function in ${libPath}`);
  const ownBias = 0x7f5550000000n;
  proc.maps.push({ start: ownBias + fn[1].addr - 0x1000n, end: ownBias + fn[1].addr + 0x100000n, bias: ownBias, path: libPath, buildId: readBuildId(libPath) ?? '' });
  const outer = b.syms.get('sym_outer')!;
  // the runtime caught at work (its function as the leaf) under the program's code
  withSamples(proc, [[ownBias + fn[1].addr + 4n, exeBias + outer.addr + 4n]]);
  const symbolized: string[] = [];
  const s = new Symbolizer({ cacheDir: null, onProgress: (_d, _t, what) => symbolized.push(what) });
  await s.prepare([proc]);
  t.deepEqual(symbolized, [b.exe]);
  t.deepEqual(s.resolve(proc, ownBias + fn[1].addr + 4n, false), { resolved: false, module: libPath, address: ownBias + fn[1].addr + 4n });
  t.deepEqual(fnNames(s.resolve(proc, exeBias + outer.addr + 4n, true)), ['sym_outer']);
});

test('an unknown symbolizer asked for by name is a clear error', (t) => {
  const orig = process.env.PATH;
  const dir = tmpDir('nopath');
  writeFileSync(join(dir, 'README'), 'empty PATH for the test');
  process.env.PATH = dir;
  try {
    const err = t.throws(() => new Symbolizer({ symbolizer: 'llvm-symbolizer' }));
    t.is(err?.message, 'symbolizer "llvm-symbolizer" was asked for but is not installed (not on the PATH)');
  } finally {
    process.env.PATH = orig;
  }
});

test('symbols of a module with a build id are cached on disk and reused', async (t) => {
  const b = build('gcc', true);
  const cacheDir = join(tmpDir('symcache'), 'symbols');
  const { proc, exeBias } = fakeProcess(b, true);
  const id = readBuildId(b.exe)!;
  t.regex(id, /^[0-9a-f]{40}$/);
  proc.maps[0].buildId = id;
  const outer = b.syms.get('sym_outer')!;
  withSamples(proc, [[exeBias + outer.addr]]);
  const s1 = new Symbolizer({ cacheDir });
  await s1.prepare([proc]);
  t.deepEqual(fnNames(s1.resolve(proc, exeBias + outer.addr, false)), ['sym_outer']);
  t.true(readdirSync(cacheDir).some((f) => f.startsWith(`${id}.`)));
  // The binary is gone: a new symbolizer still names the address from the cache, without a warning.
  rmSync(b.exe);
  const s2 = new Symbolizer({ cacheDir });
  await s2.prepare([proc]);
  t.deepEqual(fnNames(s2.resolve(proc, exeBias + outer.addr, false)), ['sym_outer']);
  t.deepEqual(s2.warnings, []);
});

test('a binary rebuilt since the run (other build id) is not trusted', async (t) => {
  const b = build('gcc', true);
  const { proc, exeBias } = fakeProcess(b, true);
  proc.maps[0].buildId = '00112233445566778899aabbccddeeff00112233';
  const outer = b.syms.get('sym_outer')!;
  withSamples(proc, [[exeBias + outer.addr]]);
  const s = new Symbolizer({ cacheDir: null });
  await s.prepare([proc]);
  t.false(s.resolve(proc, exeBias + outer.addr, false).resolved);
  t.deepEqual(s.warnings, [
    `${b.exe}: build id ${readBuildId(b.exe)} differs from the one measured (00112233445566778899aabbccddeeff00112233): the file changed since the run; its samples stay UNRESOLVED`,
  ]);
});
