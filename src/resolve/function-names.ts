/**
 * Compiler-instrumented functions get their names here, before assembly. The runtime's hook stores a
 * code address, never a name: each function's event is named `@0x<address>` in the raw file and the
 * FUNCTIONS section gives the address (docs/raw-format.md). The address is the function's entry, so
 * the symbolizer gives its name and the line where it begins, and the event is named as TAU names
 * compiler-instrumented functions:
 *   `<function> [{<file>} {<line>,0}]`
 * An address that cannot be resolved keeps its module: `UNRESOLVED <module> ADDR 0x<address>`.
 * Timers the runtime throttled (TAU_THROTTLE) are renamed `<name> [THROTTLED]`, in group TAU_DISABLE,
 * as TAU does.
 */
import { EventKind, type RawProcess } from '../samples/raw-model.js';
import { AddressMap, type ModuleAddress } from '../symbolize/address-map.js';
import type { SourceFrame } from '../symbolize/frames.js';
import { moduleKey, type Symbolizer } from '../symbolize/symbolizer.js';

/** Name every function event of proc in place. */
export async function nameFunctions(proc: RawProcess, symbolizer: Symbolizer): Promise<void> {
  const functions = proc.functions;
  if (!functions || functions.size === 0) return;
  const map = new AddressMap(proc.maps);
  const byModule = new Map<string, { path: string; buildId: string; addrs: Set<bigint> }>();
  const hits = new Map<number, ModuleAddress | null>();
  for (const [event, address] of functions) {
    const hit = map.lookup(address);
    hits.set(event, hit);
    if (!hit || !hit.mapping.path || hit.mapping.path.startsWith('[')) continue;
    const key = moduleKey(hit.mapping);
    let m = byModule.get(key);
    if (!m) byModule.set(key, (m = { path: hit.mapping.path, buildId: hit.mapping.buildId, addrs: new Set() }));
    m.addrs.add(hit.moduleAddress);
  }
  const symbols = new Map<string, Map<bigint, SourceFrame[] | null>>();
  for (const [key, m] of byModule) {
    const addrs = [...m.addrs];
    const res = await symbolizer.symbolizeModule(m.path, m.buildId, addrs);
    symbols.set(key, new Map(addrs.map((a, i) => [a, res[i]])));
  }
  for (const [event, address] of functions) {
    const hit = hits.get(event) ?? null;
    const frames = hit ? symbols.get(moduleKey(hit.mapping))?.get(hit.moduleAddress) : null;
    // At a function's entry nothing is inlined yet: the outermost frame is the function itself.
    const f = frames?.[frames.length - 1];
    const e = proc.events[event];
    if (f && f.function && f.function !== '??') {
      e.name = f.file ? `${f.function} [{${f.file}} {${f.line},0}]` : f.function;
    } else {
      e.name = `UNRESOLVED ${hit ? hit.mapping.path : 'UNKNOWN'} ADDR 0x${address.toString(16)}`;
    }
  }
}

/** Rename the throttled timers of proc as TAU does. */
export function markThrottled(proc: RawProcess): void {
  for (const e of proc.events) {
    if (!e.throttled || e.kind === EventKind.PARAM) continue;
    e.name = `${e.name} [THROTTLED]`;
    e.group = 'TAU_DISABLE';
  }
}
