/**
 * What the resolve keeps of the processes it assembled, folded in as each one's part arrives: the
 * thread files to move, the nodes, the counts, the OpenMP analyses, the notes and the traces, with
 * the modules of every process merged into one collector at once. Keeping every part whole until the
 * end held each process's list of sampled functions (modules.json's, the same ones on every rank):
 * about 6 KB a rank of generated ranks (test/mpi-scale.test.ts), most of what the resolve kept.
 */
import type { OpenmpFile } from '../analysis/openmp.js';
import { ModuleCollector } from '../profile/modules-file.js';
import type { FilePart } from './resolve-file.js';
import type { TracePart } from './trace-otf2.js';

export class PartsFold {
  /** The files written, by their paths relative to the write (tau-writer.ts relativeMove). */
  readonly moves: string[] = [];
  readonly nodes = new Set<number>();
  readonly openmp: OpenmpFile = { processes: [], withoutTool: [] };
  readonly modules = new ModuleCollector();
  readonly drops: Record<string, number> = {};
  readonly openmpNotes: string[] = [];
  readonly stackNotes: string[] = [];
  readonly traces: TracePart[] = [];
  threads = 0;
  samples = 0;
  /** How many parts were folded in. */
  count = 0;

  add(p: FilePart): void {
    this.count++;
    for (const m of p.moves) this.moves.push(m);
    for (const n of p.nodes) this.nodes.add(n);
    for (const x of p.openmp.processes) this.openmp.processes.push(x);
    for (const x of p.openmp.withoutTool) this.openmp.withoutTool.push(x);
    for (const [fn, file, i] of p.modules.functions) this.modules.note(fn, file, p.modules.modules[i].path, p.modules.modules[i].buildId);
    for (const [k, n] of Object.entries(p.drops)) this.drops[k] = (this.drops[k] ?? 0) + n;
    for (const s of p.openmpNotes) this.openmpNotes.push(s);
    for (const s of p.stackNotes) this.stackNotes.push(s);
    if (p.trace) this.traces.push(p.trace);
    this.threads += p.threads;
    this.samples += p.samples;
  }
}
