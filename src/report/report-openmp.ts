/**
 * Text of `hyprof report --openmp` and `hyprof report --diagnose`. The OpenMP report leads with the
 * findings (strongest first), then where the threads' sampled time went (the runtime's share by
 * activity), blame metrics per calling context as an indented tree (the heaviest `limit` contexts and
 * their ancestors), overhead classes per parallel region, constructs per thread and tasks, each table
 * cut to `limit` rows. Construct events are shown by their short name and file:line, not by TAU's
 * full name.
 */
import type { OmpContextMetrics, OpenmpAnalysis } from '../analysis/openmp-model.js';
import type { OpenmpFile } from '../analysis/openmp.js';
import { sampledTotal, type ActivityTimes } from '../analysis/openmp-samples.js';
import { loadLine } from '../analysis/run-load.js';
import { rankList as ranksInShort } from '../profile/mpi-ranks.js';

const ms = (ns: number): string => (ns / 1e6).toFixed(ns >= 1e9 ? 0 : 3);
const us = (ns: number): string => (ns / 1e3).toPrecision(3);
const p1 = (x: number): string => `${x.toFixed(1)}%`;
const share = (a: number, b: number): number => (b > 0 ? (100 * a) / b : 0);

/** Columns right-aligned but the last, which is left as it is (names, trees). */
function table(head: string[], rows: string[][]): string {
  const w = head.map((h, i) => rows.reduce((m, r) => Math.max(m, r[i].length), h.length));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padStart(w[i]))).join('  ').trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

/** `OpenMP_Work_Loop f [{/a/b.c} {12, 0}]` → `Work_Loop f (b.c:12)`; other names as they are, capped. */
export function shortName(name: string): string {
  const m = /^OpenMP_(\S+) (.*?) \[\{(.*)\} \{(\d+), \d+\}\]\s*$/.exec(name);
  if (m) {
    const file = m[3].split('/').pop() || m[3];
    return `${m[1]} ${m[2]} (${file}${m[4] !== '0' ? `:${m[4]}` : ''})`;
  }
  const t = name.trim();
  return t.length > 80 ? `${t.slice(0, 77)}...` : t;
}

/** Words into lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const w of text.split(' ')) {
    if (line && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines;
}

function runtimeLines(a: OpenmpAnalysis): string[] {
  const out = [`Process ${a.file}`, `  OpenMP runtime: ${a.runtime}; tool level ${a.level}; ${a.maxThreads} threads at most; ${a.cores} cores`];
  if (a.substituted) out.push(`  NOTE: ${a.substituted}`);
  // First, before any finding: a finding on an oversubscribed run is read in that light.
  const load = a.load ? loadLine(a.load) : null;
  if (load) out.push(...wrap(`LOAD: ${load}`, 100).map((l, i) => (i === 0 ? `  ${l}` : `        ${l}`)));
  return out;
}

function header(data: OpenmpFile): string[] {
  const out: string[] = [];
  for (const f of data.withoutTool) {
    out.push(`NOTE: ${f}: no OpenMP tools interface was active in this process (no OpenMP, a runtime without OMPT such as libgomp, or HYPROF_OPENMP=off): no OpenMP metrics.`);
  }
  return out;
}

const TITLES: Record<string, string> = {
  'tasks-too-fine': 'Tasks too fine-grained',
  'tasks-too-coarse': 'Tasks too coarse',
  'task-creation-bottleneck': 'Task-creation bottleneck',
  'loop-imbalance': 'Load imbalance in a work-shared loop',
  'serial-section': 'Serial section leaves threads idle',
  'lock-contention': 'Lock contention',
  'region-overhead': 'Parallel region overhead (many short regions)',
  'region-imbalance': 'Load imbalance in a parallel region',
};

function findings(a: OpenmpAnalysis, limit: number): string[] {
  if (a.diagnoses.length === 0) return ['Findings: none (hyprof report --diagnose says why each would be raised).', ''];
  const rows = a.diagnoses.slice(0, limit).map((d) => [d.severity, p1(d.score), TITLES[d.kind] ?? d.kind, d.location]);
  const out = ['Findings, strongest first (details: hyprof report --diagnose):'];
  out.push(table(['grade', 'share', 'finding', 'at'], rows.map((r) => [r[0], r[1], r[2].padEnd(Math.max(...rows.map((x) => x[2].length))), r[3]])));
  if (a.diagnoses.length > limit) out.push(`  (${a.diagnoses.length - limit} more)`);
  return [...out, ''];
}

const ACTIVITY: Array<[keyof ActivityTimes, string]> = [
  ['work', 'program code'],
  ['taskwait', 'taskwait'],
  ['barrier', 'barrier wait'],
  ['creation', 'task creation'],
  ['dispatch', 'task dispatch'],
  ['lock', 'lock wait'],
  ['idle', 'idle'],
  ['overhead', 'runtime overhead'],
];

function activityLines(a: OpenmpAnalysis): string[] {
  const total = sampledTotal(a.activity);
  if (a.samples === 0 || total === 0) return [];
  const parts = ACTIVITY.filter(([k]) => a.activity[k] > 0).map(([k, label]) => `${label} ${p1(share(a.activity[k], total))}`);
  return [`Where the threads' time went (${a.samples} samples, ${ms(total)} ms): ${parts.join(', ')}`, ''];
}

/** The heaviest contexts and their ancestors, as an indented tree in path order. */
function contextTree(contexts: OmpContextMetrics[], limit: number): { rows: Array<{ depth: number; m: OmpContextMetrics | null; name: string }>; shown: number } {
  const weight = (m: OmpContextMetrics) => m.work + m.threadIdleness + m.lockBlame + m.overhead;
  const top = [...contexts].sort((x, y) => weight(y) - weight(x)).slice(0, limit);
  const byPath = new Map(contexts.map((m) => [m.path, m]));
  const wanted = new Set<string>();
  for (const m of top) {
    const parts = m.path.split(' => ');
    for (let i = 1; i <= parts.length; i++) wanted.add(parts.slice(0, i).join(' => '));
  }
  const paths = [...wanted].sort((x, y) => {
    const a = x.split(' => '), b = y.split(' => ');
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (a[i] !== b[i]) {
        const wa = byPath.get(a.slice(0, i + 1).join(' => ')), wb = byPath.get(b.slice(0, i + 1).join(' => '));
        return (wb ? weight(wb) : 0) - (wa ? weight(wa) : 0) || a[i].localeCompare(b[i]);
      }
    }
    return a.length - b.length;
  });
  const rows = paths.map((p) => {
    const parts = p.split(' => ');
    return { depth: parts.length - 1, m: top.includes(byPath.get(p)!) ? byPath.get(p)! : null, name: shortName(parts[parts.length - 1]) };
  });
  return { rows, shown: top.length };
}

