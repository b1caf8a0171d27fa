/**
 * A trace as its readers use it, built in one pass over each location's events (otf2-index.ts):
 *  - lanes: one per location (thread), named by its process ("rank <r>", "process …") and thread;
 *    its regions as intervals in preorder (a region before the regions inside it), in typed columns;
 *  - messages: each send matched to its receive (MPI's order: per sender, receiver, communicator and
 *    tag, first sent is first received), with the MPI calls around both ends;
 *  - collectives: the k-th collective a communicator's members complete is one instance, joined;
 *  - tasks: each explicit task's pieces (between a switch to it and the next switch, its completion
 *    or the team's end on that thread) and its creation;
 *  - samples: time and calling context per lane.
 * The event columns are not kept: a model of 10 million events holds the intervals (25 bytes each),
 * the messages and the samples.
 */
import { EV, type TraceDefs, type TraceIndex } from './otf2-index.js';

export interface Lane {
  /** Index among the lanes (= the location's index in the definitions). */
  index: number;
  /** The location's id in the archive. */
  location: number;
  /** The process's name (its location group): `rank <r>` or `process <node>.<context>`. */
  process: string;
  /** MPI rank (in MPI_COMM_WORLD) of the lane's process, or -1. */
  rank: number;
  /** The location's name: `thread <t>` (or `thread <t> "<name>"`; a GPU stream's `GPU <d> context <c> stream <s>`). */
  thread: string;
  /** A GPU stream's location (OTF2_LOCATION_TYPE_ACCELERATOR_STREAM): its regions are the GPU's kernels and copies. */
  gpu: boolean;
  /** Intervals in preorder: start, end (ns after the clock's offset), region, depth (0 = outermost). */
  start: Float64Array;
  end: Float64Array;
  region: Int32Array;
  depth: Uint8Array;
  /** The interval around it, or -1. */
  parent: Int32Array;
  /** Index just after the interval's subtree (preorder): skip it whole when it is outside a range. */
  next: Int32Array;
  count: number;
  maxDepth: number;
  /** Interval indices per depth, in time order (intervals of one depth never overlap). */
  byDepth: Int32Array[];
  /** Attributes of an interval's Enter (parameters: `param:<name>`), by interval index. */
  attrs: Map<number, Record<string, number | string>>;
  /** Samples: times and calling contexts. */
  sampleTime: Float64Array;
  sampleContext: Int32Array;
  /** The lane's first and last timestamps. */
  first: number;
  last: number;
  /** Regions the archive left open at the lane's end, closed here at its last timestamp. */
  closedAtEnd: number;
  /** Events of kinds not drawn nor analysed (metrics, I/O...). */
  other: number;
}

/** One end of a message or one member of a collective: its lane and the MPI call around it. */
export interface CallRef {
  lane: number;
  /** The event's time (send, receive completion, collective end). */
  time: number;
  /** The innermost region around the event (the MPI call): its interval, region and times. */
  interval: number;
  region: number;
  enter: number;
  leave: number;
}

export interface Message {
  send: CallRef;
  recv: CallRef;
  comm: number;
  tag: number;
  bytes: number;
}

export interface Collective {
  comm: number;
  /** The collective operation (OTF2_CollectiveOp). */
  op: number;
  /** Root as a rank of the communicator, or -1. */
  root: number;
  /** The k-th collective of this communicator. */
  sequence: number;
  members: Array<CallRef & { commRank: number }>;
}

export interface TaskPiece {
  lane: number;
  start: number;
  end: number;
  /** Index into tasks. */
  task: number;
  /** How the piece ended: the task completed, or was suspended (switched away from, or its team ended). */
  completed: boolean;
}

export interface Task {
  key: string;
  /** The task's construct: the region of the first Enter in its first piece, or -1. */
  region: number;
  created: number;
  createdLane: number;
  completed: number;
  pieces: number[];
}

export interface TraceModel {
  anchor: string;
  defs: TraceDefs;
  lanes: Lane[];
  messages: Message[];
  /** Sends or receives no other end was found for (counted, said by the readers). */
  unmatched: { sends: number; receives: number };
  collectives: Collective[];
  tasks: Task[];
  pieces: TaskPiece[];
  /** First and last timestamp of all lanes (ns after the clock's offset). */
  first: number;
  last: number;
}

/** OTF2 group and location-group types used here (OTF2_GeneralDefinitions.h, OTF2_Definitions.h). */
const GROUP_TYPE_COMM_LOCATIONS = 4;
const PARADIGM_MPI = 4;

