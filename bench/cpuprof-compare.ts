/**
 * The main thread's functions by self time in a `.cpuprofile` and in a hyprof profile, keyed alike
 * (`function file-basename`), and how far the two agree: the top 20 of each, the Spearman rank
 * correlation over the union of both lists (a function missing from one list takes the rank after
 * its last), the agreement of their shares, shown side by side for the top 30; beside them the same
 * figures for --cpu-prof against another round of itself, the floor of what any agreement can show
 * (on a flat profile the ranks of functions of nearly equal share swap from run to run). Used by
 * bench/node-vs-cpuprof.ts; run on its own to compare again after a change to resolve:
 *   node dist/bench/cpuprof-compare.js PROFILE-DIR FILE.cpuprofile [ANOTHER-ROUND.cpuprofile]
 *
 * hyprof's samples are keyed two ways:
 *   - by their leaf, the [SAMPLE] entry the profile charges (what a user of the profile reads);
 *   - by --cpu-prof's rule: V8's profiler charges a tick to the innermost JavaScript frame on the
 *     stack, so native code a JavaScript function called (a V8 runtime function, a node binding,
 *     malloc) is that function's self time, and native code with no JavaScript under it is
 *     `(program)`; the garbage collector is `(garbage collector)` either way. The innermost
 *     JavaScript frame is read from the complete stacks (the stacks file) when the profile has one,
 *     else from the profile's chain of unwound callers, within its unwind depth (10 frames: native
 *     code deeper under JavaScript than that would pass for `(program)`).
 * In both, the main thread waiting in its event loop (the leaf `epoll_wait` / `epoll_pwait`) is
 * `(idle)`, as --cpu-prof names it.
 *
 * Three differences of what each profiler can see are taken out of the second keying, so that it
 * compares like with like (the first keying, by the leaf, is left as each profiler writes it):
 *   - --cpu-prof gives a native function called from JavaScript through V8's API (a node binding
 *     such as `writev`, or the URL parser's `parse`: a node with no script) a node of its own, under
 *     the JavaScript function that called it. By the innermost-JavaScript-frame rule its time is that
 *     caller's, so it is charged to its nearest ancestor with a script (`(program)` when there is none).
 *   - node tells V8's profiler that the thread is idle from libuv's prepare phase to its check phase
 *     (around the poll for I/O), so --cpu-prof counts native code run in the poll without JavaScript
 *     on the stack (a socket read before its callback) as `(idle)`, not `(program)`: so does this
 *     keying, for a stack under `uv__io_poll` with no JavaScript frame.
 *   - --cpu-prof starts once node has created the isolate and its environment, and stops before node
 *     tears them down; hyprof samples the whole process. A hyprof stack that passes through node's
 *     start-up or teardown (OUTSIDE_CPUPROF) is left out of this keying (counted in `outside`).
 *   The last two need the complete stacks: a profile without a stacks file (a bounded unwind depth)
 *   is keyed from its 10-frame chains, which seldom reach libuv's poll or node's start-up, so there
 *   hyprof's side keeps both as they are.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readStacksFiles } from '../src/profile/stacks-file.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';

export type Ranked = Array<[string, number]>;

interface CpuNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export const key = (fn: string, file: string) => (file ? `${fn || '(anonymous)'} ${basename(file)}` : fn || '(anonymous)');

export interface CpuprofSelf {
  /** by the node each sample names */
  leaf: Map<string, number>;
  /** by the innermost JavaScript frame: a native API function's time is its caller's */
  jsFrame: Map<string, number>;
}

/** A node of V8's own (`(garbage collector)`, `(program)`, `(idle)`, `(root)`), not a function. */
const isV8Node = (f: CpuNode['callFrame']) => f.functionName.startsWith('(') && f.url === '';

/** Self time (ms) per function of a .cpuprofile, keyed both ways. */
export function cpuprofSelf(file: string): CpuprofSelf {
  const p = JSON.parse(readFileSync(file, 'utf8')) as { nodes: CpuNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const leaf = new Map<string, number>();
  const jsFrame = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, ms: number) => m.set(k, (m.get(k) ?? 0) + ms);
  // a WebAssembly module by the scheme alone: hyprof cannot name the module (perf-map.ts, WASM_FILE)
  const keyOf = (f: CpuNode['callFrame']) => key(f.functionName, f.url.replace(/^file:\/\//, '').replace(/^wasm:\/\/wasm\/.*/, 'wasm://wasm'));
  p.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(root)') return;
    const ms = (p.timeDeltas[i] ?? 0) / 1000;
    add(leaf, keyOf(f), ms);
    // a native API function (no script, not one of V8's own nodes): its nearest caller with a script
    let at: number | undefined = id;
    while (at !== undefined && byId.get(at)!.callFrame.url === '' && !isV8Node(byId.get(at)!.callFrame)) at = parent.get(at);
    const js = at === undefined ? undefined : byId.get(at)!.callFrame;
    add(jsFrame, !js || js.functionName === '(root)' ? '(program)' : keyOf(js), ms);
  });
  return { leaf, jsFrame };
}

