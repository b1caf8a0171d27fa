/**
 * Symbolizes the sampled addresses of raw processes: each address is mapped to its module through the
 * process's MAPS section; each module is symbolized once (keyed by build id, else by path) in one
 * batch through one pipe, whatever the number of processes that loaded it. Return addresses (frames
 * other than the sampled pc) are looked up at address − 1 so the call site's line is reported.
 *
 * What cannot be resolved is never dropped: it comes back as unresolved with its module (the module
 * path, `[vdso]` when this machine's vDSO is not the one measured (vdso.ts), or `UNKNOWN` outside
 * every mapping). JIT code, at the addresses no mapping holds, is
 * named from the V8 JIT code events the raw file carries (jit-code.ts), else from the process's perf
 * map (/tmp/perf-<pid>.map, perf-map.ts), read once per process.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserError } from '../base/errors.js';
import { placeholderName, type RawMapping, type RawProcess } from '../samples/raw-model.js';
import { AddressMap } from './address-map.js';
import { JitCodeLog } from './jit-code.js';
import { jitFrame, PerfMap } from './perf-map.js';
import type { Resolution, SourceFrame, SymbolizerChoice, SymbolizerTool } from './frames.js';
import { readBuildId } from './elf-build-id.js';
import { readPltStubs } from './elf-plt.js';
import { defaultCacheDir, loadSymbols, saveSymbols } from './disk-cache.js';
import { fortranNames, symbolizeBatch, toolAvailable } from './tools.js';
import { isRuntimeModule } from './own-modules.js';
import { Vdso, VDSO_FILE } from './vdso.js';
import { V8Log } from './v8-log.js';
import { SymbolRegions } from './symbol-regions.js';

export interface SymbolizeOptions {
  symbolizer?: SymbolizerChoice;
  /** Where symbols of modules with a build id are kept between runs; null: nowhere. Default:
   * `$XDG_CACHE_HOME/hyprof/symbols` (off with HYPROF_SYMBOL_CACHE=0). */
  cacheDir?: string | null;
  onProgress?: (done: number, total: number, what: string) => void;
}

interface ModuleWork {
  key: string;
  path: string;
  buildId: string;
  addresses: Set<bigint>;
}

export function moduleKey(m: RawMapping): string {
  return m.buildId ? `build-id:${m.buildId}` : `path:${m.path}`;
}

/** Pick the tool: the one asked for (an error when it is missing), or the best one installed. */
export function chooseTool(choice: SymbolizerChoice = 'auto'): SymbolizerTool | null {
  if (choice !== 'auto') {
    if (!toolAvailable(choice)) throw new UserError(`symbolizer "${choice}" was asked for but is not installed (not on the PATH)`);
    return choice;
  }
  if (toolAvailable('llvm-symbolizer')) return 'llvm-symbolizer';
  if (toolAvailable('addr2line')) return 'addr2line';
  return null;
}

/** Symbols of modules, kept across calls (a module is symbolized once per build id). */
export class Symbolizer {
  /** module key → module address → inline chain (innermost first) or null. */
  private readonly cache = new Map<string, Map<bigint, SourceFrame[] | null>>();
  private readonly maps = new WeakMap<RawProcess, AddressMap>();
  /** The kernel's vDSO by build id (vdso.ts): read once, from this process. */
  private readonly vdsos = new Map<string, Vdso>();
  /** JIT code names of each process (perf-map.ts); null when it has no perf map. */
  private readonly perfMaps = new WeakMap<RawProcess, PerfMap | null>();
  /** The same from the raw file's JIT section (jit-code.ts), when it has one. */
  private readonly jitLogs = new WeakMap<RawProcess, JitCodeLog>();
  readonly warnings: string[] = [];
  readonly tool: SymbolizerTool | null;
  private readonly cacheDir: string | null;
  /**
   * Resolutions made, per process: [sampled pcs, return addresses]. A Node run's samples repeat the
   * same few thousand addresses hundreds of thousands of times (every frame of every stack), and each
   * JIT lookup parses V8's code name: each address is resolved once. Forgotten whenever symbols are
   * added (run, adopt), since an address unresolved before may resolve after.
   */
  private resolved = new WeakMap<RawProcess, [Map<bigint, Resolution>, Map<bigint, Resolution>]>();
  /** Addresses resolved (not answered from the memo above) so far: what a resolve touched. */
  lookups = 0;