/** World rank → lane, from the MPI COMM_LOCATIONS group (docs/trace.md), else `rank <r>` names. */
function mpiRanks(defs: TraceDefs): { rankOfGroup: Map<number, number> } {
  const laneOfId = new Map<number, number>();
  defs.locations.forEach((l, i) => laneOfId.set(Number(l.id), i));
  const laneOfRank = new Map<number, number>();
  const rankOfGroup = new Map<number, number>();
  for (const g of defs.groups.values()) {
    if (g.type !== GROUP_TYPE_COMM_LOCATIONS || g.paradigm !== PARADIGM_MPI) continue;
    g.members.forEach((id, rank) => {
      const lane = laneOfId.get(id);
      if (lane === undefined) return;
      laneOfRank.set(rank, lane);
      rankOfGroup.set(defs.locations[lane].group, rank);
    });
  }
  if (rankOfGroup.size === 0) {
    for (const [id, g] of defs.locationGroups) {
      const m = /^rank (\d+)$/.exec(g.name);
      if (m) rankOfGroup.set(id, +m[1]);
    }
    defs.locations.forEach((l, i) => {
      const r = rankOfGroup.get(l.group);
      if (r !== undefined && !laneOfRank.has(r)) laneOfRank.set(r, i);
    });
  }
  return { rankOfGroup };
}

/** A communicator's rank → world rank (a COMM_GROUP's members are world ranks). */
function commMembers(defs: TraceDefs, comm: number): number[] | undefined {
  const c = defs.comms.get(comm);
  return c ? defs.groups.get(c.group)?.members : undefined;
}

interface PendingEnd {
  ref: CallRef;
  comm: number;
  tag: number;
  bytes: number;
}

/** OTF2's OTF2_LOCATION_TYPE_ACCELERATOR_STREAM and OTF2_LOCATION_GROUP_TYPE_ACCELERATOR. */
const LOCATION_ACCELERATOR_STREAM = 2;
const LOCATION_GROUP_ACCELERATOR = 2;

