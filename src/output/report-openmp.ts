/**
 * Text of `hyprof report --openmp` (blame metrics per context with equation 2's absolute and relative
 * forms, overhead classes per parallel region and for the program, constructs per thread, tasks) and
 * of `hyprof report --diagnose` (the problems found, each with its code location).
 */
import type { OpenmpAnalysis } from '../analysis/openmp-analysis.js';
import type { OpenmpFile } from '../analysis/openmp.js';

const ms = (ns: number): string => (ns / 1e6).toFixed(3);
const p1 = (x: number): string => `${x.toFixed(1)}%`;

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => rows.reduce((m, r) => Math.max(m, r[i].length), h.length));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padStart(w[i]))).join('  ').trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

function runtimeLines(a: OpenmpAnalysis): string[] {
  const out = [`Process ${a.file}`, `  OpenMP runtime: ${a.runtime}; tool level ${a.level}; ${a.maxThreads} threads at most; ${a.cores} cores`];
  if (a.substituted) out.push(`  NOTE: ${a.substituted}`);
  return out;
}

function header(data: OpenmpFile): string[] {
  const out: string[] = [];
  for (const f of data.withoutTool) {
    out.push(`NOTE: ${f}: no OpenMP tools interface was active in this process (no OpenMP, a runtime without OMPT such as libgomp, or HYPROF_OPENMP=off): no OpenMP metrics.`);
  }
  return out;
}

export function renderOpenmpReport(data: OpenmpFile, opts: { limit?: number } = {}): string {
  const limit = opts.limit ?? 20;
  const out = header(data);
  for (const a of data.processes) {
    out.push(...runtimeLines(a), '');
    const t = a.totals;
    const effort = t.work + t.threadIdleness + t.overhead + t.lockBlame;
    out.push(
      'Blame metrics (samples; seed: HPCToolkit blame shifting). Idleness is blamed on the threads working meanwhile,',
      'lock waiting on the context that released the lock. abs = share of the whole effort, rel = share of the context.',
      `  whole program: work ${ms(t.work)} ms, thread idleness ${ms(t.threadIdleness)} ms (${p1(effort ? (100 * t.threadIdleness) / effort : 0)}), ` +
        `core idleness ${ms(t.coreIdleness)} ms, overhead ${ms(t.overhead)} ms, lock waiting ${ms(t.lockBlame)} ms`,
      '',
    );
    const ctx = a.contexts.slice(0, limit);
    if (ctx.length === 0) {
      out.push('  (no samples with OpenMP state: run with sampling on, e.g. HYPROF_SAMPLING=1 or hyprof run)', '');
    } else {
      out.push(
        table(
          ['work ms', 'abs work', 'idle ms', 'abs idle', 'rel idle', 'core idle ms', 'lock ms', 'rel lock', 'context'],
          ctx.map((c) => [
            ms(c.work),
            p1(c.absWork),
            ms(c.threadIdleness),
            p1(c.absIdleness),
            p1(c.relIdleness),
            ms(c.coreIdleness),
            ms(c.lockBlame),
            p1(c.relLockBlame),
            c.path,
          ]),
        ),
        '',
      );
    }
    if (a.lockReleases.length > 0) {
      out.push('Lock waiting blamed on release sites:');
      out.push(table(['wait ms', 'releases', 'released at'], a.lockReleases.map((r) => [ms(r.blame), String(r.count), r.location])), '');
    }
    const po = a.programOverheads;
    out.push('Parallel regions and overhead classes (ms summed over threads; seed: ompP):');
    const regRows = a.regions.map((r) => [
      String(r.count),
      ms(r.exec),
      ms(r.sync),
      ms(r.imbalance),
      ms(r.limitedParallelism),
      ms(r.threadManagement),
      p1(r.exec ? (100 * (r.sync + r.imbalance + r.limitedParallelism + r.threadManagement)) / r.exec : 0),
      r.location,
    ]);
    regRows.push([
      '',
      ms(po.exec),
      ms(po.sync),
      ms(po.imbalance),
      ms(po.limitedParallelism),
      ms(po.threadManagement),
      p1(po.exec ? (100 * (po.sync + po.imbalance + po.limitedParallelism + po.threadManagement)) / po.exec : 0),
      'whole program',
    ]);
    out.push(table(['tasks', 'exec', 'sync', 'imbalance', 'lim.par.', 'thr.mgmt', 'overhead', 'region'], regRows), '');
    out.push('Constructs per thread (calls / inclusive ms): waits (Mutex_Wait, barriers) are enter times, Critical / Lock_Held bodies:');
    for (const c of a.constructs) {
      out.push(`  ${c.name}`);
      out.push(`      ${c.perThread.map((p) => `t${p.thread}: ${p.calls} / ${ms(p.incl)}`).join('   ')}`);
    }
    out.push('');
    if (a.tasks.length > 0) {
      out.push(`Tasks (suspended time not charged; runtime dispatch ${(a.taskDispatch.perTaskNs / 1e3).toFixed(2)} us per task):`);
      out.push(
        table(
          ['created', 'executed', 'mean us', 'max us', 'creators', 'task'],
          a.tasks.map((k) => [
            String(k.created),
            String(k.executed),
            (k.meanNs / 1e3).toFixed(2),
            (k.maxNs / 1e3).toFixed(2),
            k.creators.filter((c) => c.created > 0).map((c) => `t${c.thread}:${c.created}`).join(' '),
            k.name,
          ]),
        ),
        '',
      );
    }
  }
  return `${out.join('\n')}\n`;
}

const TITLES: Record<string, string> = {
  'tasks-too-fine': 'Tasks too fine-grained',
  'tasks-too-coarse': 'Tasks too coarse',
  'task-creation-bottleneck': 'Task-creation bottleneck',
  'loop-imbalance': 'Load imbalance in a work-shared loop',
  'serial-section': 'Serial section leaves threads idle',
  'lock-contention': 'Lock contention',
};

export function renderDiagnoses(data: OpenmpFile): string {
  const out = header(data);
  for (const a of data.processes) {
    out.push(...runtimeLines(a));
    if (a.diagnoses.length === 0) out.push('  No OpenMP performance problem found.');
    for (const d of a.diagnoses) {
      out.push('', `${TITLES[d.kind] ?? d.kind} at ${d.location}`, `  ${d.construct}`, `  ${d.message}`);
    }
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
