/**
 * What sampling says about OpenMP tasks and the runtime, whatever the tool's level: the native tool
 * replaced the runtime's frames of each sample by a placeholder naming what the thread did
 * (src/samples/raw-model.ts, PLACEHOLDER_NAMES), so the innermost frame tells task creation,
 * dispatch, waits and idleness apart from the program's own code, and a sample inside an explicit
 * task knows which: its context's task event (level full), or the task's code right inside the
 * `<OpenMP task>` placeholder (level basic, named by where that code is).
 */
import { EventKind, PLACEHOLDER_PC, type RawProcess } from '../samples/raw-model.js';
import { OmpKind, type OmptData } from './openmp-raw.js';

export const enum Placeholder {
  IDLE = 1,
  BARRIER = 2,
  TASKWAIT = 3,
  LOCK = 4,
  OVERHEAD = 5,
  TASK = 6,
  DISPATCH = 7,
  TASK_CREATE = 8,
}

/** Sampled time (ns) by what the thread did. */
export interface ActivityTimes {
  /** The program's own code (not in the runtime). */
  work: number;
  /** Inside the runtime, by placeholder kind. */
  creation: number;
  dispatch: number;
  taskwait: number;
  barrier: number;
  idle: number;
  lock: number;
  overhead: number;
}

export interface TaskSamples extends ActivityTimes {
  /** The same classes in samples taken (not their time): what load does not stretch (see SampleActivity). */
  counts: ActivityTimes;
  /** Level full: the task construct's event; level basic: null (known by its code only). */
  event: number | null;
  /** Where the task's code is (level basic), or null. */
  location: string | null;
  function: string | null;
}

export interface SampleActivity {
  total: ActivityTimes;
  /** Per thread, with the part of its time spent inside explicit tasks. */
  perThread: Array<{ thread: number; inTasks: number } & ActivityTimes>;
  /**
   * The same classes counted in samples rather than time. A sample's time is the wall time since the
   * thread's previous sample, so a thread that waited to run on a loaded machine charges that wait to
   * wherever it resumed (mostly a runtime's spin-wait); the count of samples grows only while the
   * thread runs. Shares that decide diagnoses are taken from counts (openmp-diagnose.ts).
   */
  counts: { total: ActivityTimes; perThread: Array<{ thread: number; inTasks: number } & ActivityTimes> };
  /**
   * Time threads spent running explicit tasks while their innermost construct was a barrier, per
   * region event and thread: at level basic no event says so, and the barrier's wait includes it.
   */
  tasksInBarriers: Map<number, Map<number, number>>;
  /**
   * Samples of the program's own code (no runtime placeholder at the leaf) outside explicit tasks,
   * per construct event and thread, for the innermost parallel region and the innermost work-shared
   * loop around them: each thread's work in a construct counted in samples, which load does not
   * stretch (the imbalance rules, openmp-diagnose.ts).
   */
  workIn: Map<number, Map<number, number>>;
  /** Time of samples taken inside explicit tasks, per task construct. */
  tasks: TaskSamples[];
  /** Samples there were at all (0: sampling was off). */
  samples: number;
  /**
   * Where tasks were created, from samples in the runtime's task creation: the program's frame right
   * below the placeholder is the line of the task construct. Samples per location (and its function).
   */
  creationSites: Array<{ location: string; function: string; samples: number }>;
}

export function emptyTimes(): ActivityTimes {
  return { work: 0, creation: 0, dispatch: 0, taskwait: 0, barrier: 0, idle: 0, lock: 0, overhead: 0 };
}

function add(t: ActivityTimes, kind: number | null, ns: number): void {
  switch (kind) {
    case null: t.work += ns; break;
    case Placeholder.TASK_CREATE: t.creation += ns; break;
    case Placeholder.DISPATCH: t.dispatch += ns; break;
    case Placeholder.TASKWAIT: t.taskwait += ns; break;
    case Placeholder.BARRIER: t.barrier += ns; break;
    case Placeholder.IDLE: t.idle += ns; break;
    case Placeholder.LOCK: t.lock += ns; break;
    default: t.overhead += ns; break;
  }
}

const kindOf = (pc: bigint): number | null => (pc >= PLACEHOLDER_PC ? Number(pc & 0xffn) : null);

export interface FrameLocation {
  function: string;
  location: string;
}

const BARRIERS = new Set<number>([OmpKind.BARRIER_IMPLICIT, OmpKind.BARRIER_EXPLICIT, OmpKind.BARRIER_IMPLEMENTATION]);

