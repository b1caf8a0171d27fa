/**
 * OpenMP construct events get their final names here: the native tool registers one event per
 * (construct kind, code address), named `<prefix> @0x<address>`, because the source location is only
 * known after symbolization. The code address OMPT gives is a return address into the program, so
 * it is looked up at address − 1 (the call into the runtime), then named as TAU names it:
 *   `OpenMP_Parallel_Region <function> [{<file>} {<line>, 0}]`
 *   `OpenMP_Work_Loop <function> [{<file>} {<line>, 0}]  `   (work and sync constructs: two trailing
 *   spaces, as in TAU's reference profiles)
 * A parallel region's call into the runtime is a poor witness of its line: compilers give the call
 * the line of a neighbouring statement (gcc), merge the calls of several regions into one (clang), or
 * make it a tail call whose return address lies in the caller's caller. The region's body, the
 * outlined function the compiler made of it, begins at the region's own line: when the constructs or
 * samples inside the region name that function, the region takes the line where it begins.
 * Unresolvable addresses keep a name with the module: `<prefix> UNRESOLVED <module> ADDR 0x<addr>`.
 */
import type { RawProcess } from '../samples/raw-model.js';
import { AddressMap, type ModuleAddress } from '../symbolize/address-map.js';
import { readFunctionSymbols } from '../symbolize/elf-symbols.js';
import type { SourceFrame } from '../symbolize/frames.js';
import { moduleKey, Symbolizer } from '../symbolize/symbolizer.js';
import { OMP_KINDS, OmpKind, type OmptData } from './openmp-raw.js';

export interface ConstructName {
  event: number;
  kind: number;
  name: string;
  /** `file:line` (or the module) for reports. */
  location: string;
  function: string;
}

function trailing(kind: number): string {
  return kind === OmpKind.PARALLEL || kind === OmpKind.TASK ? '' : '  ';
}

/** Names for every construct of one process (event id → name). */
export async function nameConstructs(proc: RawProcess, omp: OmptData, symbolizer?: Symbolizer): Promise<Map<number, ConstructName>> {
  const sym = symbolizer ?? new Symbolizer();
  const map = new AddressMap(proc.maps);
  const byModule = new Map<string, { path: string; buildId: string; addrs: Set<bigint> }>();
  const want = (address: bigint) => {
    const hit = address > 0n ? map.lookup(address) : null;
    if (hit && hit.mapping.path && !hit.mapping.path.startsWith('[')) {
      const key = moduleKey(hit.mapping);
      let m = byModule.get(key);
      if (!m) byModule.set(key, (m = { path: hit.mapping.path, buildId: hit.mapping.buildId, addrs: new Set() }));
      m.addrs.add(hit.moduleAddress);
    }
    return hit;
  };
  // The call site (address − 1) names the construct; when the compiler gave that instruction no line
  // (line 0), the return address itself usually has one.
  const where = omp.constructs.map((c) => [want(c.codeptr - 1n), want(c.codeptr)] as const);
  const symbols = new Map<string, Map<bigint, SourceFrame[] | null>>();
  for (const [key, m] of byModule) {
    const addrs = [...m.addrs];
    const res = await sym.symbolizeModule(m.path, m.buildId, addrs);
    symbols.set(key, new Map(addrs.map((a, i) => [a, res[i]])));
  }
  // The frames naming each construct: the call site's, else the return address's when the compiler
  // gave the call no line.
  const chosen = omp.constructs.map((c, i) => {
    const lookup = (h: ModuleAddress | null) => (h ? symbols.get(moduleKey(h.mapping))?.get(h.moduleAddress) ?? null : null);
    const [callSite, ret] = where[i];
    let hit = callSite;
    let frames = lookup(callSite);
    if (!frames?.[0] || frames[0].line === 0) {
      const other = lookup(ret);
      if (other?.[0] && other[0].line > 0) [hit, frames] = [ret, other];
    }
    return { hit, frames };
  });
  const bodies = await regionBodyLines(proc, omp, chosen, sym);

  const out = new Map<number, ConstructName>();
  omp.constructs.forEach((c, i) => {
    const prefix = OMP_KINDS[c.kind] ?? `OpenMP_Construct_${c.kind}`;
    const { hit, frames } = chosen[i];
    // The outermost frame of an inline chain is the real function holding the call; the innermost
    // carries the line of the construct itself.
    const inner = frames?.[0];
    const outer = frames?.[frames.length - 1];
    // Line 0 (code the optimizer merged) still gives the function and file, as TAU writes them; a
    // module without line information gives its own path as the file.
    if (inner && outer && outer.function && outer.function !== '??') {
      // A region's line: where its body begins (the directive's line, as compilers mark the entry of
      // the outlined function), when the inside of the region names the body.
      const body = bodies.get(c.event);
      const file = body ? body.file : inner.file || hit?.mapping.path || '';
      const line = body ? body.line : inner.line;
      out.set(c.event, {
        event: c.event,
        kind: c.kind,
        name: `${prefix} ${outer.function} [{${file}} {${line}, 0}]${trailing(c.kind)}`,
        location: line > 0 ? `${file}:${line}` : `${file} (${outer.function})`,
        function: outer.function,
      });
    } else {
      const module = hit ? hit.mapping.path : 'UNKNOWN';
      out.set(c.event, {
        event: c.event,
        kind: c.kind,
        name: `${prefix} UNRESOLVED ${module} ADDR 0x${c.codeptr.toString(16)}${trailing(c.kind)}`,
        location: `${module} 0x${c.codeptr.toString(16)}`,
        function: outer?.function ?? '?',
      });
    }
  });
  return out;
}

