/**
 * The three task problems of Schmidl et al., "Performance Analysis Techniques for Task-Based OpenMP
 * Applications" (IWOMP 2012), found in a trace and located in time, per parallel region instance that
 * created explicit tasks (the creating thread's parallel region interval):
 *  - too finely grained: the tasks' median execution time is not above twice the median time of
 *    creating one (the task-create region around ThreadTaskCreate) — the runtime's overhead costs as
 *    much as the work — or, without create regions, below 5 µs;
 *  - too coarsely grained: fewer tasks than twice the team's threads, and the team's threads idle
 *    (in no task) for more than a quarter of the time from the first task's start to the last one's
 *    end: a few large tasks leave threads without work;
 *  - task creation bottleneck: while tasks are being created, the threads that do not create them
 *    are idle more than half the time, and a task waits less (median, creation to start) than it
 *    runs: the workers take each task as soon as it exists, so the creators cannot keep up.
 * The thresholds are this file's, stated in the report's reasons; the paper finds the problems visually.
 */
import { laneLabel, regionName, type TraceModel } from './trace-model.js';

export interface TaskProblem {
  kind: 'tasks too fine' | 'tasks too coarse' | 'task creation bottleneck';
  /** The window, ns after the trace's start. */
  from: number;
  to: number;
  /** The parallel region instance: `rank 0 thread 0: OpenMP_Parallel_Region …`. */
  where: string;
  why: string;
}

const ROLE_PARALLEL = 5;
const ROLE_TASK_CREATE = 21;

const median = (xs: number[]): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[(s.length - 1) >> 1];
};
const us = (ns: number): string => `${(ns / 1000).toFixed(1)} µs`;

/** Time in [from, to) covered by the given intervals (which may overlap only across lanes). */
function covered(intervals: Array<[number, number]>, from: number, to: number): number {
  let sum = 0;
  for (const [s, e] of intervals) sum += Math.max(0, Math.min(e, to) - Math.max(s, from));
  return sum;
}

export function taskProblems(model: TraceModel): TaskProblem[] {
  const out: TaskProblem[] = [];
  // Tasks by the parallel region interval (lane, interval index) in which they were created.
  const byRegion = new Map<string, { lane: number; k: number; tasks: number[] }>();
  model.tasks.forEach((task, ti) => {
    if (task.createdLane < 0 || task.pieces.length === 0) return;
    const lane = model.lanes[task.createdLane];
    // The innermost parallel region around the creation: search the intervals of that lane.
    let found = -1;
    for (let k = 0; k < lane.count; k++) {
      if (lane.start[k] > task.created) break;
      if (lane.end[k] >= task.created && model.defs.regions.get(lane.region[k])?.role === ROLE_PARALLEL) found = k;
    }
    if (found < 0) return;
    const key = `${task.createdLane}/${found}`;
    let g = byRegion.get(key);
    if (!g) byRegion.set(key, (g = { lane: task.createdLane, k: found, tasks: [] }));
    g.tasks.push(ti);
  });
  for (const g of byRegion.values()) {
    const master = model.lanes[g.lane];
    const from = master.start[g.k];
    const to = master.end[g.k];
    const where = `${laneLabel(master)}: ${regionName(model, master.region[g.k])}`;
    const tasks = g.tasks.map((t) => model.tasks[t]);
    const pieces = tasks.flatMap((t) => t.pieces.map((p) => model.pieces[p]));
    const team = [...new Set([g.lane, ...pieces.map((p) => p.lane)])];
    const threads = Math.max(team.length, 1);
    const exec = tasks.map((t) => t.pieces.reduce((s, p) => s + model.pieces[p].end - model.pieces[p].start, 0));
    const medExec = median(exec);
    // Creation cost: the task-create regions on the creating lanes inside the window.
    const creators = [...new Set(tasks.map((t) => t.createdLane))];
    const create: number[] = [];
    for (const li of creators) {
      const lane = model.lanes[li];
      for (let k = 0; k < lane.count; k++) {
        if (lane.start[k] < from || lane.start[k] > to) continue;
        if (model.defs.regions.get(lane.region[k])?.role === ROLE_TASK_CREATE) create.push(lane.end[k] - lane.start[k]);
      }
    }
    const medCreate = median(create);
    if (create.length ? medExec <= 2 * medCreate : medExec < 5000) {
      out.push({
        kind: 'tasks too fine',
        from,
        to,
        where,
        why: `${tasks.length} tasks run ${us(medExec)} each (median)${create.length ? ` and take ${us(medCreate)} to create` : ''}: the runtime's overhead is as large as the work`,
      });
    }
    const firstStart = Math.min(...pieces.map((p) => p.start));
    const lastEnd = Math.max(...pieces.map((p) => p.end));
    const span = lastEnd - firstStart;
    const busy = covered(pieces.map((p) => [p.start, p.end]), firstStart, lastEnd);
    const idle = span > 0 ? 1 - busy / (threads * span) : 0;
    if (tasks.length < 2 * threads && idle > 0.25) {
      out.push({
        kind: 'tasks too coarse',
        from: firstStart,
        to: lastEnd,
        where,
        why: `${tasks.length} tasks for ${threads} threads: the threads are idle ${(idle * 100).toFixed(0)} % of the time the tasks run`,
      });
    }
    const created = tasks.map((t) => t.created);
    const cFrom = Math.min(...created);
    const cTo = Math.max(...created);
    const workers = team.filter((l) => !creators.includes(l));
    if (workers.length > 0 && cTo > cFrom) {
      const workerBusy = covered(
        pieces.filter((p) => workers.includes(p.lane)).map((p) => [p.start, p.end]),
        cFrom,
        cTo,
      );
      const workerIdle = 1 - workerBusy / (workers.length * (cTo - cFrom));
      const medWait = median(tasks.map((t) => model.pieces[t.pieces[0]].start - t.created));
      if (workerIdle > 0.5 && medWait < medExec) {
        out.push({
          kind: 'task creation bottleneck',
          from: cFrom,
          to: cTo,
          where,
          why:
            `while ${creators.length} thread(s) create ${tasks.length} tasks, the other ${workers.length} are idle ${(workerIdle * 100).toFixed(0)} % of the time ` +
            `and a task waits ${us(medWait)} (median) to start: the workers wait for tasks to be created`,
        });
      }
    }
  }
  return out.sort((a, b) => a.from - b.from);
}