/** Node's start-up (before --cpu-prof starts) and teardown (after it stops), by the frames of a stack. */
const OUTSIDE_CPUPROF =
  /^(node::InitializeOncePerProcess|node::NodeMainInstance::NodeMainInstance|node::NodeMainInstance::~NodeMainInstance|node::TearDownOncePerProcess|node::LoadSnapshotData|node::FreeEnvironment|__run_exit_handlers|__libc_csu_init)/;

export interface HyprofSelf {
  /** by the [SAMPLE] leaf */
  leaf: Map<string, number>;
  /** by the innermost JavaScript frame (--cpu-prof's rule) */
  jsCaller: Map<string, number>;
  unresolved: number;
  total: number;
  threads: number;
  /** ms left out of jsCaller: node's start-up and teardown, which --cpu-prof does not see */
  outside: number;
}

const SAMPLE = /^\[SAMPLE\] (.*?)(?: \[\{(.*)\} \{(\d+)(?:,\d+)?\}\])?$/;
/** `[UNWIND] <callee's location> [@] <caller> [{file} {line}]`: the caller. */
const UNWIND = /^\[UNWIND\] .*? \[@\] (.*?)(?: \[\{(.*)\} \{(\d+)(?:,\d+)?\}\])?$/;
const isIdle = (fn: string) => /^(epoll_pwait|epoll_wait|__GI_epoll_pwait|__GI_epoll_wait)$/.test(fn);
/** A JavaScript function (named from V8's perf map): a script's file, or one of node's own modules. */
const isJsFile = (file: string) => /\.(m|c)?js$/.test(file) || file.startsWith('node:') || file.startsWith('wasm://');

/**
 * The JavaScript workers of a hyprof profile: thread number by Node's `threadId` (the runtime names
 * each worker's thread `worker <threadId>`; `--cpu-prof` puts the same id in each file's name).
 */
export function hyprofWorkers(profDir: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const t of readTauProfileDir(profDir).threads[0]) {
    const m = /^worker (\d+)$/.exec(t.metadata.find(([k]) => k === 'Thread Name')?.[1]?.trim() ?? '');
    if (m) out.set(Number(m[1]), t.thread);
  }
  return out;
}

/** The `.cpuprofile` files of one `--cpu-prof-dir` by Node's threadId (0: the main thread). */
export function cpuprofFilesByThread(dir: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const f of readdirSync(dir)) {
    // CPU.<date>.<time>.<pid>.<threadId>.<sequence>.cpuprofile
    const m = /^CPU\.\d+\.\d+\.\d+\.(\d+)\.\d+\.cpuprofile$/.exec(f);
    if (m) out.set(Number(m[1]), join(dir, f));
  }
  return out;
}

/** Self time (ms) per function of one thread (default thread 0) of a hyprof profile, keyed both ways. */
export function hyprofSelf(profDir: string, thread = 0): HyprofSelf {
  const threads = readTauProfileDir(profDir).threads[0];
  const main = threads.find((t) => t.thread === thread)!;
  const leaf = new Map<string, number>();
  const jsCaller = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, ms: number) => m.set(k, (m.get(k) ?? 0) + ms);
  let unresolved = 0;
  let total = 0;
  for (const e of main.events) {
    // the full paths of the samples: each sample once, with its chain of callers
    if (!e.group.includes('TAU_CALLPATH') || !e.group.includes('TAU_SAMPLE')) continue;
    const parts = e.name.split(' => ').map((p) => p.trim());
    const m = SAMPLE.exec(parts[parts.length - 1]);
    if (!m) continue;
    const ms = e.excl / 1000;
    total += ms;
    if (/UNRESOLVED/.test(m[1])) unresolved += ms;
    const own = isIdle(m[1]) ? '(idle)' : key(m[1], m[2] ?? '');
    add(leaf, own, ms);
    if (own === '(idle)' || m[1].startsWith('(garbage collector)') || isJsFile(m[2] ?? '')) {
      add(jsCaller, own, ms);
      continue;
    }
    let caller = '(program)';
    for (let i = parts.length - 2; i >= 0; i--) {
      const u = UNWIND.exec(parts[i]);
      if (u && isJsFile(u[2] ?? '')) {
        caller = key(u[1], u[2]);
        break;
      }
    }
    add(jsCaller, caller, ms);
  }
  const fromStacks = stacksJsCaller(profDir, thread);
  return { leaf, jsCaller: fromStacks?.out ?? jsCaller, unresolved, total, threads: threads.length, outside: fromStacks?.outside ?? 0 };
}

