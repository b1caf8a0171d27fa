/**
 * OpenMP construct events get their final names here: the native tool registers one event per
 * (construct kind, code address) named `<prefix> @0x<address>`, because the source location is only
 * known after symbolization. The code address OMPT gives is a return address into the program, so
 * it is looked up at address − 1 (the call into the runtime), then named as TAU names it:
 *   `OpenMP_Parallel_Region <function> [{<file>} {<line>, 0}]`
 *   `OpenMP_Work_Loop <function> [{<file>} {<line>, 0}]  `   (work and sync constructs: two trailing
 *   spaces, as in TAU's reference profiles)
 * Unresolvable addresses keep a name with the module: `<prefix> UNRESOLVED <module> ADDR 0x<addr>`.
 */
import type { RawProcess } from '../samples/raw-model.js';
import { AddressMap } from '../symbolize/address-map.js';
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
  const out = new Map<number, ConstructName>();
  omp.constructs.forEach((c, i) => {
    const prefix = OMP_KINDS[c.kind] ?? `OpenMP_Construct_${c.kind}`;
    const lookup = (h: (typeof where)[number][number]) => (h ? symbols.get(moduleKey(h.mapping))?.get(h.moduleAddress) ?? null : null);
    const [callSite, ret] = where[i];
    let hit = callSite;
    let frames = lookup(callSite);
    if (!frames?.[0] || frames[0].line === 0) {
      const other = lookup(ret);
      if (other?.[0] && other[0].line > 0) [hit, frames] = [ret, other];
    }
    // The outermost frame of an inline chain is the real function holding the call; the innermost
    // carries the line of the construct itself.
    const inner = frames?.[0];
    const outer = frames?.[frames.length - 1];
    // Line 0 (code the optimizer merged) still gives the function and file, as TAU writes them.
    if (inner && outer && outer.function && outer.function !== '??') {
      out.set(c.event, {
        event: c.event,
        kind: c.kind,
        name: `${prefix} ${outer.function} [{${inner.file}} {${inner.line}, 0}]${trailing(c.kind)}`,
        location: inner.line > 0 ? `${inner.file}:${inner.line}` : `${inner.file} (${outer.function})`,
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
