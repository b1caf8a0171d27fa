/**
 * The timeline of the run's trace: one lane per thread, grouped by process (rank), each region a bar
 * at its depth in the flame graph's colours, drawn on one canvas (no DOM node per event). The server
 * answers each view at the canvas's width, merging what is below a pixel (src/view/trace-api.ts), so
 * the page holds only what it shows. Wheel zooms around the pointer, drag pans, shift+drag selects an
 * interval whose profile (flat table and flame graph) shows below. Message lines go from sender to
 * receiver, collectives join their members' calls, dashed lines link a task's suspension to its
 * resumption, green ticks mark samples. Hover names the region, its duration and parameters.
 */
import { el, fmt, getJson } from './api.js';
import { showError } from './state.js';

interface LaneInfo {
  index: number;
  label: string;
  process: string;
  rank: number;
  thread: string;
  depth: number;
}
export interface TraceSummary {
  none?: string | null;
  anchor: string;
  first: number;
  last: number;
  lanes: LaneInfo[];
  regions: Record<string, { name: string; group: string }>;
  messages: number;
  collectives: number;
  notes: string[];
}
interface RangeAnswer {
  t0: number;
  t1: number;
  lanes: Array<{ index: number; blocks: number[]; samples: number[] }>;
  messages: Array<[number, number, number, number, number, number]>;
  messageTotal: number;
  collectives: Array<{ op: number; region: number; members: Array<[number, number, number]> }>;
  suspensions: Array<[number, number, number, number]>;
}
interface Hit {
  none?: boolean;
  lane: string;
  name: string;
  group: string;
  start: number;
  end: number;
  duration: number;
  params?: Record<string, string | number>;
  sample?: string[];
}
interface Findings {
  waitStates: Array<{ kind: string; call: string; caller: string; rank: number; lane: string; time: number; count: number; max: number; maxAt: number }>;
  taskProblems: Array<{ kind: string; from: number; to: number; where: string; why: string }>;
  phases: Array<{ phase: string; instances: number; median: number; slowest: { name: string; lane: string; start: number; duration: number } }>;
}
interface ProfileRow {
  name: string;
  calls: number;
  excl: number;
  incl: number;
}
interface FlameNode {
  name: string;
  value: number;
  self: number;
  calls: number;
  children: FlameNode[];
}

/** An element with attributes and children (text or nodes). */
function mk<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...kids: Array<Node | string>): HTMLElementTagNameMap[K] {
  const e = el(tag, attrs);
  e.append(...kids);
  return e;
}

const ROW = 15;
const SAMPLE_STRIP = 4;
const LABEL_W = 150;
const GROUP_GAP = 6;

/** The flame graph's colour of a timer (web/src/flame.ts): hue by a hash of the name. */
export function regionColour(name: string): string {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  const jitter = (h % 1000) / 1000;
  return `hsl(${20 + 30 * jitter}, 80%, ${60}%)`;
}

/** Nanoseconds as a short duration. */
export function dur(ns: number): string {
  if (ns >= 1e9) return `${fmt(ns / 1e9)} s`;
  if (ns >= 1e6) return `${fmt(ns / 1e6)} ms`;
  if (ns >= 1e3) return `${fmt(ns / 1e3)} µs`;
  return `${fmt(ns)} ns`;
}

let summary: TraceSummary | null = null;

/** The trace summary, or null when the run has none (the Timeline tab is then not offered). */
export async function traceSummary(): Promise<TraceSummary | null> {
  const s = await getJson<TraceSummary>('/api/trace/summary');
  summary = s.lanes ? s : null;
  return summary;
}

