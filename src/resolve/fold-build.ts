/**
 * HYPROF_FOLD's records of one process (the FOLD section, src/samples/raw-fold.ts) → its fold file
 * (src/profile/fold-file.ts): each sample joined with its instance, its program counters named.
 * Nothing is folded here: the report and the viewer fold (src/report/fold.ts), so the file keeps
 * every sample and any binning can be chosen afterwards.
 */
import type { RawProcess } from '../samples/raw-model.js';
import type { Resolution } from '../symbolize/frames.js';
import type { FoldFile, FoldFrame, FoldSeries } from '../profile/fold-file.js';
import { isOpenmpRuntime } from './assemble-samples.js';
import { isRuntimeModule } from '../symbolize/own-modules.js';

/** System code a sample's "function" looks through to the program's frame that called it. */
export function isSystemModule(path: string | undefined): boolean {
  if (path === undefined) return false;
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base === '[vdso]' || isOpenmpRuntime(path) || /^(libc|libm|libpthread|libdl|librt|ld-linux[-\w.]*|libgcc_s|libstdc\+\+)\.so(\.|$)/.test(base);
}

class Frames {
  readonly list: FoldFrame[] = [];
  private readonly index = new Map<string, number>();
  id(f: FoldFrame): number {
    const key = f.join('\u0000');
    let i = this.index.get(key);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(f);
      this.index.set(key, i);
    }
    return i;
  }
}

type Named = { function: string; file: string; line: number; object: string };

/** Per program counter, its inline chain (innermost first); hyprof's own frames left out. */
function framesOf(pcs: bigint[], resolve: (pc: bigint, isReturn: boolean) => Resolution): Named[][] {
  const out: Named[][] = [];
  pcs.forEach((pc, i) => {
    const r = resolve(pc, i > 0);
    if (isRuntimeModule(r.module)) return;
    if (r.resolved) out.push(r.frames.map((f) => ({ ...f, object: r.module ?? '' })));
    else out.push([{ function: `UNRESOLVED ${r.module}`, file: '', line: 0, object: r.module }]);
  });
  return out;
}

export function buildFoldFile(
  proc: RawProcess,
  node: number,
  context: number,
  resolve: (pc: bigint, isReturn: boolean) => Resolution,
): FoldFile | undefined {
  const fold = proc.fold;
  if (!fold) return undefined;
  const extra = proc.info.metrics.length - 1;
  const frames = new Frames();
  const named = new Map<string, [number, number]>();
  const leafAndFunction = (pcs: bigint[]): [number, number] => {
    const key = pcs.join(',');
    let v = named.get(key);
    if (v) return v;
    const fs = framesOf(pcs, resolve);
    if (fs.length === 0) {
      const u = frames.id(['UNKNOWN', '', 0, '']);
      v = [u, u];
    } else {
      // The program's own code: the line where it was, and the function that holds that code (the
      // outermost of its inline chain: a helper inlined into a loop is the loop's function's time).
      const chain = fs.find((c) => !isSystemModule(c[0].object)) ?? fs[0];
      const line = chain[0];
      const fn = chain[chain.length - 1];
      v = [frames.id([line.function, line.file, line.line, line.object]), frames.id([fn.function, fn.file, 0, fn.object])];
    }
    named.set(key, v);
    return v;
  };
  const series: FoldSeries[] = fold.patterns.map((name, s) => {
    const out: FoldSeries = {
      name,
      events: [],
      capacity: { instances: fold.instanceCapacity, samples: fold.sampleCapacity },
      lost: { instances: 0, samples: 0, unplaced: 0 },
      instances: { thread: [], event: [], start: [], duration: [], metrics: Array.from({ length: extra }, () => []) },
      samples: { thread: [], instance: [], offset: [], leaf: [], function: [], metrics: Array.from({ length: extra }, () => []) },
    };
    const eventIndex = new Map<number, number>();
    const byKey = new Map<string, number>();
    let first: bigint | undefined;
    for (const list of fold.threads.values()) for (const i of list[s].instances) if (first === undefined || i.start < first) first = i.start;
    for (const [thread, list] of [...fold.threads].sort((a, b) => a[0] - b[0])) {
      const f = list[s];
      out.lost.instances += f.lostInstances;
      out.lost.samples += f.lostSamples;
      for (const i of f.instances) {
        let e = eventIndex.get(i.event);
        if (e === undefined) {
          e = out.events.length;
          eventIndex.set(i.event, e);
          out.events.push(proc.events[i.event].name);
        }
        byKey.set(`${thread}:${i.start}`, out.instances.thread.length);
        out.instances.thread.push(thread);
        out.instances.event.push(e);
        out.instances.start.push(Number(i.start - (first as bigint)));
        out.instances.duration.push(i.duration);
        i.deltas.forEach((d, m) => out.instances.metrics[m].push(d));
      }
    }
    for (const [thread, list] of [...fold.threads].sort((a, b) => a[0] - b[0])) {
      for (const x of list[s].samples) {
        const inst = byKey.get(`${x.owner}:${x.instanceStart}`);
        if (inst === undefined) {
          out.lost.unplaced++;
          continue;
        }
        const [leaf, fn] = leafAndFunction(x.pcs);
        out.samples.thread.push(thread);
        out.samples.instance.push(inst);
        out.samples.offset.push(x.offset);
        out.samples.leaf.push(leaf);
        out.samples.function.push(fn);
        x.metrics.forEach((v, m) => out.samples.metrics[m].push(v ?? -1));
      }
    }
    return out;
  });
  return { format: 'hyprof-fold', version: 1, node, context, metrics: [...proc.info.metrics], frames: frames.list, series };
}
