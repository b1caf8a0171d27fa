/**
 * What a trace finds that a profile cannot (issue: "report --trace"): MPI wait states as Scalasca
 * defines them, OpenMP task suspensions, and each phase's slowest instance against its median one.
 *
 * MPI wait states, each a time one rank spends blocked in an MPI call because another was late:
 *  - Late Sender: a receive (MPI_Recv, or the MPI_Wait completing an MPI_Irecv) entered before the
 *    matching send was: send enter − receive enter, at most until the receive call's end; the
 *    receiver's time, at its receive call.
 *  - Late Receiver: a blocking send (not MPI_Isend) entered before its receive and still in the send
 *    call when the receive starts (the send waited for it, as a synchronous or rendezvous send does):
 *    receive enter − send enter, at most until the send call's end; the sender's time.
 *  - Wait at N×N: in an all-to-all collective (Allreduce, Allgather(v), Alltoall(v/w), Reduce_scatter,
 *    Scan, Exscan, Barrier), each member's time from its enter to the last member's enter.
 *  - Late Broadcast: in a one-to-all collective (Bcast, Scatter(v)), a non-root's time from its enter
 *    to the root's enter.
 *  - Early Reduce: in an all-to-one collective (Reduce, Gather(v)), the root's time from its enter to
 *    the first non-root's enter.
 * Each is summed per call site (the MPI call's region and the region it was called from) and rank,
 * with its longest instance and when that began.
 */
import { laneLabel, regionName, type CallRef, type TraceModel } from './trace-model.js';

export type WaitKind = 'late sender' | 'late receiver' | 'wait at N×N' | 'late broadcast' | 'early reduce';

export interface WaitRow {
  kind: WaitKind;
  /** The MPI call, e.g. `MPI_Recv()`. */
  call: string;
  /** The region it was called from (`Iteration 1`), or '' at a lane's root. */
  caller: string;
  rank: number;
  /** Lane label of the waiting thread (`rank 1 thread 0`). */
  lane: string;
  /** Nanoseconds waited, and in how many instances. */
  time: number;
  count: number;
  /** The longest single wait and when it began (ns after the trace's start). */
  max: number;
  maxAt: number;
}

const ONE_TO_ALL = new Set([1, 4, 5]); // BCAST, SCATTER, SCATTERV
const ALL_TO_ONE = new Set([2, 3, 12]); // GATHER, GATHERV, REDUCE
const ALL_TO_ALL = new Set([0, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16]); // BARRIER, ALLGATHER(V), ALLTOALL(V/W), ALLREDUCE, REDUCE_SCATTER(_BLOCK), SCAN, EXSCAN

/** The region the call was made from; the iterations of a dynamic phase are one caller (`Iteration <n>`). */
function callerName(model: TraceModel, ref: CallRef): string {
  if (ref.interval < 0) return '';
  const lane = model.lanes[ref.lane];
  const p = lane.parent[ref.interval];
  if (p < 0) return '';
  const def = model.defs.regions.get(lane.region[p]);
  const name = regionName(model, lane.region[p]);
  return def && /\bTAU_PHASE\b/.test(def.group) ? phaseFamily(name) : name;
}

export function waitStates(model: TraceModel): WaitRow[] {
  const rows = new Map<string, WaitRow>();
  const add = (kind: WaitKind, ref: CallRef, wait: number): void => {
    if (!(wait > 0)) return;
    const lane = model.lanes[ref.lane];
    const call = ref.region >= 0 ? regionName(model, ref.region) : '(no call)';
    const caller = callerName(model, ref);
    const key = `${kind}\0${call}\0${caller}\0${ref.lane}`;
    let row = rows.get(key);
    if (!row) {
      row = { kind, call, caller, rank: lane.rank, lane: laneLabel(lane), time: 0, count: 0, max: 0, maxAt: 0 };
      rows.set(key, row);
    }
    row.time += wait;
    row.count++;
    if (wait > row.max) {
      row.max = wait;
      row.maxAt = ref.enter;
    }
  };
  for (const m of model.messages) {
    const recvEnd = Number.isNaN(m.recv.leave) ? m.recv.time : m.recv.leave;
    add('late sender', m.recv, Math.min(m.send.enter, recvEnd) - m.recv.enter);
    const sendEnd = Number.isNaN(m.send.leave) ? m.send.time : m.send.leave;
    const blocking = !/isend/i.test(regionName(model, m.send.region));
    if (blocking && sendEnd > m.recv.enter) add('late receiver', m.send, Math.min(m.recv.enter, sendEnd) - m.send.enter);
  }
  for (const c of model.collectives) {
    if (c.members.length < 2) continue;
    const enters = c.members.map((x) => x.enter);
    if (ALL_TO_ALL.has(c.op)) {
      const lastEnter = Math.max(...enters);
      for (const x of c.members) add('wait at N×N', x, Math.min(lastEnter, x.leave) - x.enter);
    } else if (ONE_TO_ALL.has(c.op) || ALL_TO_ONE.has(c.op)) {
      const root = c.members.find((x) => x.commRank === c.root);
      if (!root) continue;
      if (ONE_TO_ALL.has(c.op)) {
        for (const x of c.members) if (x !== root) add('late broadcast', x, Math.min(root.enter, x.leave) - x.enter);
      } else {
        const firstOther = Math.min(...c.members.filter((x) => x !== root).map((x) => x.enter));
        add('early reduce', root, Math.min(firstOther, root.leave) - root.enter);
      }
    }
  }
  return [...rows.values()].sort((a, b) => b.time - a.time);
}

