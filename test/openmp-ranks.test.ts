/**
 * `hyprof report --diagnose` on a run of several processes (MPI ranks): one finding per kind, place
 * and construct with the ranks it holds on and the spread of its share, and the hosts' load said
 * before any finding (ranks × threads against the CPUs available).
 */
import test from 'ava';
import type { OmpDiagnosis, OpenmpAnalysis } from '../src/analysis/openmp-model.js';
import type { OpenmpFile } from '../src/analysis/openmp.js';
import { emptyTimes } from '../src/analysis/openmp-samples.js';
import { hostLoadLines, rankList, renderDiagnoses } from '../src/report/report-openmp.js';

function rank(node: number, diagnoses: OmpDiagnosis[], opts: { host?: string; cpus?: number; wait?: number } = {}): OpenmpAnalysis {
  const wait = opts.wait ?? 0.02;
  return {
    file: `r${node}.raw`, node, host: opts.host ?? 'h1', runtime: 'libomp', level: 'basic', substituted: null, cores: 2, maxThreads: 2,
    totals: { work: 0, idle: 0, overhead: 0, lockWait: 0, threadIdleness: 0, coreIdleness: 0, lockBlame: 0 },
    contexts: [], regions: [], constructs: [], tasks: [], sampledTasks: [], lockReleases: [], diagnoses,
    programOverheads: { time: 0, exec: 0, sync: 0, imbalance: 0, limitedParallelism: 0, threadManagement: 0 },
    activity: emptyTimes(), activityPerThread: [], activityCounts: emptyTimes(), activityCountsPerThread: [], samples: 0,
    creationSites: [], taskDispatch: { perTaskNs: 0, tasks: 0, starvation: 0 }, lost: 0,
    load: { cpus: opts.cpus ?? 16, threads: 2, waitShare: wait, source: 'schedstat', oversubscribed: wait >= 0.2 },
  };
}
const finding = (score: number, severity: 'strong' | 'weak', construct = 'OpenMP_Work_Loop main [{a.c} {12, 0}]'): OmpDiagnosis => ({
  kind: 'loop-imbalance', severity, score, location: 'a.c:12', construct, evidence: 'from 100 loop instances over 2 threads', message: 'load imbalance: ...',
});

test('rank lists are compact ranges', (t) => {
  t.is(rankList([0, 1, 2, 3, 5, 7, 8]), '0-3,5,7-8');
  t.is(rankList([4]), '4');
  t.is(rankList([2, 1, 1]), '1-2');
});

test('one finding over ranks: the ranks it holds on, its grade per rank, the spread of its share', (t) => {
  const data: OpenmpFile = {
    withoutTool: [],
    processes: [rank(0, [finding(40, 'strong')]), rank(1, [finding(30, 'strong')]), rank(2, [finding(12, 'weak', 'OpenMP_Work_Loop main [{a.c} {12, 0}] #9')]), rank(3, [])],
  };
  const text = renderDiagnoses(data);
  t.is(text.match(/Load imbalance in a work-shared loop at a\.c:12/g)?.length, 1, text);
  t.regex(text, /\[strong\] on 3 of 4 ranks/);
  t.regex(text, /ranks: strong on 0-1; weak on 2; share 12\.0% to 40\.0%, median 30\.0%/);
  t.notRegex(text, /LOAD:/, 'not oversubscribed: 8 threads on 16 CPUs');
});

test('ranks sharing too few CPUs: the load is said first, before any finding', (t) => {
  const procs = [0, 1, 2, 3].map((n) => rank(n, [finding(35, 'strong')], { cpus: 2, wait: 0.5 + n * 0.05 }));
  const lines = hostLoadLines({ withoutTool: [], processes: procs });
  t.deepEqual(lines.length, 1);
  t.regex(lines[0], /^LOAD: host h1: 4 processes with 8 threads in all on 2 CPUs available: oversubscribed; their threads waited to run 50–65% of their time/);
  const text = renderDiagnoses({ withoutTool: [], processes: procs });
  t.true(text.indexOf('LOAD:') < text.indexOf('Load imbalance'), text);
});