/** Self time (ms) of one thread by the innermost JavaScript frame of each complete stack, without
 * the stacks of node's start-up and teardown (their time in `outside`); undefined when the profile
 * has no stacks file. */
function stacksJsCaller(profDir: string, thread: number): { out: Map<string, number>; outside: number } | undefined {
  const file = readStacksFiles(profDir)[0];
  const t = file?.threads.find((x) => x.thread === thread);
  if (!file || !t) return undefined;
  const time = file.metrics.indexOf('TIME');
  const out = new Map<string, number>();
  let outside = 0;
  t.samples.forEach((n, i) => {
    if (!n) return;
    const ms = (t.values[time >= 0 ? time : 0][i] ?? 0) / 1000;
    let beyond = false;
    for (let at: number = i; at >= 0 && !beyond; at = t.parent[at]) beyond = OUTSIDE_CPUPROF.test(file.frames[t.frame[at]][0]);
    if (beyond) {
      outside += ms;
      return;
    }
    const [fn, srcFile] = file.frames[t.frame[i]];
    let k: string;
    if (isIdle(fn)) k = '(idle)';
    else if (fn.startsWith('(garbage collector)') || isJsFile(srcFile)) k = key(fn, srcFile);
    else {
      k = '(program)';
      let polling = false;
      for (let at = t.parent[i]; at >= 0; at = t.parent[at]) {
        const [f, src] = file.frames[t.frame[at]];
        if (isJsFile(src)) {
          k = key(f, src);
          break;
        }
        polling ||= f.startsWith('uv__io_poll');
      }
      if (k === '(program)' && polling) k = '(idle)';
    }
    out.set(k, (out.get(k) ?? 0) + ms);
  });
  return { out, outside };
}

export const top = (m: Map<string, number>, n = 20): Ranked => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);

export function spearman(a: Ranked, b: Ranked): number {
  const keys = [...new Set([...a.map((x) => x[0]), ...b.map((x) => x[0])])];
  const rank = (l: Ranked, k: string) => {
    const i = l.findIndex((x) => x[0] === k);
    return i >= 0 ? i + 1 : l.length + 1;
  };
  const ra = keys.map((k) => rank(a, k));
  const rb = keys.map((k) => rank(b, k));
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ma = mean(ra);
  const mb = mean(rb);
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < keys.length; i++) {
    num += (ra[i] - ma) * (rb[i] - mb);
    da += (ra[i] - ma) ** 2;
    db += (rb[i] - mb) ** 2;
  }
  return num / Math.sqrt(da * db);
}

/** Each key's share (%) of its map's total. */
function shares(m: Map<string, number>): Map<string, number> {
  const total = [...m.values()].reduce((a, x) => a + x, 0);
  return new Map([...m].map(([k, v]) => [k, (100 * v) / total]));
}

/**
 * How far the shares of two lists' top 20 agree, over the union of both top-20 lists (each key's
 * share in the whole of each map, 0 where absent): the Pearson correlation of the shares and the
 * mean and largest absolute difference in points. Less sensitive than ranks to swaps between
 * functions of nearly equal share, which a flat profile is full of.
 */
export function shareAgreement(a: Map<string, number>, b: Map<string, number>): { r: number; meanDiff: number; maxDiff: number; maxKey: string } {
  const [sa, sb] = [shares(a), shares(b)];
  const keys = [...new Set([...top(a).map((x) => x[0]), ...top(b).map((x) => x[0])])];
  const xa = keys.map((k) => sa.get(k) ?? 0);
  const xb = keys.map((k) => sb.get(k) ?? 0);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const [ma, mb] = [mean(xa), mean(xb)];
  let num = 0;
  let da = 0;
  let db = 0;
  let maxDiff = 0;
  let maxKey = '';
  keys.forEach((k, i) => {
    num += (xa[i] - ma) * (xb[i] - mb);
    da += (xa[i] - ma) ** 2;
    db += (xb[i] - mb) ** 2;
    const d = Math.abs(xa[i] - xb[i]);
    if (d > maxDiff) [maxDiff, maxKey] = [d, k];
  });
  return { r: num / Math.sqrt(da * db), meanDiff: mean(keys.map((_, i) => Math.abs(xa[i] - xb[i]))), maxDiff, maxKey };
}

/** Self-time maps added up (several rounds of one profiler). */
export function sumMaps(ms: Array<Map<string, number>>): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of ms) for (const [k, v] of m) out.set(k, (out.get(k) ?? 0) + v);
  return out;
}