export function buildModel(index: TraceIndex): TraceModel {
  const { defs } = index;
  const { rankOfGroup } = mpiRanks(defs);
  const lanes: Lane[] = [];
  // Messages are matched by (sender rank, receiver rank, comm, tag) in order: queues per key.
  const sends = new Map<string, PendingEnd[]>();
  const recvs = new Map<string, PendingEnd[]>();
  const collectiveEnds = new Map<number, Array<Array<CallRef & { op: number; root: number; commRank: number }>>>();
  const tasks: Task[] = [];
  const taskOf = new Map<string, number>();
  const pieces: TaskPiece[] = [];
  let first = Infinity;
  let last = -Infinity;

  const taskIndex = (key: string): number => {
    let t = taskOf.get(key);
    if (t === undefined) {
      t = tasks.length;
      taskOf.set(key, t);
      tasks.push({ key, region: -1, created: NaN, createdLane: -1, completed: NaN, pieces: [] });
    }
    return t;
  };

  index.events.forEach((ev, li) => {
    const loc = defs.locations[li];
    const n = ev.time.length;
    // A GPU stream's group is its device's, created by the process: the lane belongs to that process.
    const own = defs.locationGroups.get(loc.group);
    const group = own && own.type === LOCATION_GROUP_ACCELERATOR && own.creator >= 0 ? own.creator : loc.group;
    const rank = rankOfGroup.get(group) ?? -1;
    const process = defs.locationGroups.get(group)?.name ?? `group ${group}`;
    let enters = 0;
    let samples = 0;
    for (let i = 0; i < n; i++) {
      if (ev.kind[i] === EV.ENTER) enters++;
      else if (ev.kind[i] === EV.SAMPLE) samples++;
    }
    const start = new Float64Array(enters);
    const end = new Float64Array(enters);
    const region = new Int32Array(enters);
    const depth = new Uint8Array(enters);
    const parent = new Int32Array(enters);
    const next = new Int32Array(enters);
    const sampleTime = new Float64Array(samples);
    const sampleContext = new Int32Array(samples);
    const attrs = new Map<number, Record<string, number | string>>();
    const stack: number[] = [];
    let count = 0;
    let ns = 0;
    let maxDepth = 0;
    const laneFirst = n ? ev.time[0] : 0;
    const laneLast = n ? ev.time[n - 1] : 0;
    if (n) {
      first = Math.min(first, laneFirst);
      last = Math.max(last, laneLast);
    }
    const callAround = (i: number): CallRef => {
      const iv = stack.length ? stack[stack.length - 1] : -1;
      // The call's leave is filled in when it is left (refs are patched below).
      return { lane: li, time: ev.time[i], interval: iv, region: iv >= 0 ? region[iv] : -1, enter: iv >= 0 ? start[iv] : ev.time[i], leave: NaN };
    };
    // Refs waiting for their call's leave, by interval.
    const waitingLeave = new Map<number, CallRef[]>();
    const wait = <T extends CallRef>(ref: T): T => {
      if (ref.interval >= 0) {
        let l = waitingLeave.get(ref.interval);
        if (!l) waitingLeave.set(ref.interval, (l = []));
        l.push(ref);
      } else ref.leave = ref.time;
      return ref;
    };
    // Non-blocking operations waiting for their completion, by request id.
    const isends = new Map<number, PendingEnd & { peer: number }>();
    const collSeq = new Map<number, number>();
    let piece = -1; // the running task piece on this lane
    const endPiece = (t: number, completed: boolean): void => {
      if (piece < 0) return;
      pieces[piece].end = t;
      pieces[piece].completed = completed;
      piece = -1;
    };
    const toWorld = (comm: number, commRank: number): number => commMembers(defs, comm)?.[commRank] ?? commRank;

    for (let i = 0; i < n; i++) {
      const t = ev.time[i];
      const a = ev.a[i];
      const b = ev.b[i];
      const row = b * 4;
      switch (ev.kind[i]) {
        case EV.ENTER: {
          const k = count++;
          start[k] = t;
          region[k] = a;
          depth[k] = Math.min(stack.length, 255);
          parent[k] = stack.length ? stack[stack.length - 1] : -1;
          maxDepth = Math.max(maxDepth, stack.length + 1);
          const at = ev.attrs.get(i);
          if (at) attrs.set(k, at);
          stack.push(k);
          if (piece >= 0 && tasks[pieces[piece].task].region < 0 && pieces[piece].start <= t) {
            tasks[pieces[piece].task].region = a;
          }
          break;
        }
        case EV.LEAVE: {
          const k = stack.pop()!;
          end[k] = t;
          next[k] = count;
          const w = waitingLeave.get(k);
          if (w) {
            for (const ref of w) ref.leave = t;
            waitingLeave.delete(k);
          }
          break;
        }
        case EV.SEND:
        case EV.ISEND: {
          const comm = ev.aux[row];
          const pend: PendingEnd = { ref: wait(callAround(i)), comm, tag: ev.aux[row + 1], bytes: ev.aux[row + 2] };
          const key = `${rank}>${toWorld(comm, a)}/${comm}/${pend.tag}`;
          let q = sends.get(key);
          if (!q) sends.set(key, (q = []));
          q.push(pend);
          if (ev.kind[i] === EV.ISEND) isends.set(ev.aux[row + 3], { ...pend, peer: a });
          break;
        }
        case EV.RECV:
        case EV.IRECV: {
          const comm = ev.aux[row];
          const pend: PendingEnd = { ref: wait(callAround(i)), comm, tag: ev.aux[row + 1], bytes: ev.aux[row + 2] };
          const key = `${toWorld(comm, a)}>${rank}/${comm}/${pend.tag}`;
          let q = recvs.get(key);
          if (!q) recvs.set(key, (q = []));
          q.push(pend);
          break;
        }
        case EV.ISEND_COMPLETE:
        case EV.IRECV_REQUEST:
          break;
        case EV.COLL_END: {
          const comm = ev.aux[row];
          const seq = collSeq.get(comm) ?? 0;
          collSeq.set(comm, seq + 1);
          let inst = collectiveEnds.get(comm);
          if (!inst) collectiveEnds.set(comm, (inst = []));
          while (inst.length <= seq) inst.push([]);
          const members = commMembers(defs, comm);
          const commRank = members ? members.indexOf(rank) : rank;
          // One object, patched with the call's leave later (a copy would not be).
          inst[seq].push(wait(Object.assign(callAround(i), { op: a, root: ev.aux[row + 1], commRank })));
          break;
        }
        case EV.TASK_CREATE: {
          const tk = taskIndex(`${loc.group}/${ev.aux[row]}/${a}/${ev.aux[row + 1]}`);
          tasks[tk].created = t;
          tasks[tk].createdLane = li;
          break;
        }
        case EV.TASK_SWITCH: {
          endPiece(t, false);
          const tk = taskIndex(`${loc.group}/${ev.aux[row]}/${a}/${ev.aux[row + 1]}`);
          piece = pieces.length;
          pieces.push({ lane: li, start: t, end: t, task: tk, completed: false });
          tasks[tk].pieces.push(piece);
          break;
        }
        case EV.TASK_COMPLETE: {
          const tk = taskIndex(`${loc.group}/${ev.aux[row]}/${a}/${ev.aux[row + 1]}`);
          tasks[tk].completed = t;
          if (piece >= 0 && pieces[piece].task === tk) endPiece(t, true);
          break;
        }
        case EV.TEAM_END:
          endPiece(t, false);
          break;
        case EV.SAMPLE:
          sampleTime[ns] = t;
          sampleContext[ns++] = a;
          break;
        default:
          break;
      }
    }
    // Regions the archive left open (a run cut short): closed at the lane's last timestamp, counted.
    const closedAtEnd = stack.length;
    while (stack.length) {
      const k = stack.pop()!;
      end[k] = laneLast;
      next[k] = count;
      for (const ref of waitingLeave.get(k) ?? []) ref.leave = laneLast;
    }
    endPiece(laneLast, false);
    const perDepth: number[][] = Array.from({ length: maxDepth }, () => []);
    for (let k = 0; k < count; k++) perDepth[depth[k]].push(k);
    lanes.push({
      index: li,
      location: Number(loc.id),
      process,
      rank,
      thread: loc.name,
      gpu: loc.type === LOCATION_ACCELERATOR_STREAM,
      start,
      end,
      region,
      depth,
      parent,
      next,
      count,
      maxDepth,
      byDepth: perDepth.map((d) => Int32Array.from(d)),
      attrs,
      sampleTime,
      sampleContext,
      first: laneFirst,
      last: laneLast,
      closedAtEnd,
      other: ev.other,
    });
  });

  const messages: Message[] = [];
  let unmatchedSends = 0;
  let unmatchedRecvs = 0;
  for (const [key, q] of sends) {
    const r = recvs.get(key) ?? [];
    const m = Math.min(q.length, r.length);
    for (let i = 0; i < m; i++) {
      messages.push({ send: q[i].ref, recv: r[i].ref, comm: q[i].comm, tag: q[i].tag, bytes: q[i].bytes });
    }
    unmatchedSends += q.length - m;
    unmatchedRecvs += r.length - m;
    recvs.delete(key);
  }
  for (const r of recvs.values()) unmatchedRecvs += r.length;
  messages.sort((x, y) => x.send.time - y.send.time);

  const collectives: Collective[] = [];
  for (const [comm, insts] of collectiveEnds) {
    insts.forEach((members, sequence) => {
      const root = members[0]?.root ?? -1;
      collectives.push({ comm, op: members[0]?.op ?? -1, root, sequence, members });
    });
  }
  collectives.sort((x, y) => Math.min(...x.members.map((m) => m.enter)) - Math.min(...y.members.map((m) => m.enter)));
  if (!Number.isFinite(first)) first = last = 0;
  return {
    anchor: index.anchor,
    defs,
    lanes,
    messages,
    unmatched: { sends: unmatchedSends, receives: unmatchedRecvs },
    collectives,
    tasks,
    pieces,
    first,
    last,
  };
}

