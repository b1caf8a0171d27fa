/**
 * Batch symbolization of one module through one long-lived pipe to llvm-symbolizer (JSON output,
 * inlined frames, demangled) or GNU addr2line (-a -f -i -C): every address of the module is streamed
 * into the same process, never one process per address.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { SourceFrame, SymbolizerTool } from './frames.js';
import { FORTRAN_MAIN, fortranName } from './fortran-names.js';

/** Result per address, in input order: the inline chain (innermost first), or null when unknown. */
export type ModuleSymbols = Array<SourceFrame[] | null>;

const available = new Map<string, boolean>();

/**
 * Whether `tool` is an executable file on the PATH, found as the shell and spawn() find it. A search
 * of the PATH, not a run of `tool --version`: every resolve asks, and starting llvm-symbolizer cost
 * each one tens of milliseconds (a tool that is there but fails says so when it is run).
 */
export function toolAvailable(tool: SymbolizerTool): boolean {
  // Keyed by PATH too: the answer depends on it.
  const path = process.env.PATH ?? '';
  const key = `${tool}\0${path}`;
  let ok = available.get(key);
  if (ok === undefined) {
    ok = path.split(delimiter).some((dir) => isExecutableFile(join(dir || '.', tool)));
    available.set(key, ok);
  }
  return ok;
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function argsFor(tool: SymbolizerTool, path: string, names: 'linkage' | 'short'): string[] {
  return tool === 'llvm-symbolizer'
    ? [`--obj=${path}`, '--inlining=true', `--functions=${names}`, '--demangle', '--output-style=JSON']
    : ['-a', '-f', '-i', '-C', '-e', path];
}

/**
 * Run the tool once over all `addresses` (module addresses) of the object at `path`. Names come back
 * as programmers read them: C++ demangled by the tool, gfortran's module procedures and main program
 * by fortran-names.ts (the latter, and external procedures without the underscore gfortran adds,
 * through a second, short-names pass over the addresses in MAIN__ or in a `name_` function,
 * with llvm-symbolizer).
 */
export async function symbolizeBatch(tool: SymbolizerTool, path: string, addresses: bigint[]): Promise<ModuleSymbols> {
  const symbols = await runTool(tool, path, addresses, 'linkage');
  // Only where the debug information gives a line: without it the short name is the symbol's own,
  // and a second pass over a large stripped module (node has C functions named `name_`) costs a
  // symbolizer run for no name.
  const fortran = tool === 'llvm-symbolizer' ? addresses.filter((_a, i) => symbols[i]?.some((f) => f.line > 0 && fortranLinkage(f.function))) : [];
  if (fortran.length > 0) {
    const short = await runTool(tool, path, fortran, 'short');
    const shortOf = new Map(fortran.map((a, i) => [a, short[i]]));
    addresses.forEach((a, i) => {
      const names = shortOf.get(a);
      symbols[i]?.forEach((f, level) => {
        const name = names?.[level]?.function;
        if (name) f.function = fortranSourceName(f.function, name);
      });
    });
  }
  return fortranNames(symbols);
}

/** A name gfortran may have given a Fortran unit: MAIN__, or an external procedure's `name_`. */
function fortranLinkage(name: string): boolean {
  return name === FORTRAN_MAIN || /^[a-z0-9_$]+_$/.test(name);
}

/**
 * The Fortran name of a unit from its linkage name and its debug information's name: the PROGRAM's
 * name for MAIN__, `multiply_matrices` for the external procedure `multiply_matrices_` (gfortran adds
 * the underscore; a C function named `f_` has `f_` as both names and keeps it).
 */
function fortranSourceName(linkage: string, short: string): string {
  if (linkage === FORTRAN_MAIN) return short;
  return linkage === `${short}_` ? short : linkage;
}

/** The frames with gfortran's module procedure names read as Fortran (`kernels::relax`). */
export function fortranNames(symbols: ModuleSymbols): ModuleSymbols {
  for (const frames of symbols) for (const f of frames ?? []) f.function = fortranName(f.function);
  return symbols;
}

async function runTool(tool: SymbolizerTool, path: string, addresses: bigint[], names: 'linkage' | 'short'): Promise<ModuleSymbols> {
  if (addresses.length === 0) return [];
  const child = spawn(tool, argsFor(tool, path, names), { stdio: ['pipe', 'pipe', 'pipe'] });
  const chunks: string[] = [];
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => chunks.push(d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  // Stream the addresses in blocks, honouring back-pressure.
  child.stdin.on('error', () => {
    /* the exit status below reports what went wrong */
  });
  const BLOCK = 4096;
  for (let i = 0; i < addresses.length; i += BLOCK) {
    const text = addresses
      .slice(i, i + BLOCK)
      .map((a) => `0x${a.toString(16)}\n`)
      .join('');
    if (!child.stdin.write(text)) {
      await new Promise<void>((resolve) => {
        child.stdin.once('drain', resolve);
        child.once('close', resolve);
      });
    }
  }
  child.stdin.end();
  const code = await exited;
  const out = chunks.join('');
  if (code !== 0) throw new Error(`${tool} failed on ${path} (exit ${code}): ${stderr.trim()}`);
  return tool === 'llvm-symbolizer' ? parseLlvmJson(out, addresses.length) : parseAddr2line(out, addresses.length);
}

const UNKNOWN_FN = new Set(['', '??']);

function cleanFile(file: string | undefined): string {
  return !file || file === '??' ? '' : file;
}

interface LlvmSymbol {
  FunctionName?: string;
  FileName?: string;
  Line?: number;
}

export function parseLlvmJson(out: string, n: number): ModuleSymbols {
  const lines = out.split('\n').filter((l) => l.trim() !== '');
  const result: ModuleSymbols = [];
  for (let i = 0; i < n; i++) {
    const line = lines[i];
    if (line === undefined) {
      result.push(null);
      continue;
    }
    const rec = JSON.parse(line) as { Symbol?: LlvmSymbol[]; Error?: unknown };
    const frames: SourceFrame[] = [];
    for (const s of rec.Symbol ?? []) {
      if (UNKNOWN_FN.has(s.FunctionName ?? '')) continue;
      frames.push({ function: s.FunctionName!, file: cleanFile(s.FileName), line: s.Line ?? 0 });
    }
    result.push(frames.length > 0 ? frames : null);
  }
  return result;
}

/** addr2line -a prints "0x<address>" and then function / "file:line" pairs, one per inline level. */
export function parseAddr2line(out: string, n: number): ModuleSymbols {
  const lines = out.split('\n');
  const result: ModuleSymbols = [];
  let current: SourceFrame[] | null = null;
  let started = false;
  const flush = () => {
    if (started) result.push(current && current.length > 0 ? current : null);
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (/^0x[0-9a-f]+$/.test(l)) {
      flush();
      started = true;
      current = [];
      continue;
    }
    if (!started || l === '') continue;
    const loc = lines[++i] ?? '??:0';
    if (UNKNOWN_FN.has(l)) continue;
    const m = /^(.*):(\d+|\?)(?: \(discriminator \d+\))?$/.exec(loc);
    const file = cleanFile(m ? m[1] : loc);
    const line = m && m[2] !== '?' ? Number(m[2]) : 0;
    current!.push({ function: l, file, line });
  }
  flush();
  while (result.length < n) result.push(null);
  return result.slice(0, n);
}