export async function renderTimeline(root: HTMLElement): Promise<void> {
  if (root.dataset.built === '1') return;
  const s = summary ?? (await traceSummary());
  if (!s) {
    root.replaceChildren(mk('p', { class: 'muted' }, 'This run has no trace.'));
    return;
  }
  root.dataset.built = '1';
  const info = mk('div', { class: 'controls muted', id: 'timeline-info' });
  const whole = mk('button', { id: 'timeline-whole' }, 'Whole run');
  const hint = mk('span', { class: 'muted' }, 'wheel: zoom · drag: pan · shift+drag: select an interval');
  const notes = mk('div', { class: 'muted' }, s.notes.join(' '));
  const wrap = mk('div', { class: 'timeline-wrap' });
  const canvas = document.createElement('canvas');
  canvas.id = 'timeline';
  const tip = mk('div', { class: 'timeline-tip', id: 'timeline-tip', hidden: '' });
  wrap.append(canvas, tip);
  const selection = mk('section', { id: 'timeline-selection' });
  const findings = mk('details', { id: 'timeline-findings', class: 'findings' }, mk('summary', {}, 'What the trace finds (click one to see it)'));
  root.replaceChildren(mk('div', { class: 'controls' }, whole, info, hint), notes, findings, wrap, selection);

  // Lane layout: grouped by process, in the order of the lanes (ranks, then their threads).
  const order = [...s.lanes].sort((a, b) => (a.rank >= 0 && b.rank >= 0 ? a.rank - b.rank : a.process.localeCompare(b.process)) || a.index - b.index);
  const laneY = new Map<number, number>();
  const laneH = new Map<number, number>();
  let y = 18;
  let lastProcess = '';
  for (const l of order) {
    if (l.process !== lastProcess && lastProcess) y += GROUP_GAP;
    lastProcess = l.process;
    laneY.set(l.index, y);
    const h = Math.max(1, l.depth) * ROW + SAMPLE_STRIP + 2;
    laneH.set(l.index, h);
    y += h;
  }
  const height = y + 4;
  const view = { t0: s.first, t1: s.last };
  let data: RangeAnswer | null = null;
  let sel: [number, number] | null = null;
  const dpr = window.devicePixelRatio || 1;
  let width = 0;
  const plotW = (): number => Math.max(50, width - LABEL_W);
  const X = (t: number): number => LABEL_W + ((t - view.t0) / (view.t1 - view.t0)) * plotW();
  const T = (x: number): number => view.t0 + ((x - LABEL_W) / plotW()) * (view.t1 - view.t0);

  const resize = (): void => {
    width = Math.max(400, wrap.clientWidth || root.clientWidth || 1000);
    canvas.width = Math.floor(width * dpr);
    canvas.height = Math.floor(height * dpr);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  };

  const draw = (): void => {
    const g = canvas.getContext('2d')!;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'middle';
    // Time axis.
    g.fillStyle = '#555';
    const span = view.t1 - view.t0;
    const step = 10 ** Math.floor(Math.log10(span / 5));
    const tick = span / step > 25 ? step * 5 : span / step > 10 ? step * 2 : step;
    for (let t = Math.ceil((view.t0 - s.first) / tick) * tick + s.first; t <= view.t1; t += tick) {
      const x = X(t);
      g.fillRect(x, 12, 1, 5);
      g.fillText(dur(t - s.first), x + 2, 7);
    }
    let blocks = 0;
    let samples = 0;
    g.save();
    g.beginPath();
    g.rect(LABEL_W, 0, plotW(), height);
    g.clip();
    for (const lane of data?.lanes ?? []) {
      const y0 = laneY.get(lane.index)!;
      const b = lane.blocks;
      for (let i = 0; i < b.length; i += 6) {
        const [depth, start, end, region, fill] = [b[i], b[i + 1], b[i + 2], b[i + 3], b[i + 4]];
        if (end < view.t0 || start > view.t1) continue;
        const x0 = Math.max(LABEL_W - 1, X(start));
        const x1 = Math.min(width + 1, X(end));
        const name = s.regions[region]?.name ?? `region ${region}`;
        g.globalAlpha = fill >= 1 ? 1 : 0.35 + 0.6 * fill;
        g.fillStyle = regionColour(name);
        g.fillRect(x0, y0 + depth * ROW, Math.max(1, x1 - x0), ROW - 1);
        blocks++;
        if (x1 - x0 > 40) {
          g.globalAlpha = 1;
          g.fillStyle = '#1d2330';
          // Cut, not squeezed, to the bar's width (about 6 px per character at 11 px).
          const room = Math.floor((x1 - x0 - 6) / 6);
          g.fillText(name.length > room ? `${name.slice(0, Math.max(1, room - 1))}…` : name, x0 + 3, y0 + depth * ROW + ROW / 2);
        }
      }
      g.globalAlpha = 1;
      g.fillStyle = '#1d7a3a';
      const sy = y0 + (laneH.get(lane.index)! - SAMPLE_STRIP - 2);
      for (const t of lane.samples) {
        g.fillRect(X(t), sy, 1, SAMPLE_STRIP);
        samples++;
      }
    }
    const mid = (lane: number): number => laneY.get(lane)! + ROW / 2;
    // Collectives: the members' calls joined at their enters.
    g.strokeStyle = 'rgba(110, 40, 160, 0.7)';
    g.lineWidth = 1.5;
    for (const c of data?.collectives ?? []) {
      const pts = c.members.map(([lane, enter]) => [X(enter), mid(lane)] as const).sort((a, b) => a[1] - b[1]);
      g.beginPath();
      pts.forEach(([x, yy], i) => (i ? g.lineTo(x, yy) : g.moveTo(x, yy)));
      g.stroke();
    }
    // Messages: sender → receiver.
    g.strokeStyle = '#111';
    g.fillStyle = '#111';
    g.lineWidth = 1;
    // Many lines in one view are drawn lighter, so the lanes under them still read.
    g.globalAlpha = (data?.messages.length ?? 0) > 200 ? 0.35 : 1;
    let messages = 0;
    for (const [sl, st, rl, rt] of data?.messages ?? []) {
      const x0 = X(st);
      const y0 = mid(sl);
      const x1 = X(rt);
      const y1 = mid(rl);
      g.beginPath();
      g.moveTo(x0, y0);
      g.lineTo(x1, y1);
      g.stroke();
      const a = Math.atan2(y1 - y0, x1 - x0);
      g.beginPath();
      g.moveTo(x1, y1);
      g.lineTo(x1 - 6 * Math.cos(a - 0.4), y1 - 6 * Math.sin(a - 0.4));
      g.lineTo(x1 - 6 * Math.cos(a + 0.4), y1 - 6 * Math.sin(a + 0.4));
      g.fill();
      messages++;
    }
    g.globalAlpha = 1;
    // Task suspensions: from the piece before to the resumed piece.
    g.setLineDash([4, 3]);
    g.strokeStyle = '#3a6ea5';
    for (const [al, at, bl, bt] of data?.suspensions ?? []) {
      g.beginPath();
      g.moveTo(X(at), mid(al) + ROW / 2);
      g.lineTo(X(bt), mid(bl) + ROW / 2);
      g.stroke();
    }
    g.setLineDash([]);
    if (sel) {
      g.fillStyle = 'rgba(40, 100, 220, 0.18)';
      g.fillRect(X(sel[0]), 0, X(sel[1]) - X(sel[0]), height);
    }
    g.restore();
    // Lane labels.
    g.fillStyle = '#fbfbfd';
    g.fillRect(0, 0, LABEL_W - 2, height);
    g.fillStyle = '#1d2330';
    for (const l of order) g.fillText(l.label, 4, laneY.get(l.index)! + ROW / 2, LABEL_W - 8);
    canvas.dataset.t0 = String(view.t0);
    canvas.dataset.t1 = String(view.t1);
    canvas.dataset.blocks = String(blocks);
    canvas.dataset.messages = String(messages);
    canvas.dataset.collectives = String(data?.collectives.length ?? 0);
    canvas.dataset.suspensions = String(data?.suspensions.length ?? 0);
    canvas.dataset.samples = String(samples);
    info.textContent = `${dur(view.t0 - s.first)} – ${dur(view.t1 - s.first)} (${dur(view.t1 - view.t0)} shown of ${dur(s.last - s.first)}); ${
      data ? `${data.messageTotal} messages in view` : ''
    }`;
  };

  // One request at a time; a view changed meanwhile is asked for when the answer comes.
  let inFlight = false;
  let wanted = false;
  const fetchRange = async (): Promise<void> => {
    if (inFlight) {
      wanted = true;
      return;
    }
    inFlight = true;
    document.body.dataset.ready = '0';
    try {
      const want = { ...view };
      data = await getJson<RangeAnswer>('/api/trace/range', { t0: want.t0, t1: want.t1, px: Math.round(plotW()) });
      canvas.dataset.answered = `${want.t0},${want.t1}`;
    } catch (e) {
      showError(e);
    } finally {
      inFlight = false;
      draw();
      if (wanted) {
        wanted = false;
        void fetchRange();
      } else document.body.dataset.ready = '1';
    }
  };
  const setView = (t0: number, t1: number): void => {
    const minSpan = 1000; // 1 µs across the plot
    if (t1 - t0 < minSpan) {
      const c = (t0 + t1) / 2;
      t0 = c - minSpan / 2;
      t1 = c + minSpan / 2;
    }
    view.t0 = t0;
    view.t1 = t1;
    draw();
    void fetchRange();
  };

  canvas.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      const t = T(e.offsetX);
      const k = Math.exp(e.deltaY * 0.002);
      setView(t - (t - view.t0) * k, t + (view.t1 - t) * k);
    },
    { passive: false },
  );
  let drag: { x: number; t0: number; t1: number; select: boolean } | null = null;
  canvas.addEventListener('mousedown', (e) => {
    drag = { x: e.offsetX, t0: view.t0, t1: view.t1, select: e.shiftKey };
  });
  window.addEventListener('mousemove', (e) => {
    if (!drag) return;
    const x = e.clientX - canvas.getBoundingClientRect().left;
    if (drag.select) {
      const a = T(drag.x);
      const b = T(x);
      sel = [Math.min(a, b), Math.max(a, b)];
      draw();
    } else {
      const dt = ((x - drag.x) / plotW()) * (drag.t1 - drag.t0);
      setView(drag.t0 - dt, drag.t1 - dt);
    }
  });
  window.addEventListener('mouseup', () => {
    const d = drag;
    drag = null;
    if (d?.select && sel && sel[1] > sel[0]) void showSelection(selection, sel[0], sel[1], s);
  });
  whole.onclick = () => setView(s.first, s.last);

  let hoverTimer: ReturnType<typeof setTimeout> | undefined;
  canvas.addEventListener('mousemove', (e) => {
    if (drag) return;
    clearTimeout(hoverTimer);
    const x = e.offsetX;
    const yy = e.offsetY;
    hoverTimer = setTimeout(() => void hover(x, yy), 60);
  });
  canvas.addEventListener('mouseleave', () => (tip.hidden = true));
  const hover = async (x: number, yy: number): Promise<void> => {
    const lane = order.find((l) => yy >= laneY.get(l.index)! && yy < laneY.get(l.index)! + laneH.get(l.index)!);
    if (!lane || x < LABEL_W) {
      tip.hidden = true;
      return;
    }
    const depth = Math.floor((yy - laneY.get(lane.index)!) / ROW);
    const hit = await getJson<Hit>('/api/trace/at', { lane: lane.index, t: T(x), depth: Math.min(depth, lane.depth - 1) });
    if (hit.none) {
      tip.hidden = true;
      return;
    }
    const params = hit.params ? Object.entries(hit.params).map(([k, v]) => `${k.replace(/^param:/, '')} = ${v}`) : [];
    tip.replaceChildren(
      mk('b', {}, hit.name),
      mk('div', {}, `${dur(hit.duration)} from ${dur(hit.start - s.first)} · ${hit.lane}${hit.group ? ` · ${hit.group}` : ''}`),
      ...params.map((p) => mk('div', { class: 'param' }, p)),
      ...(hit.sample ? [mk('div', { class: 'muted' }, `sampled: ${hit.sample.join(' ← ')}`)] : []),
    );
    tip.style.left = `${Math.min(x + 12, width - 260)}px`;
    tip.style.top = `${yy + 12}px`;
    tip.hidden = false;
  };

  // The findings of `report --trace`, each a link to its place in time.
  void getJson<Findings>('/api/trace/findings').then((f) => {
    const item = (text: string, from: number, to: number): HTMLElement => {
      const a = mk('a', { href: '#', 'data-from': String(from), 'data-to': String(to) }, text);
      a.onclick = (e) => {
        e.preventDefault();
        const pad = Math.max((to - from) * 0.5, 1000);
        setView(from - pad, to + pad);
      };
      return mk('li', {}, a);
    };
    const list = mk('ul', {});
    for (const w of f.waitStates.slice(0, 12)) {
      list.append(item(`${w.kind}: ${dur(w.time)} in ${w.count} call(s) on ${w.rank >= 0 ? `rank ${w.rank}` : w.lane} at ${w.call}${w.caller ? ` in ${w.caller}` : ''} (longest ${dur(w.max)})`, w.maxAt, w.maxAt + w.max));
    }
    for (const p of f.taskProblems) list.append(item(`${p.kind} on ${p.where}: ${p.why}`, p.from, p.to));
    for (const p of f.phases) {
      list.append(item(`${p.phase}: slowest ${p.slowest.name} on ${p.slowest.lane}, ${dur(p.slowest.duration)} against a median of ${dur(p.median)}`, p.slowest.start, p.slowest.start + p.slowest.duration));
    }
    if (!list.children.length) list.append(mk('li', { class: 'muted' }, 'no wait states, task problems or phases'));
    findings.append(list);
  }, showError);

  resize();
  window.addEventListener('resize', () => {
    resize();
    draw();
    void fetchRange();
  });
  await fetchRange();
}