  constructor(private readonly opts: SymbolizeOptions = {}) {
    this.tool = chooseTool(opts.symbolizer);
    this.cacheDir = opts.cacheDir === undefined ? defaultCacheDir((w) => this.warnings.push(w)) : opts.cacheDir;
    if (!this.tool) this.warnings.push('neither llvm-symbolizer nor addr2line is installed: every sample is UNRESOLVED');
  }

  /** Addresses outside every mapping may be JIT code named in the process's perf map. */
  private jitLogOf(p: RawProcess): JitCodeLog | null {
    if (!p.jit) return null;
    let log = this.jitLogs.get(p);
    if (!log) {
      // V8's own code log, beside the raw file when `hyprof run` started node with it (run-node-jit.ts)
      const v8 = V8Log.forProcess(dirname(p.file), p.info.pid, (w) => this.warnings.push(w));
      this.jitLogs.set(p, (log = new JitCodeLog(p.jit, v8)));
      if (log.dropped > 0) {
        this.warnings.push(`${p.file}: ${log.dropped} JIT code events did not fit in the runtime's log: code created after that stays UNRESOLVED`);
      }
      if (log.pending > 0) {
        this.warnings.push(`${p.file}: ${log.pending} JIT code event${log.pending === 1 ? ' was' : 's were'} still being logged when the file was written: the code named there may stay UNRESOLVED`);
      }
    }
    return log;
  }

  private vdsoOf(buildId: string): Vdso {
    let v = this.vdsos.get(buildId);
    if (!v) this.vdsos.set(buildId, (v = new Vdso(buildId)));
    return v;
  }

  private perfMapOf(p: RawProcess): PerfMap | null {
    if (!this.perfMaps.has(p)) this.perfMaps.set(p, PerfMap.forProcess(p.info.pid, p.info.startNs, (w) => this.warnings.push(w)));
    return this.perfMaps.get(p)!;
  }

  private mapOf(p: RawProcess): AddressMap {
    let m = this.maps.get(p);
    if (!m) this.maps.set(p, (m = new AddressMap(p.maps)));
    return m;
  }

  /** Symbolize every sampled address of these processes (batch per module). */
  async prepare(processes: RawProcess[]): Promise<void> {
    for (const p of processes) this.collect(p);
    await this.flush();
  }

  /** Addresses waiting for flush(), by module key. */
  private readonly pending = new Map<string, ModuleWork>();

  /**
   * Note the sampled addresses of p for the next flush(), without keeping p: a resolve of thousands of
   * processes reads each once, collects, and symbolizes every module once for all of them.
   */
  collect(p: RawProcess): void {
    const map = new AddressMap(p.maps);
    // The addresses looked up (a return address at − 1): each once, however many stacks hold it.
    const seen = new Set<bigint>();
    const note = (pc: bigint, i: number) => {
      const a = i === 0 ? pc : pc - 1n;
      if (seen.has(a)) return;
      seen.add(a);
      const hit = map.lookup(a);
      if (!hit || !symbolizable(hit.mapping)) return;
      this.collectModule(hit.mapping.path, hit.mapping.buildId, [hit.moduleAddress]);
    };
    for (const t of p.threads) for (const s of t.samples) s.pcs.forEach(note);
    // Folded samples keep the innermost frames of the same stacks, unless the sample table was full.
    for (const list of p.fold?.threads.values() ?? []) for (const f of list) for (const s of f.samples) s.pcs.forEach(note);
  }

  /** Note program counters of process p for the next flush(): `[pc, isReturn]` (a traced sample's frames). */
  collectPcs(p: RawProcess, pcs: Iterable<[bigint, boolean]>): void {
    const map = new AddressMap(p.maps);
    for (const [pc, isReturn] of pcs) {
      const hit = map.lookup(isReturn ? pc - 1n : pc);
      if (hit && symbolizable(hit.mapping)) this.collectModule(hit.mapping.path, hit.mapping.buildId, [hit.moduleAddress]);
    }
  }

  /** Note module addresses of one object file for the next flush(). */
  collectModule(path: string, buildId: string, addresses: Iterable<bigint>): void {
    const key = buildId ? `build-id:${buildId}` : `path:${path}`;
    const known = this.cache.get(key);
    let w = this.pending.get(key);
    for (const a of addresses) {
      if (known?.has(a)) continue;
      if (!w) this.pending.set(key, (w = { key, path, buildId, addresses: new Set() }));
      w.addresses.add(a);
    }
  }