export function sampleActivity(proc: RawProcess, omp: OmptData, locate: (pc: bigint) => FrameLocation | null): SampleActivity {
  const taskEvents = new Set(omp.constructs.filter((c) => c.kind === OmpKind.TASK).map((c) => c.event));
  const kindOfEvent = new Map(omp.constructs.map((c) => [c.event, c.kind]));
  // For a context whose own construct is a barrier: the innermost region around it.
  const barrierRegion = new Map<bigint, number | null>();
  const regionOfBarrier = (ctx: bigint): number | null => {
    let hit = barrierRegion.get(ctx);
    if (hit !== undefined) return hit;
    hit = null;
    const own = proc.contexts.get(ctx);
    if (own && BARRIERS.has(kindOfEvent.get(own.event) ?? -1)) {
      for (let c = own.parent ? proc.contexts.get(own.parent) : undefined; c; c = c.parent ? proc.contexts.get(c.parent) : undefined) {
        if (kindOfEvent.get(c.event) === OmpKind.PARALLEL) {
          hit = c.event;
          break;
        }
        if (!c.parent) break;
      }
    }
    barrierRegion.set(ctx, hit);
    return hit;
  };
  const tasksInBarriers = new Map<number, Map<number, number>>();
  // The innermost parallel region and work-shared loop around a context (events; absent: none).
  const enclosing = new Map<bigint, number[]>();
  const enclosingOf = (ctx: bigint): number[] => {
    let hit = enclosing.get(ctx);
    if (hit !== undefined) return hit;
    let region: number | null = null;
    let loop: number | null = null;
    for (let c = proc.contexts.get(ctx); c && region === null; c = c.parent ? proc.contexts.get(c.parent) : undefined) {
      const kind = kindOfEvent.get(c.event);
      if (kind === OmpKind.PARALLEL) region = c.event;
      else if (kind === OmpKind.LOOP && loop === null) loop = c.event;
      if (!c.parent) break;
    }
    hit = [region, loop].filter((e): e is number => e !== null);
    enclosing.set(ctx, hit);
    return hit;
  };
  const workIn = new Map<number, Map<number, number>>();
  const events = new Map(proc.events.map((e) => [e.id, e]));
  const taskOfContext = new Map<bigint, number | null>();
  const innermostTask = (ctx: bigint): number | null => {
    let hit = taskOfContext.get(ctx);
    if (hit !== undefined) return hit;
    hit = null;
    for (let c = proc.contexts.get(ctx); c; c = c.parent ? proc.contexts.get(c.parent) : undefined) {
      if (events.get(c.event)?.kind === EventKind.OPENMP && taskEvents.has(c.event)) {
        hit = c.event;
        break;
      }
      if (!c.parent) break;
    }
    taskOfContext.set(ctx, hit);
    return hit;
  };
  const total = emptyTimes();
  const totalCount = emptyTimes();
  const perThread: SampleActivity['perThread'] = [];
  const perThreadCount: SampleActivity['perThread'] = [];
  const tasks = new Map<string, TaskSamples>();
  const creationSites = new Map<string, { location: string; function: string; samples: number }>();
  let samples = 0;
  for (const th of proc.threads) {
    const mine = { thread: th.index, inTasks: 0, ...emptyTimes() };
    const mineCount = { thread: th.index, inTasks: 0, ...emptyTimes() };
    for (const s of th.samples) {
      const ns = s.values[0] ?? 0;
      samples += s.count;
      const leaf = s.pcs.length > 0 ? kindOf(s.pcs[0]) : null;
      // A wait of the runtime's own (the worker's pool) outside any task or region says nothing
      // about the program's work: still counted, as idleness.
      add(total, leaf, ns);
      add(mine, leaf, ns);
      add(totalCount, leaf, s.count);
      add(mineCount, leaf, s.count);
      if (leaf === Placeholder.TASK_CREATE && s.pcs.length > 1 && kindOf(s.pcs[1]) === null) {
        const at = locate(s.pcs[1]);
        if (at) {
          let c = creationSites.get(at.location);
          if (!c) creationSites.set(at.location, (c = { location: at.location, function: at.function, samples: 0 }));
          c.samples += s.count;
        }
      }
      let key: string | null = null;
      let task: Omit<TaskSamples, keyof ActivityTimes | 'counts'> | null = null;
      const ev = innermostTask(s.context);
      // In an explicit task: its event (level full), or the <OpenMP task> placeholder below the leaf.
      const taskAt = ev === null ? s.pcs.findIndex((pc, k) => k > 0 && kindOf(pc) === Placeholder.TASK) : -1;
      // Work in an explicit task is the runtime's to place (the task rules judge it), not the
      // region's schedule: clang's fib region, its work all in tasks, read 1.5x "imbalanced".
      if (leaf === null && ev === null && taskAt < 0) {
        for (const c of enclosingOf(s.context)) {
          let m = workIn.get(c);
          if (!m) workIn.set(c, (m = new Map()));
          m.set(th.index, (m.get(th.index) ?? 0) + s.count);
        }
      }
      if (ev !== null) {
        key = `event ${ev}`;
        task = { event: ev, location: null, function: null };
      } else {
        const i = taskAt;
        if (i > 0) {
          mine.inTasks += ns;
          mineCount.inTasks += s.count;
          const region = regionOfBarrier(s.context);
          if (region !== null) {
            let m = tasksInBarriers.get(region);
            if (!m) tasksInBarriers.set(region, (m = new Map()));
            m.set(th.index, (m.get(th.index) ?? 0) + ns);
          }
          // The task's code: the frame right inside the placeholder (none when the sample is in the
          // runtime starting the task).
          const at = kindOf(s.pcs[i - 1]) === null ? locate(s.pcs[i - 1]) : null;
          if (at) {
            key = `code ${at.location}`;
            task = { event: null, location: at.location, function: at.function };
          }
        }
      }
      if (ev !== null) {
        mine.inTasks += ns;
        mineCount.inTasks += s.count;
      }
      if (key && task) {
        let t = tasks.get(key);
        if (!t) tasks.set(key, (t = { ...task, ...emptyTimes(), counts: emptyTimes() }));
        add(t, leaf, ns);
        add(t.counts, leaf, s.count);
      }
    }
    perThread.push(mine);
    perThreadCount.push(mineCount);
  }
  return {
    total,
    perThread,
    tasksInBarriers,
    workIn,
    tasks: [...tasks.values()],
    samples,
    counts: { total: totalCount, perThread: perThreadCount },
    creationSites: [...creationSites.values()].sort((a, b) => b.samples - a.samples),
  };
}

/** Runtime time spent on tasks themselves: creating and dispatching them. */
export const taskManagement = (t: ActivityTimes): number => t.creation + t.dispatch;

/** All sampled time of an activity record. */
export function sampledTotal(t: ActivityTimes): number {
  return t.work + t.creation + t.dispatch + t.taskwait + t.barrier + t.idle + t.lock + t.overhead;
}