/** Task suspension per task construct: tasks whose run was cut into pieces, and the gaps between. */
export interface TaskSuspensionRow {
  construct: string;
  tasks: number;
  suspended: number;
  /** Suspensions (gaps between pieces) and their total and longest time, in ns. */
  suspensions: number;
  time: number;
  max: number;
  /** Time executing (the pieces), ns. */
  executing: number;
  /** Pieces resumed on another thread than the one before. */
  migrated: number;
}

export function taskSuspensions(model: TraceModel): TaskSuspensionRow[] {
  const rows = new Map<string, TaskSuspensionRow>();
  for (const task of model.tasks) {
    if (task.pieces.length === 0) continue;
    const construct = task.region >= 0 ? regionName(model, task.region) : '(task without a region)';
    let row = rows.get(construct);
    if (!row) rows.set(construct, (row = { construct, tasks: 0, suspended: 0, suspensions: 0, time: 0, max: 0, executing: 0, migrated: 0 }));
    row.tasks++;
    const ps = task.pieces.map((p) => model.pieces[p]);
    if (ps.length > 1) row.suspended++;
    for (let i = 0; i < ps.length; i++) {
      row.executing += ps[i].end - ps[i].start;
      if (i === 0) continue;
      const gap = ps[i].start - ps[i - 1].end;
      row.suspensions++;
      row.time += gap;
      row.max = Math.max(row.max, gap);
      if (ps[i].lane !== ps[i - 1].lane) row.migrated++;
    }
  }
  return [...rows.values()].sort((a, b) => b.time - a.time || b.tasks - a.tasks);
}

export interface PhaseInstance {
  /** The instance's region (`Iteration 2`), its thread, start (ns after the trace's start) and duration. */
  name: string;
  lane: string;
  start: number;
  duration: number;
}

/** A phase's slowest instance against its median one. */
export interface PhaseRow {
  phase: string;
  instances: number;
  median: number;
  slowest: PhaseInstance;
  medianInstance: PhaseInstance;
  /** What the slowest spent more (or less) time in than the median instance, largest first. */
  differences: Array<{ region: string; slowest: number; median: number }>;
}

/** Time per directly-contained region (inclusive) of one interval. */
function childTimes(model: TraceModel, laneIndex: number, k: number): Map<string, number> {
  const lane = model.lanes[laneIndex];
  const out = new Map<string, number>();
  let own = lane.end[k] - lane.start[k];
  for (let c = k + 1; c < lane.next[k]; c = lane.next[c]) {
    const name = regionName(model, lane.region[c]);
    const d = lane.end[c] - lane.start[c];
    out.set(name, (out.get(name) ?? 0) + d);
    own -= d;
  }
  out.set('(in the phase itself)', own);
  return out;
}

/**
 * Phases are the regions whose group names TAU_PHASE (docs/trace.md). Dynamic phases, one region per
 * iteration (`Iteration 0`, `Iteration 1`, ...), are one phase `Iteration <n>` whose instances are
 * every iteration on every thread.
 */
export function phaseFamily(name: string): string {
  return name.replace(/ \d+$/, ' <n>');
}

export function phaseInstances(model: TraceModel): PhaseRow[] {
  const byPhase = new Map<string, Array<{ lane: number; k: number; d: number }>>();
  for (const lane of model.lanes) {
    for (let k = 0; k < lane.count; k++) {
      const def = model.defs.regions.get(lane.region[k]);
      if (!def || !/\bTAU_PHASE\b/.test(def.group)) continue;
      const family = phaseFamily(def.name);
      let l = byPhase.get(family);
      if (!l) byPhase.set(family, (l = []));
      l.push({ lane: lane.index, k, d: lane.end[k] - lane.start[k] });
    }
  }
  const out: PhaseRow[] = [];
  for (const [phase, inst] of byPhase) {
    const sorted = [...inst].sort((a, b) => a.d - b.d);
    const med = sorted[(sorted.length - 1) >> 1];
    const slow = sorted[sorted.length - 1];
    const desc = (x: { lane: number; k: number; d: number }) => ({
      name: regionName(model, model.lanes[x.lane].region[x.k]),
      lane: laneLabel(model.lanes[x.lane]),
      start: model.lanes[x.lane].start[x.k],
      duration: x.d,
    });
    const a = childTimes(model, slow.lane, slow.k);
    const b = childTimes(model, med.lane, med.k);
    const names = new Set([...a.keys(), ...b.keys()]);
    const differences = [...names]
      .map((n) => ({ region: n, slowest: a.get(n) ?? 0, median: b.get(n) ?? 0 }))
      .filter((x) => x.slowest !== x.median)
      .sort((x, y) => Math.abs(y.slowest - y.median) - Math.abs(x.slowest - x.median));
    out.push({ phase, instances: inst.length, median: med.d, slowest: desc(slow), medianInstance: desc(med), differences });
  }
  return out.sort((x, y) => x.phase.localeCompare(y.phase, 'en', { numeric: true }));
}