  /** Symbolize everything collected since the last flush (one batch per module). */
  async flush(): Promise<void> {
    const work = [...this.pending.values()];
    this.pending.clear();
    await this.run(work);
  }

  /** The symbols known so far (module key → module address → frames), to hand to another symbolizer. */
  table(): Map<string, Map<bigint, SourceFrame[] | null>> {
    return this.cache;
  }

  /** Take symbols another symbolizer found (a resolve worker starts with those of the main thread). */
  adopt(table: Map<string, Map<bigint, SourceFrame[] | null>>): void {
    for (const [key, t] of table) {
      const mine = this.cache.get(key);
      if (!mine) this.cache.set(key, new Map(t));
      else for (const [a, f] of t) if (!mine.has(a)) mine.set(a, f);
    }
    this.resolved = new WeakMap();
  }

  /** Symbolize the given module addresses of one object file directly (tests, benchmarks). */
  async symbolizeModule(path: string, buildId: string, addresses: bigint[]): Promise<Array<SourceFrame[] | null>> {
    const key = buildId ? `build-id:${buildId}` : `path:${path}`;
    await this.run([{ key, path, buildId, addresses: new Set(addresses) }]);
    const table = this.cache.get(key)!;
    return addresses.map((a) => table.get(a) ?? null);
  }

  private async run(modules: ModuleWork[]): Promise<void> {
    this.resolved = new WeakMap();
    const total = modules.reduce((n, m) => n + m.addresses.size, 0);
    let done = 0;
    // Modules run concurrently: each is one process, and they are independent.
    await Promise.all(
      modules.map(async (m) => {
        let table = this.cache.get(m.key);
        if (!table) this.cache.set(m.key, (table = new Map()));
        const disk = this.cacheDir && m.buildId && this.tool ? this.cacheDir : null;
        let trusted = false;
        /** Addresses named from another address of their function's region (kept for later resolves). */
        let byFunction = new Map<bigint, SourceFrame[]>();
        if (disk) {
          const missing = new Set([...m.addresses].filter((a) => !table!.has(a)));
          if (missing.size > 0) {
            // Read only when the cache lacks an address: node's regions are a file of 1.6 MB.
            let regions: SymbolRegions | null | undefined;
            const regionOf = (a: bigint) => {
              if (regions === undefined) regions = this.tool === 'llvm-symbolizer' ? SymbolRegions.read(m.path, m.buildId, disk) : null;
              return regions?.regionOf(a) ?? null;
            };
            const stored = loadSymbols(disk, m.buildId, this.tool!, missing, regionOf);
            trusted = stored.trusted;
            // Kept by an earlier version, the names of gfortran's module procedures may be raw.
            for (const [a, f] of stored.symbols) table.set(a, fortranNames([f])[0]);
            for (const [a, f] of stored.byFunction) table.set(a, fortranNames([f])[0]!);
            byFunction = stored.byFunction;
          }
        }
        const addrs = [...m.addresses].filter((a) => !table!.has(a));
        let fromTool = false;
        let symbols: Array<SourceFrame[] | null> = addrs.map(() => null);
        const onDisk = addrs.length > 0 && m.buildId ? readBuildId(m.path) : null;
        if (onDisk && onDisk !== m.buildId) {
          // Rebuilt since the run: its lines would be wrong, so none rather than false ones.
          this.warnings.push(
            `${m.path}: build id ${onDisk} differs from the one measured (${m.buildId}): the file changed since the run; its samples stay UNRESOLVED`,
          );
        } else if (this.tool && addrs.length > 0 && existsSync(m.path)) {
          try {
            symbols = await symbolizeBatch(this.tool, m.path, addrs);
            fromTool = true;
          } catch (e) {
            this.warnings.push(`${m.path}: ${(e as Error).message}; its samples stay UNRESOLVED`);
          }
        } else if (addrs.length > 0 && !existsSync(m.path)) {
          this.warnings.push(`${m.path}: module not found; its samples stay UNRESOLVED`);
        }
        addrs.forEach((a, i) => table!.set(a, symbols[i]));
        // PLT stubs among the addresses symbolized now (or left unknown without a tool). Those taken
        // from the disk cache were named when they were stored (the line cache has always been
        // written after this step), so node's thousands of line-less builtins, which look like
        // stubs, do not make every resolve read node's PLT again.
        if (addrs.length > 0 && (fromTool || (existsSync(m.path) && (!m.buildId || readBuildId(m.path) === m.buildId)))) namePltStubs(m.path, addrs, table);
        if (disk && (fromTool || byFunction.size > 0)) {
          const added = new Map<bigint, SourceFrame[] | null>(byFunction);
          if (fromTool) for (const a of addrs) added.set(a, table!.get(a) ?? null);
          saveSymbols(disk, m.buildId, this.tool!, added, trusted);
        }
        done += addrs.length;
        this.opts.onProgress?.(done, total, m.path);
      }),
    );
    // Again: a resolve made while the modules were being read saw only part of their symbols.
    this.resolved = new WeakMap();
  }

