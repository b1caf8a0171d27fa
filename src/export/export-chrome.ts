/**
 * `hyprof export DIR --format chrome`: the run's trace (DIR/traces.otf2) in Chrome's trace event
 * format (JSON object form), which chrome://tracing, Perfetto's UI and speedscope open. Times are the
 * trace's own, in microseconds of the run's clock (the OTF2 timestamps / 1000, the clock's offset
 * kept): nothing is invented, which is why a directory without a trace is refused.
 *
 *  - pid: the MPI rank (the process's index among the archive's processes when it is not MPI), named
 *    by a process_name metadata event; tid: the thread number (`thread <T>`), named by thread_name;
 *    a GPU stream's lane (docs/gpu.md) 1,000,000 + its lane index, after the host threads.
 *  - every region instance: a complete event ("X", ts and dur), category = its TAU group, args =
 *    the parameters of a parameter specialisation (`param:<name>` attributes);
 *  - every matched message: a flow ("s" at the send, "f" with binding point "e" at the receive, one
 *    id per message), category MPI, args tag and bytes;
 *  - every task that was suspended: a flow from the end of each piece to the start of the next;
 *  - samples: instant events ("i", thread scope) named by the sampled function, args its chain.
 * Written in pieces, lane by lane.
 */
import { regionName, type Lane, type TraceModel } from '../trace/trace-model.js';

/** µs text of a trace time (ns after the clock's offset): whole ns kept as three decimals. */
function us(model: TraceModel, t: number): string {
  const ns = Math.round(t) + model.defs.clock.offset;
  return (ns / 1000).toFixed(3);
}
function dur(d: number): string {
  return (Math.max(0, d) / 1000).toFixed(3);
}

/** pid per lane: the rank, else the process's index among the processes. */
function pids(model: TraceModel): number[] {
  const procIndex = new Map<string, number>();
  return model.lanes.map((l) => {
    if (l.rank >= 0) return l.rank;
    let p = procIndex.get(l.process);
    if (p === undefined) procIndex.set(l.process, (p = procIndex.size));
    return p;
  });
}
function tid(lane: Lane): number {
  // A GPU stream's lane after every host thread of its process (Chrome orders threads by tid).
  if (lane.gpu) return 1_000_000 + lane.index;
  const m = /^thread (\d+)/.exec(lane.thread);
  return m ? +m[1] : lane.index;
}

/** The sample's chain of function names, leaf first (calling contexts, docs/trace.md). */
export function sampleChain(model: TraceModel, context: number): string[] {
  const out: string[] = [];
  for (let c = context, guard = 0; c >= 0 && guard < 1000; guard++) {
    const cc = model.defs.callingContexts.get(c);
    if (!cc) break;
    const scl = model.defs.sourceCodeLocations.get(cc.scl);
    out.push(regionName(model, cc.region) + (scl ? ` [{${scl.file}} {${scl.line}}]` : ''));
    c = cc.parent;
  }
  return out;
}

export function* chromePieces(model: TraceModel, version: string): Generator<string> {
  const pid = pids(model);
  yield `{"displayTimeUnit":"ns","otherData":${JSON.stringify({
    producer: `hyprof ${version}`,
    source: model.anchor,
    clock: 'the run clock (CLOCK_MONOTONIC scale), microseconds',
    unmatchedSends: model.unmatched.sends,
    unmatchedReceives: model.unmatched.receives,
  })},"traceEvents":[\n`;
  let sep = '';
  const out = (o: string): string => {
    const s = sep + o;
    sep = ',\n';
    return s;
  };
  const named = new Set<number>();
  for (const lane of model.lanes) {
    const p = pid[lane.index];
    if (!named.has(p)) {
      named.add(p);
      yield out(JSON.stringify({ name: 'process_name', ph: 'M', pid: p, tid: 0, args: { name: lane.process } }));
      yield out(JSON.stringify({ name: 'process_sort_index', ph: 'M', pid: p, tid: 0, args: { sort_index: p } }));
    }
    yield out(JSON.stringify({ name: 'thread_name', ph: 'M', pid: p, tid: tid(lane), args: { name: lane.thread } }));
  }
  const groupOf = (r: number): string => model.defs.regions.get(r)?.group || 'region';
  const nameCache = new Map<number, string>();
  const jsonName = (r: number): string => {
    let s = nameCache.get(r);
    if (s === undefined) nameCache.set(r, (s = `"name":${JSON.stringify(regionName(model, r))},"cat":${JSON.stringify(groupOf(r))}`));
    return s;
  };
  for (const lane of model.lanes) {
    const head = `"pid":${pid[lane.index]},"tid":${tid(lane)}`;
    let chunk = '';
    for (let k = 0; k < lane.count; k++) {
      const at = lane.attrs.get(k);
      const args = at ? `,"args":${JSON.stringify(at)}` : '';
      chunk += out(`{${jsonName(lane.region[k])},"ph":"X","ts":${us(model, lane.start[k])},"dur":${dur(lane.end[k] - lane.start[k])},${head}${args}}`);
      if (chunk.length > 1 << 16) {
        yield chunk;
        chunk = '';
      }
    }
    for (let s = 0; s < lane.sampleTime.length; s++) {
      const chain = sampleChain(model, lane.sampleContext[s]);
      chunk += out(
        `{"name":${JSON.stringify(chain[0] ?? 'sample')},"cat":"sample","ph":"i","s":"t","ts":${us(model, lane.sampleTime[s])},${head},"args":${JSON.stringify({ chain })}}`,
      );
      if (chunk.length > 1 << 16) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }
  let id = 1;
  const at = (ref: { lane: number }): string => `"pid":${pid[ref.lane]},"tid":${tid(model.lanes[ref.lane])}`;
  let chunk = '';
  for (const m of model.messages) {
    const args = `"args":{"tag":${m.tag},"bytes":${m.bytes}}`;
    chunk += out(`{"name":"message","cat":"MPI","ph":"s","id":${id},"ts":${us(model, m.send.time)},${at(m.send)},${args}}`);
    chunk += out(`{"name":"message","cat":"MPI","ph":"f","bp":"e","id":${id},"ts":${us(model, m.recv.time)},${at(m.recv)},${args}}`);
    id++;
    if (chunk.length > 1 << 16) {
      yield chunk;
      chunk = '';
    }
  }
  for (const task of model.tasks) {
    if (task.pieces.length < 2) continue;
    const ps = task.pieces.map((p) => model.pieces[p]);
    const name = JSON.stringify(`task ${task.key} resumed`);
    for (let i = 1; i < ps.length; i++) {
      // The flow starts inside the piece before (its last µs) and binds to the slice enclosing the resume.
      chunk += out(`{"name":${name},"cat":"task","ph":"s","id":${id},"ts":${us(model, Math.max(ps[i - 1].start, ps[i - 1].end - 1))},${at(ps[i - 1])}}`);
      chunk += out(`{"name":${name},"cat":"task","ph":"f","bp":"e","id":${id},"ts":${us(model, ps[i].start + 1)},${at(ps[i])}}`);
      id++;
    }
  }
  if (chunk) yield chunk;
  yield '\n]}\n';
}