/** A region's name, or a placeholder naming its reference. */
export function regionName(model: TraceModel, region: number): string {
  return model.defs.regions.get(region)?.name ?? `region ${region}`;
}

/** The lane's label: `rank 0 thread 1`, `process 0.0 thread 0`. */
export function laneLabel(lane: Lane): string {
  return `${lane.process} ${lane.thread}`;
}

/**
 * What a reader of this trace does not show, said once (stderr of report/export, the viewer's
 * header): regions the archive left open, messages without their other end, events of kinds hyprof
 * does not read, losses the writer recorded (`hyprof:lost_events` location properties).
 */
export function traceNotes(model: TraceModel): string[] {
  const notes: string[] = [];
  const open = model.lanes.reduce((n, l) => n + l.closedAtEnd, 0);
  if (open) notes.push(`${open} region(s) left open at the end of their thread were closed at its last event`);
  if (model.unmatched.sends || model.unmatched.receives) {
    notes.push(`${model.unmatched.sends} send(s) and ${model.unmatched.receives} receive(s) without their other end (not drawn as messages)`);
  }
  const other = model.lanes.reduce((n, l) => n + l.other, 0);
  if (other) notes.push(`${other} event(s) of kinds hyprof does not read (metrics, I/O, RMA...) left out`);
  for (const p of model.defs.locationProperties) {
    if (p.name === 'hyprof:lost_events' && Number(p.value) > 0) {
      const lane = model.lanes.find((l) => l.location === p.location);
      const reason = model.defs.locationProperties.find((q) => q.location === p.location && q.name === 'hyprof:lost_reason');
      notes.push(`${lane ? laneLabel(lane) : `location ${p.location}`}: ${p.value} event(s) lost when recorded${reason ? ` (${reason.value})` : ''}`);
    }
  }
  return notes;
}