  /**
   * The source frames of a sampled address of process p. `isReturn` for return addresses (all pcs
   * but the first of a callpath): looked up at address − 1, inside the call instruction.
   */
  resolve(p: RawProcess, pc: bigint, isReturn: boolean): Resolution {
    let memo = this.resolved.get(p);
    if (!memo) this.resolved.set(p, (memo = [new Map(), new Map()]));
    const known = memo[isReturn ? 1 : 0];
    let r = known.get(pc);
    if (r === undefined) {
      r = this.resolveOnce(p, pc, isReturn);
      known.set(pc, r);
      this.lookups++;
    }
    return r;
  }

  /** resolve() without the memo. The result is shared by every caller: never changed by them. */
  private resolveOnce(p: RawProcess, pc: bigint, isReturn: boolean): Resolution {
    // What a thread was doing where a runtime's frames were cut out: a frame with a name only.
    const placeholder = placeholderName(pc);
    if (placeholder) return { resolved: true, frames: [{ function: placeholder, file: '', line: 0 }] };
    const hit = this.mapOf(p).lookup(isReturn ? pc - 1n : pc);
    if (!hit) {
      const address = isReturn ? pc - 1n : pc;
      const log = this.jitLogOf(p);
      const frames = log ? log.lookup(address, !isReturn) : null;
      if (frames) return { resolved: true, frames };
      const jit = log ? null : this.perfMapOf(p)?.lookup(address);
      if (jit) return { resolved: true, frames: [jitFrame(jit)] };
      return { resolved: false, module: 'UNKNOWN', address: pc };
    }
    if (!symbolizable(hit.mapping)) {
      const vdso = hit.mapping.path === VDSO_FILE ? this.vdsoOf(hit.mapping.buildId).lookup(hit.moduleAddress) : null;
      if (vdso) return { resolved: true, frames: vdso, module: VDSO_FILE, buildId: hit.mapping.buildId };
      return { resolved: false, module: hit.mapping.path, address: pc };
    }
    const frames = this.cache.get(moduleKey(hit.mapping))?.get(hit.moduleAddress);
    if (!frames) return { resolved: false, module: hit.mapping.path, address: pc, ...(hit.mapping.buildId ? { buildId: hit.mapping.buildId } : {}) };
    return {
      resolved: true,
      frames: frames.map((f) => ({ ...f, file: f.file || hit.mapping.path })),
      module: hit.mapping.path,
      buildId: hit.mapping.buildId,
    };
  }
}

/**
 * Addresses in PLT stubs are named `<function>@plt` (elf-plt.ts): symbolizers give the symbol before
 * the stubs (`_init`) instead. Read only when a sampled address lies outside every symbol's own
 * function, which is what PLT stubs look like to the tool (a nearest-symbol match with no line).
 */
function namePltStubs(path: string, addrs: bigint[], table: Map<bigint, SourceFrame[] | null>): void {
  const suspect = addrs.filter((a) => {
    const f = table.get(a);
    return !f || (f.length === 1 && f[0].line === 0);
  });
  if (suspect.length === 0) return;
  const stubs = readPltStubs(path);
  for (const a of suspect) {
    const stub = stubs.find((s) => a >= s.start && a < s.end);
    if (stub) table.set(a, [{ function: stub.name, file: '', line: 0 }]);
  }
}

/** `[vdso]`, `[stack]` and anonymous pseudo-modules have no file to read symbols from. */
function symbolizable(m: RawMapping): boolean {
  // hyprof's own frames are left out of every profile (assemble-samples.ts): naming them would cost a
  // symbolizer run for nothing whenever a sample caught the runtime at a new address.
  return m.path !== '' && !m.path.startsWith('[') && !isRuntimeModule(m.path);
}