/** Functions compilers make of OpenMP region bodies: clang's `.omp_outlined.*` (`f.omp_outlined*`
 * in later versions), gcc's `f._omp_fn.N`. */
const OUTLINED = /(^|\.)omp_outlined|\._omp_fn\.\d+$/;

/**
 * The line where each parallel region's body begins, when the region's inside names its outlined
 * function: the constructs directly inside it (their code addresses lie in the body), else its
 * samples (a worker's chain starts at the body).
 */
async function regionBodyLines(
  proc: RawProcess,
  omp: OmptData,
  chosen: Array<{ hit: ModuleAddress | null; frames: SourceFrame[] | null }>,
  sym: Symbolizer,
): Promise<Map<number, { file: string; line: number }>> {
  const regions = new Set(omp.constructs.filter((c) => c.kind === OmpKind.PARALLEL).map((c) => c.event));
  if (regions.size === 0) return new Map();
  const byEvent = new Map(omp.constructs.map((c, i) => [c.event, chosen[i]] as const));
  // The function a region is encountered in is not its body (a region's closing barrier has the
  // region's own address; an inner region's encountering function is the outer region's body).
  const encountering = (region: number) => {
    const f = byEvent.get(region)?.frames;
    return f?.[f.length - 1]?.function;
  };
  // region event → candidate body function (by module) → evidence count
  const votes = new Map<number, Map<string, { fn: string; path: string; buildId: string; n: number }>>();
  const vote = (region: number, fn: string, path: string, buildId: string, n: number) => {
    if (!OUTLINED.test(fn) || !path.startsWith('/') || fn === encountering(region)) return;
    let m = votes.get(region);
    if (!m) votes.set(region, (m = new Map()));
    const k = `${path}\u0000${fn}`;
    const v = m.get(k) ?? { fn, path, buildId, n: 0 };
    v.n += n;
    m.set(k, v);
  };
  for (const ctx of proc.contexts.values()) {
    const parent = ctx.parent !== 0n ? proc.contexts.get(ctx.parent) : undefined;
    if (!parent || !regions.has(parent.event) || ctx.event === parent.event) continue;
    const c = byEvent.get(ctx.event);
    const outer = c?.frames?.[c.frames.length - 1];
    if (c?.hit && outer) vote(parent.event, outer.function, c.hit.mapping.path, c.hit.mapping.buildId, 1);
  }
  if (votes.size < regions.size) {
    for (const t of proc.threads) {
      for (const s of t.samples) {
        const ev = proc.contexts.get(s.context)?.event;
        if (ev === undefined || !regions.has(ev) || votes.has(ev)) continue;
        // The outermost body function of the chain that is not where the region was encountered.
        for (let i = s.pcs.length - 1; i >= 0; i--) {
          const r = sym.resolve(proc, s.pcs[i], i > 0);
          if (!r.resolved || !r.module) continue;
          const fn = r.frames[r.frames.length - 1].function;
          if (OUTLINED.test(fn) && fn !== encountering(ev)) {
            vote(ev, fn, r.module, r.buildId ?? '', s.count);
            break;
          }
        }
      }
    }
  }
  // Where the chosen bodies begin: their entry address, symbolized. A body two regions share (the
  // compiler folded identical bodies into one function) tells neither apart: their call sites do.
  const best = new Map([...votes].map(([region, m]) => [region, [...m.values()].sort((a, b) => b.n - a.n)[0]] as const));
  const shared = new Map<string, number>();
  for (const b of best.values()) shared.set(`${b.path}\u0000${b.fn}`, (shared.get(`${b.path}\u0000${b.fn}`) ?? 0) + 1);
  const entries = new Map<number, { path: string; buildId: string; address: bigint }>();
  const symbolsOf = new Map<string, Map<string, bigint>>();
  for (const [region, best1] of best) {
    if ((shared.get(`${best1.path}\u0000${best1.fn}`) ?? 0) > 1) continue;
    const best = best1;
    let table = symbolsOf.get(best.path);
    if (!table) symbolsOf.set(best.path, (table = readFunctionSymbols(best.path)));
    const address = table.get(best.fn);
    if (address !== undefined) entries.set(region, { path: best.path, buildId: best.buildId, address });
  }
  const out = new Map<number, { file: string; line: number }>();
  for (const [region, e] of entries) {
    const [frames] = await sym.symbolizeModule(e.path, e.buildId, [e.address]);
    const f = frames?.[0];
    if (f && f.line > 0 && f.file) out.set(region, { file: f.file, line: f.line });
  }
  return out;
}

/**
 * Rename the construct events of a process in place (before assembly). Two addresses on the same
 * source line (e.g. two calls into the runtime for one construct) would give two events one name: the
 * later ones keep their address appended so every event stays distinct.
 */
export function applyConstructNames(proc: RawProcess, names: Map<number, ConstructName>): void {
  const taken = new Set(proc.events.filter((e) => !names.has(e.id)).map((e) => `${e.group}\u0000${e.name}`));
  for (const e of proc.events) {
    const n = names.get(e.id);
    if (!n) continue;
    let name = n.name;
    if (taken.has(`${e.group}\u0000${name}`)) name = `${name.trimEnd()} #${e.id}${trailing(n.kind)}`;
    taken.add(`${e.group}\u0000${name}`);
    e.name = name;
  }
}