/** The profile of a selected interval: a flat table and a flame graph, over all lanes. */
async function showSelection(root: HTMLElement, t0: number, t1: number, s: TraceSummary): Promise<void> {
  document.body.dataset.ready = '0';
  let p: { rows: ProfileRow[]; flame: FlameNode };
  try {
    p = await getJson<{ rows: ProfileRow[]; flame: FlameNode }>('/api/trace/profile', { t0, t1 });
  } catch (e) {
    showError(e);
    document.body.dataset.ready = '1';
    return;
  }
  root.dataset.t0 = String(t0);
  root.dataset.t1 = String(t1);
  const head = mk('h3', {}, `Selection ${dur(t0 - s.first)} – ${dur(t1 - s.first)} (${dur(t1 - t0)}), all threads`);
  const table = mk('table', { class: 'stats', id: 'selection-table' });
  table.append(mk('tr', {}, mk('th', {}, 'Name'), mk('th', { class: 'num' }, 'Exclusive'), mk('th', { class: 'num' }, 'Inclusive'), mk('th', { class: 'num' }, 'Calls entered')));
  for (const r of p.rows) {
    const tr = mk('tr', { 'data-name': r.name, 'data-excl': String(r.excl), 'data-incl': String(r.incl), 'data-calls': String(r.calls) });
    tr.append(mk('td', { class: 'name' }, r.name), mk('td', { class: 'num' }, dur(r.excl)), mk('td', { class: 'num' }, dur(r.incl)), mk('td', { class: 'num' }, String(r.calls)));
    table.append(tr);
  }
  const flame = mk('div', { class: 'selection-flame', id: 'selection-flame' });
  const total = p.flame.value || 1;
  const W = 1000;
  const place = (n: FlameNode, x: number, depth: number): void => {
    const w = (n.value / total) * W;
    if (w < 1) return;
    const d = mk('div', { class: 'sf-node', title: `${n.name}: ${dur(n.value)} (${dur(n.self)} own)`, 'data-name': n.name, 'data-value': String(n.value) });
    d.style.left = `${(x / W) * 100}%`;
    d.style.width = `${(w / W) * 100}%`;
    d.style.top = `${depth * 17}px`;
    d.style.background = depth === 0 ? '#c9d2e3' : regionColour(n.name);
    d.textContent = n.name;
    flame.append(d);
    let at = x;
    for (const c of n.children) {
      place(c, at, depth + 1);
      at += (c.value / total) * W;
    }
  };
  place(p.flame, 0, 0);
  const depth = (n: FlameNode): number => 1 + Math.max(0, ...n.children.map(depth));
  flame.style.height = `${depth(p.flame) * 17 + 4}px`;
  root.replaceChildren(head, table, mk('h3', {}, 'Flame graph of the selection'), flame);
  document.body.dataset.ready = '1';
}