export function sumHyprof(hs: HyprofSelf[]): HyprofSelf {
  return {
    leaf: sumMaps(hs.map((h) => h.leaf)),
    jsCaller: sumMaps(hs.map((h) => h.jsCaller)),
    unresolved: hs.reduce((a, h) => a + h.unresolved, 0),
    total: hs.reduce((a, h) => a + h.total, 0),
    threads: Math.max(...hs.map((h) => h.threads)),
    outside: hs.reduce((a, h) => a + h.outside, 0),
  };
}

/** .cpuprofile self-time maps added up (several rounds). */
export function sumCpuprof(cs: CpuprofSelf[]): CpuprofSelf {
  return { leaf: sumMaps(cs.map((c) => c.leaf)), jsFrame: sumMaps(cs.map((c) => c.jsFrame)) };
}

const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);

/** One line: rank correlation of the top 20 and the agreement of their shares. */
export function agreementLine(label: string, a: Map<string, number>, b: Map<string, number>): string {
  const s = shareAgreement(a, b);
  return `| ${label} | ${f2(spearman(top(a), top(b)))} | ${f2(s.r)} | ${f2(s.meanDiff)} | ${f2(s.maxDiff)} (${s.maxKey}) |`;
}

/** The agreement lines of hyprof against --cpu-prof, each keying against --cpu-prof keyed alike. */
export function agreementLines(c: CpuprofSelf, h: HyprofSelf, prefix = ''): string[] {
  return [
    agreementLine(`${prefix}hyprof, by the sample's leaf`, c.leaf, h.leaf),
    agreementLine(`${prefix}hyprof, by the innermost JavaScript frame`, c.jsFrame, h.jsCaller),
  ];
}

/** --cpu-prof against itself (rounds a against rounds b), each keying: the floors. */
export function floorLines(a: CpuprofSelf, b: CpuprofSelf, what: string, prefix = ''): string[] {
  return [
    agreementLine(`${prefix}--cpu-prof, ${what} (the floor)`, a.leaf, b.leaf),
    agreementLine(`${prefix}--cpu-prof by the innermost JavaScript frame, ${what} (its floor)`, a.jsFrame, b.jsFrame),
  ];
}

export const AGREEMENT_HEAD = ['| --cpu-prof against | rank correlation, top 20 | share correlation | mean share difference, points | largest |', '|---|---|---|---|---|'];

/**
 * The comparison as markdown: the agreement of --cpu-prof with hyprof by each keying, and (the
 * floor: how far --cpu-prof agrees with itself) with another round of --cpu-prof when given; then
 * the top 30 side by side.
 */
export function comparison(c: CpuprofSelf, h: HyprofSelf, cOther?: CpuprofSelf): string {
  const cTotal = [...c.leaf.values()].reduce((a, x) => a + x, 0);
  const out: string[] = [];
  out.push(
    `main thread: hyprof ${h.total.toFixed(0)} ms sampled, unresolved ${f1((100 * h.unresolved) / h.total)} %, ` +
      `${h.outside.toFixed(0)} ms in node's start-up and teardown (outside --cpu-prof's run); cpuprofile ${cTotal.toFixed(0)} ms`,
  );
  out.push('', ...AGREEMENT_HEAD, ...agreementLines(c, h));
  if (cOther) out.push(...floorLines(c, cOther, 'another round'));
  out.push('', '| # | --cpu-prof | % | hyprof, leaf | % | --cpu-prof, innermost JavaScript frame | % | hyprof, innermost JavaScript frame | % |', '|---|---|---|---|---|---|---|---|---|');
  const jTotal = [...h.jsCaller.values()].reduce((a, x) => a + x, 0);
  const [ct, hl, cj, hj] = [top(c.leaf, 30), top(h.leaf, 30), top(c.jsFrame, 30), top(h.jsCaller, 30)];
  const cell = (r: [string, number] | undefined, total: number) => (r ? `${r[0]} | ${f1((100 * r[1]) / total)}` : ' | ');
  for (let i = 0; i < 30; i++) out.push(`| ${i + 1} | ${cell(ct[i], cTotal)} | ${cell(hl[i], h.total)} | ${cell(cj[i], cTotal)} | ${cell(hj[i], jTotal)} |`);
  return out.join('\n');
}


if (process.argv[1] && /cpuprof-compare\.js$/.test(process.argv[1])) {
  const [profDir, cpuprofile, other] = process.argv.slice(2);
  if (!profDir || !cpuprofile) {
    console.error('usage: node dist/bench/cpuprof-compare.js PROFILE-DIR FILE.cpuprofile [ANOTHER.cpuprofile]');
    process.exit(2);
  }
  console.log(comparison(cpuprofSelf(cpuprofile), hyprofSelf(profDir), other ? cpuprofSelf(other) : undefined));
}