export function renderOpenmpReport(data: OpenmpFile, opts: { limit?: number } = {}): string {
  const limit = opts.limit ?? 15;
  const out = header(data);
  for (const a of data.processes) {
    out.push(...runtimeLines(a), '');
    out.push(...findings(a, limit));
    out.push(...activityLines(a));
    const t = a.totals;
    const effort = t.work + t.threadIdleness + t.overhead + t.lockBlame;
    out.push(
      'Blame by calling context (HPCToolkit blame shifting): idleness is blamed on the threads working meanwhile, lock',
      'waiting on the context that released the lock; abs = share of the whole effort, rel = share of the context.',
      `  whole program: work ${ms(t.work)} ms, thread idleness ${ms(t.threadIdleness)} ms (${p1(share(t.threadIdleness, effort))}), ` +
        `core idleness ${ms(t.coreIdleness)} ms, runtime overhead ${ms(t.overhead)} ms, lock waiting ${ms(t.lockBlame)} ms`,
    );
    if (a.contexts.length === 0) {
      out.push('  (no samples with OpenMP state: run with sampling on, e.g. HYPROF_SAMPLING=1 or hyprof run)', '');
    } else {
      const tree = contextTree(a.contexts, limit);
      out.push(
        table(
          ['work ms', 'abs work', 'idle ms', 'abs idle', 'rel idle', 'lock ms', 'context'],
          tree.rows.map(({ depth, m, name }) => {
            const label = `${'  '.repeat(depth)}${name}`;
            if (!m) return ['', '', '', '', '', '', label];
            return [ms(m.work), p1(m.absWork), ms(m.threadIdleness), p1(m.absIdleness), p1(m.relIdleness), ms(m.lockBlame), label];
          }),
        ),
      );
      if (a.contexts.length > tree.shown) out.push(`  (${tree.shown} heaviest of ${a.contexts.length} contexts; --limit to see more)`);
      out.push('');
    }
    if (a.lockReleases.length > 0) {
      out.push('Lock waiting blamed on release sites:');
      out.push(table(['wait ms', 'releases', 'released at'], a.lockReleases.slice(0, limit).map((r) => [ms(r.blame), String(r.count), r.location])), '');
    }
    if (a.regions.length > 0) {
      const po = a.programOverheads;
      out.push("Parallel regions: overhead classes (ompP) as shares of the threads' time in the region (forking, running, joining):");
      const row = (count: string, time: number, sync: number, imb: number, lim: number, mgmt: number, label: string) => [
        count, ms(time), p1(share(sync + imb + lim + mgmt, time)), p1(share(sync, time)), p1(share(imb, time)), p1(share(lim, time)), p1(share(mgmt, time)), label,
      ];
      const rows = a.regions.slice(0, limit).map((r) => row(String(r.instances), r.time, r.sync, r.imbalance, r.limitedParallelism, r.threadManagement, shortName(r.name)));
      rows.push(row('', po.time, po.sync, po.imbalance, po.limitedParallelism, po.threadManagement, 'all regions'));
      out.push(table(['instances', 'thread ms', 'overhead', 'sync', 'imbalance', 'lim.par.', 'thr.mgmt', 'region'], rows));
      if (a.regions.length > limit) out.push(`  (${limit} of ${a.regions.length} regions)`);
      out.push('');
    }
    if (a.constructs.length > 0) {
      const threads = [...new Set(a.constructs.flatMap((c) => c.perThread.map((p) => p.thread)))].sort((x, y) => x - y);
      const shownThreads = threads.slice(0, 4);
      const sum = (c: (typeof a.constructs)[number]) => c.perThread.reduce((n, p) => n + p.incl, 0);
      const cons = [...a.constructs].sort((x, y) => sum(y) - sum(x));
      out.push('Constructs, inclusive ms per thread (waits: the wait; Critical / Lock_Held: the body):');
      out.push(
        table(
          ['calls', ...shownThreads.map((n) => `t${n} ms`), ...(threads.length > shownThreads.length ? ['max ms'] : []), 'construct'],
          cons.slice(0, limit).map((c) => {
            const of = (n: number) => c.perThread.find((p) => p.thread === n);
            return [
              String(c.perThread.reduce((n, p) => n + p.calls, 0)),
              ...shownThreads.map((n) => (of(n) ? ms(of(n)!.incl) : '-')),
              ...(threads.length > shownThreads.length ? [ms(Math.max(...c.perThread.map((p) => p.incl)))] : []),
              shortName(c.name),
            ];
          }),
        ),
      );
      if (cons.length > limit) out.push(`  (${limit} of ${cons.length} constructs)`);
      out.push('');
    }
    if (a.tasks.length > 0) {
      out.push(
        `Tasks (time while suspended not charged; the runtime's dispatch gap ${us(a.taskDispatch.perTaskNs)} us per task` +
          `${a.taskDispatch.starvation > 0 ? `, ${ms(a.taskDispatch.starvation)} ms waiting for tasks` : ''}):`,
      );
      out.push(
        table(
          ['created', 'executed', 'median us', 'p90 us', 'max us', 'spawned', 'creators', 'task'],
          a.tasks.slice(0, limit).map((k) => [
            String(k.created),
            String(k.executed),
            us(k.medianNs),
            us(k.p90Ns),
            us(k.maxNs),
            String(k.spawned),
            k.creators.filter((c) => c.created > 0).map((c) => `t${c.thread}:${c.created}`).join(' ') || '-',
            shortName(k.name),
          ]),
        ),
        '',
      );
    }
    if (a.sampledTasks.length > 0) {
      out.push(
        a.level === 'full'
          ? 'Tasks seen by sampling (level full: tasks run without a timer once their construct\'s timer is throttled, docs/throttling.md; the table above counts and times them all), by where their code is:'
          : 'Tasks seen by sampling (level basic: no task events; HYPROF_OPENMP=full counts and times them), by where their code is:',
      );
      out.push(
        table(
          ['code ms', 'creating ms', 'taskwait ms', 'task code'],
          a.sampledTasks.slice(0, limit).map((k) => [ms(k.sampled.work), ms(k.sampled.creation), ms(k.sampled.taskwait), `${k.function} (${k.location})`]),
        ),
        '',
      );
    }
  }
  return `${out.join('\n')}\n`;
}

/** `0-3,5,7-8` */
export function rankList(ranks: number[]): string {
  return ranksInShort(ranks).replaceAll(', ', ',');
}

/**
 * The load of a run of several processes (MPI ranks): per host, ranks × threads against the CPUs
 * available, and how long threads waited to run. Said before any finding: imbalance between ranks
 * that share too few CPUs is the machine's, not the program's.
 */
export function hostLoadLines(data: OpenmpFile): string[] {
  const hosts = new Map<string, OpenmpAnalysis[]>();
  for (const a of data.processes) {
    const h = a.host ?? '';
    const l = hosts.get(h);
    if (l) l.push(a);
    else hosts.set(h, [a]);
  }
  const out: string[] = [];
  for (const [host, procs] of hosts) {
    const cpus = procs.reduce((m, a) => Math.max(m, a.load?.cpus ?? 0), 0);
    const threads = procs.reduce((n, a) => n + Math.max(1, a.maxThreads), 0);
    const waits = procs.map((a) => a.load?.waitShare).filter((w): w is number => typeof w === 'number');
    const over = (cpus > 0 && threads > cpus) || procs.some((a) => a.load?.oversubscribed);
    if (!over) continue;
    const wmin = waits.length ? Math.min(...waits) : null;
    const wmax = waits.length ? Math.max(...waits) : null;
    out.push(
      `LOAD: ${host ? `host ${host}: ` : ''}${procs.length} process${procs.length === 1 ? '' : 'es'} with ${threads} threads in all on ` +
        `${cpus || '?'} CPUs available: oversubscribed` +
        (wmin !== null && wmax !== null
          ? `; their threads waited to run ${(100 * wmin).toFixed(0)}${wmax - wmin >= 0.005 ? `–${(100 * wmax).toFixed(0)}` : ''}% of their time`
          : '') +
        '. Imbalance between them may be the machine\'s, not the program\'s.',
    );
  }
  return out;
}

/** Findings of several processes merged: one per kind, place and construct, with the ranks it holds on. */
function renderOverRanks(data: OpenmpFile): string[] {
  const out = [`OpenMP findings over ${data.processes.length} processes (ranks ${rankList(data.processes.map((a) => a.node ?? 0))}):`];
  for (const l of hostLoadLines(data)) out.push(...wrap(l, 100).map((x, i) => (i === 0 ? `  ${x}` : `        ${x}`)));
  const groups = new Map<string, Array<{ rank: number; d: OpenmpAnalysis['diagnoses'][number] }>>();
  for (const a of data.processes) {
    for (const d of a.diagnoses) {
      const key = `${d.kind}\u0000${d.location}\u0000${d.construct.replace(/ #\d+/, '')}`;
      const g = groups.get(key);
      const item = { rank: a.node ?? 0, d };
      if (g) g.push(item);
      else groups.set(key, [item]);
    }
  }
  if (groups.size === 0) out.push('  No OpenMP performance problem found on any rank.');
  const ordered = [...groups.values()].sort((x, y) => {
    const sx = x.filter((i) => i.d.severity === 'strong').length, sy = y.filter((i) => i.d.severity === 'strong').length;
    return sy - sx || y.length - x.length;
  });
  for (const g of ordered) {
    const d = g[0].d;
    const strong = g.filter((i) => i.d.severity === 'strong').map((i) => i.rank);
    const weak = g.filter((i) => i.d.severity === 'weak').map((i) => i.rank);
    const scores = g.map((i) => i.d.score).sort((a, b) => a - b);
    const median = scores[Math.floor(scores.length / 2)];
    const grade = strong.length >= weak.length ? 'strong' : 'weak';
    out.push(
      '',
      `${TITLES[d.kind] ?? d.kind} at ${d.location} [${grade}] on ${g.length} of ${data.processes.length} ranks`,
      `  ${d.construct.replace(/ #\d+/, '')}`,
      `  ranks: ${strong.length ? `strong on ${rankList(strong)}` : ''}${strong.length && weak.length ? '; ' : ''}${weak.length ? `weak on ${rankList(weak)}` : ''}; ` +
        `share ${p1(scores[0])}${scores.length > 1 ? ` to ${p1(scores[scores.length - 1])}, median ${p1(median)}` : ''}`,
      `  rank ${g[0].rank}: ${d.message}`,
    );
    if (d.evidence) out.push(`  Evidence (rank ${g[0].rank}): ${d.evidence}.`);
  }
  out.push('');
  return out;
}

export function renderDiagnoses(data: OpenmpFile): string {
  const out = header(data);
  if (data.processes.length > 1) return `${[...out, ...renderOverRanks(data)].join('\n')}\n`;
  for (const a of data.processes) {
    out.push(...runtimeLines(a));
    if (a.diagnoses.length === 0) out.push('  No OpenMP performance problem found.');
    for (const d of a.diagnoses) {
      out.push('', `${TITLES[d.kind] ?? d.kind} at ${d.location} [${d.severity}]`, `  ${d.construct}`, `  ${d.message}`);
      if (d.evidence) out.push(`  Evidence: ${d.evidence}.`);
    }
    out.push('');
  }
  return `${out.join('\n')}\n`;
}
