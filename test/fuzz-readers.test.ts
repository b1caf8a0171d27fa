/**
 * Bounded, seeded fuzzing of the two readers of outside data: the raw-file reader (a real raw file of
 * a real program, mutated section by section with CRCs and lengths kept consistent so that mutants
 * reach the section parsers, plus some left inconsistent), the TAU-profile reader (TAU's own
 * reference profiles, mutated line by line) and the stacks-file reader (a stacks file written by
 * resolve's own StackTree for a reference profile, mutated in its JSON: values, keys, elements, cuts). Every mutant must either parse or be rejected with a
 * UserError naming the file; what parses must also assemble / report without any other exception.
 * The same seed gives the same mutants, so a failure names the mutant that reproduces it.
 * FUZZ_SEED and FUZZ_MUTANTS change the seed and the count for a longer run by hand (the suite keeps
 * the defaults).
 */
import test from 'ava';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { UserError } from '../src/base/errors.js';
import { assembleProcess } from '../src/resolve/assemble.js';
import { buildReport } from '../src/report/report-data.js';
import { renderReport } from '../src/report/report-text.js';
import { parseThreadProfile, readTauProfileDir } from '../src/profile/tau-reader.js';
import { FrameTable, StackTree, type StacksFile } from '../src/profile/stacks-file.js';
import { stacksIn, threadTree } from '../src/export/export-common.js';
import { ProfileApi } from '../src/view/api.js';
import { formatThreadProfile } from '../src/profile/tau-writer.js';
import { parseRaw } from '../src/samples/raw-reader.js';
import { compileC, run, tauReferenceDir, tmpDir } from './helpers/native.js';

const RAW_MUTANTS = Number(process.env.FUZZ_MUTANTS ?? 400);
const TAU_MUTANTS = Number(process.env.FUZZ_MUTANTS ?? 300);

/** A small deterministic generator (mulberry32). */
function random(seed: number): { next: () => number; int: (n: number) => number; pick: <T>(a: readonly T[]) => T } {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return { next, int, pick: (a) => a[int(a.length)] };
}

/** Rejected with a UserError naming the file, or accepted: anything else is a finding. */
function outcome(name: string, fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    if (e instanceof UserError && e.message.startsWith(`${name}:`)) return null;
    return `${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`.slice(0, 300);
  }
}

// ---- raw files ----

interface RawSection {
  tag: number;
  payload: Buffer;
}


function splitRaw(buf: Buffer): { header: Buffer; sections: RawSection[] } {
  const header = buf.subarray(0, 16);
  const sections: RawSection[] = [];
  for (let pos = 16; pos < buf.length; ) {
    const tag = buf.readUInt32LE(pos);
    const len = Number(buf.readBigUInt64LE(pos + 8));
    sections.push({ tag, payload: Buffer.from(buf.subarray(pos + 16, pos + 16 + len)) });
    pos += 16 + len;
  }
  return { header, sections };
}

function joinRaw(header: Buffer, sections: RawSection[], goodCrc: boolean): Buffer {
  const parts: Buffer[] = [header];
  for (const s of sections) {
    const h = Buffer.alloc(16);
    h.writeUInt32LE(s.tag, 0);
    h.writeUInt32LE(goodCrc ? crc32(s.payload) >>> 0 : (crc32(s.payload) ^ 1) >>> 0, 4);
    h.writeBigUInt64LE(BigInt(s.payload.length), 8);
    parts.push(h, s.payload);
  }
  return Buffer.concat(parts);
}

const U32S = [0, 1, 2, 0x7f, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff];
const U64S = [0n, 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n];

function mutateRaw(base: Buffer, rnd: ReturnType<typeof random>): { buf: Buffer; what: string } {
  const { header, sections } = splitRaw(base);
  const endTag = sections[sections.length - 1].tag;
  const body = sections.slice(0, -1).map((s) => ({ tag: s.tag, payload: Buffer.from(s.payload) }));
  const si = rnd.int(body.length);
  const s = body[si];
  const p = s.payload;
  const at = p.length > 0 ? rnd.int(p.length) : 0;
  const op = rnd.int(12);
  let what = '';
  switch (op) {
    case 0:
    case 1: {
      const flips = 1 + rnd.int(4);
      for (let i = 0; i < flips && p.length > 0; i++) p[rnd.int(p.length)] ^= 1 << rnd.int(8);
      what = `flip ${flips} bits in section ${s.tag}`;
      break;
    }
    case 2:
    case 3:
      if (p.length >= 4) p.writeUInt32LE(rnd.pick(U32S), rnd.int(p.length - 3));
      what = `u32 in section ${s.tag}`;
      break;
    case 4:
      if (p.length >= 8) p.writeBigUInt64LE(rnd.pick(U64S), rnd.int(p.length - 7));
      what = `u64 in section ${s.tag}`;
      break;
    case 5:
      s.payload = p.subarray(0, at);
      what = `section ${s.tag} cut at ${at}`;
      break;
    case 6: {
      const extra = Buffer.alloc(1 + rnd.int(16));
      for (let i = 0; i < extra.length; i++) extra[i] = rnd.int(256);
      s.payload = Buffer.concat([p.subarray(0, at), extra, p.subarray(at)]);
      what = `${extra.length} bytes into section ${s.tag} at ${at}`;
      break;
    }
    case 7: {
      const len = 1 + rnd.int(Math.max(1, p.length - at));
      s.payload = Buffer.concat([p.subarray(0, at), p.subarray(at + len)]);
      what = `${len} bytes out of section ${s.tag} at ${at}`;
      break;
    }
    case 8:
      body.splice(si, 1);
      what = `section ${s.tag} removed`;
      break;
    case 9:
      body.splice(si, 0, { tag: s.tag, payload: Buffer.from(p) });
      what = `section ${s.tag} twice`;
      break;
    case 10: {
      const sj = rnd.int(body.length);
      [body[si], body[sj]] = [body[sj], body[si]];
      what = `sections ${si} and ${sj} swapped`;
      break;
    }
    default:
      s.tag = rnd.pick([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0xffffffff]);
      what = `section ${si} retagged ${s.tag}`;
  }
  const end = Buffer.alloc(4);
  end.writeUInt32LE(rnd.next() < 0.9 ? body.length : body.length + 1);
  const goodCrc = rnd.next() < 0.95;
  let buf = joinRaw(header, [...body, { tag: endTag, payload: end }], goodCrc);
  if (rnd.next() < 0.05) {
    const cut = rnd.int(buf.length);
    buf = buf.subarray(0, cut);
    what += `, file cut at ${cut}`;
  }
  return { buf, what: `${what}${goodCrc ? '' : ', stale CRC'}` };
}

let rawBase: Buffer;
test.before(async () => {
  const exe = compileC('fuzz_matmult', ['assemble_matmult.c']);
  const dir = tmpDir('fuzz-raw');
  const r = await run(exe, ['phases', '24'], {
    env: { HYPROF_RAW_DIR: dir, HYPROF_RESOLVE: '0', HYPROF_SAMPLING: '1', HYPROF_PERIOD_US: '200' },
  });
  if (r.code !== 0) throw new Error(r.stderr);
  rawBase = readFileSync(join(dir, readdirSync(dir).find((f) => f.endsWith('.raw'))!));
});

test(`raw reader: ${RAW_MUTANTS} seeded mutants of a real raw file parse or are rejected naming the file`, (t) => {
  t.notThrows(() => parseRaw('base.raw', rawBase), 'the base file parses');
  const rnd = random(Number(process.env.FUZZ_SEED ?? 0x12c0ffee));
  const findings: string[] = [];
  let parsed = 0;
  for (let i = 0; i < RAW_MUTANTS; i++) {
    const { buf, what } = mutateRaw(rawBase, rnd);
    const name = `mutant-${i}.raw`;
    const problem = outcome(name, () => {
      const proc = parseRaw(name, buf);
      parsed++;
      // What the reader accepts, the assembly and the writer must take too.
      const a = assembleProcess(proc, { resolve: (pc) => ({ resolved: false, module: 'UNKNOWN', address: pc }) });
      for (const threads of a.threads) for (const th of threads) formatThreadProfile(th);
    });
    if (problem) findings.push(`mutant ${i} (${what}): ${problem}`);
  }
  t.deepEqual(findings, []);
  t.log(`${parsed} of ${RAW_MUTANTS} mutants parsed`);
  t.true(parsed > 0 && parsed < RAW_MUTANTS, 'the mutants reach both outcomes');
});

// ---- TAU profiles ----

const TAU_BASES = ['hybrid_callpath_unwind', 'openmp_ompt_full', 'fnparam_phase_hybrid_unwind'];

function mutateTau(text: string, rnd: ReturnType<typeof random>): { text: string; what: string } {
  const lines = text.split('\n');
  const i = rnd.int(lines.length);
  const line = lines[i];
  const op = rnd.int(10);
  let what = '';
  switch (op) {
    case 0:
      lines.splice(i, 1);
      what = `line ${i + 1} removed`;
      break;
    case 1:
      lines.splice(i, 0, line);
      what = `line ${i + 1} twice`;
      break;
    case 2: {
      const j = rnd.int(lines.length);
      [lines[i], lines[j]] = [lines[j], lines[i]];
      what = `lines ${i + 1} and ${j + 1} swapped`;
      break;
    }
    case 3:
    case 4: {
      // A number of the line replaced by an extreme or malformed one.
      const nums = [...line.matchAll(/-?\d+(\.\d+)?(E[-+]\d+)?/gi)];
      const v = rnd.pick(['0', '-1', '1e308', '1e999', 'nan', '-inf', '99999999999999999999', '4294967296', '1.5', '', 'x']);
      if (nums.length > 0) {
        const m = rnd.pick(nums);
        lines[i] = line.slice(0, m.index) + v + line.slice(m.index! + m[0].length);
      }
      what = `a number on line ${i + 1} is now "${v}"`;
      break;
    }
    case 5: {
      const at = rnd.int(line.length + 1);
      lines[i] = line.slice(0, at);
      what = `line ${i + 1} cut at ${at}`;
      break;
    }
    case 6: {
      const at = rnd.int(line.length + 1);
      const junk = rnd.pick(['"', '=>', '<', '</metadata>', '<attribute>', ' ', '\t', '\r', '\u0000', '\uffff', 'GROUP="', '\n']);
      lines[i] = line.slice(0, at) + junk + line.slice(at);
      what = `${JSON.stringify(junk)} into line ${i + 1} at ${at}`;
      break;
    }
    case 7:
      lines.length = i;
      what = `file cut after line ${i}`;
      break;
    case 8:
      lines[0] = lines[0].replace(/^\d+/, String(rnd.pick([0, 1, 2, 1000, 4294967295])));
      what = `event count is now ${lines[0]}`;
      break;
    default: {
      const at = rnd.int(text.length);
      return { text: text.slice(0, at) + String.fromCharCode(rnd.int(256)) + text.slice(at + 1), what: `byte at ${at} replaced` };
    }
  }
  return { text: lines.join('\n'), what };
}

test(`TAU profile reader: ${TAU_MUTANTS} seeded mutants of TAU's own profiles parse or are rejected naming the file`, (t) => {
  const bases = TAU_BASES.map((v) => readFileSync(join(tauReferenceDir, v, 'profile.0.0.0'), 'utf8'));
  const rnd = random(Number(process.env.FUZZ_SEED ?? 0x7a05eed));
  const findings: string[] = [];
  let parsed = 0;
  for (let i = 0; i < TAU_MUTANTS; i++) {
    const base = rnd.int(bases.length);
    const { text, what } = mutateTau(bases[base], rnd);
    const name = `mutant-${i}/profile.0.0.0`;
    const problem = outcome(name, () => {
      const th = parseThreadProfile(name, text, { node: 0, context: 0, thread: 0 });
      parsed++;
      // What the reader accepts, the report must print.
      const report = buildReport({ dir: 'mutant', metrics: [th.metric], threads: [[th]] }, { callpath: true });
      renderReport(report);
    });
    if (problem) findings.push(`mutant ${i} of ${TAU_BASES[base]} (${what}): ${problem}`);
  }
  t.deepEqual(findings, []);
  t.log(`${parsed} of ${TAU_MUTANTS} mutants parsed`);
  t.true(parsed > 0 && parsed < TAU_MUTANTS, 'the mutants reach both outcomes');
});

// ---- the stacks-file reader ----

const STACKS_MUTANTS = Number(process.env.FUZZ_MUTANTS ?? 300);

/**
 * A stacks file as resolve writes one (StackTree, FrameTable) for a TAU reference profile: its
 * [CONTEXT] entries hold seeded stacks of up to 12 frames, so the readers attach it to the threads.
 */
function baseStacks(profileText: string, rnd: ReturnType<typeof random>): StacksFile {
  const contexts = [...profileText.matchAll(/^"([^"]*\[CONTEXT\][^"]*)" /gm)].map((m) => m[1]).filter((n) => !/\[(UNWIND|SAMPLE)\]/.test(n));
  const frames = new FrameTable();
  const ids = Array.from({ length: 20 }, (_, i) => frames.id([`f${i}`, `/src/f${i % 5}.c`, 10 + i, '/bin/app']));
  const tree = new StackTree(1);
  for (let s = 0; s < 200; s++) {
    const depth = 1 + rnd.int(12);
    const count = 1 + rnd.int(5);
    tree.add(rnd.pick(contexts), Array.from({ length: depth }, () => rnd.pick(ids)), count, [count * 1000]);
  }
  return { format: 'hyprof-stacks', version: 1, node: 0, context: 0, metrics: ['TIME'], frames: frames.frames, threads: [{ thread: 0, merged: 0, ...tree.data() }] };
}

const ODD_VALUES: readonly unknown[] = [-1, 0, 1, 2 ** 31, -(2 ** 31), 1e308, -0.5, 0.5, null, 'x', '', [], {}, true];

/** One change to the parsed file: a leaf replaced, a key or element dropped or repeated, or the text cut. */
function mutateStacks(base: StacksFile, rnd: ReturnType<typeof random>): { text: string; what: string } {
  const f = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
  let at: unknown = f;
  const path: string[] = [];
  // Walk down a random way: an object key or an array index at each level, stopping at random.
  for (;;) {
    const keys = Array.isArray(at) ? at.map((_, i) => String(i)) : at && typeof at === 'object' ? Object.keys(at) : [];
    if (keys.length === 0 || (path.length > 0 && rnd.next() < 0.25)) break;
    const k = rnd.pick(keys);
    const child = (at as Record<string, unknown>)[k];
    if (child === null || typeof child !== 'object' || rnd.next() < 0.3) {
      const container = at as Record<string, unknown> | unknown[];
      const op = rnd.int(4);
      if (op === 0 && Array.isArray(container)) container.splice(Number(k), 1);
      else if (op === 0) delete (container as Record<string, unknown>)[k];
      else if (op === 1 && Array.isArray(container)) container.splice(Number(k), 0, container[Number(k)]);
      else (container as Record<string, unknown>)[k] = rnd.pick(ODD_VALUES);
      return { text: JSON.stringify(f), what: `${['drop', 'repeat', 'set', 'set'][op]} ${[...path, k].join('.')}` };
    }
    path.push(k);
    at = child;
  }
  const text = JSON.stringify(f);
  const cut = rnd.int(text.length);
  return { text: text.slice(0, cut), what: `cut at ${cut}` };
}

test(`stacks-file reader: ${STACKS_MUTANTS} seeded mutants parse or are rejected naming the file`, (t) => {
  const dir = tmpDir('fuzz-stacks');
  const profileText = readFileSync(join(tauReferenceDir, 'hybrid_callpath_unwind', 'profile.0.0.0'), 'utf8');
  writeFileSync(join(dir, 'profile.0.0.0'), profileText);
  const rnd = random(Number(process.env.FUZZ_SEED ?? 0x57ac5eed));
  const base = baseStacks(profileText, rnd);
  const file = join(dir, 'stacks.0.0.json');
  // The unmutated file is read and attached: the mutants start from a file the readers use.
  writeFileSync(file, JSON.stringify(base));
  t.truthy(readTauProfileDir(dir).threads[0][0].stacks);
  const findings: string[] = [];
  let parsed = 0;
  for (let i = 0; i < STACKS_MUTANTS; i++) {
    const { text, what } = mutateStacks(base, rnd);
    writeFileSync(file, text);
    const problem = outcome(file, () => {
      const profile = readTauProfileDir(dir);
      parsed++;
      // What the reader accepts, the viewer's flame graph and functions view and the exports must walk.
      const api = new ProfileApi(profile);
      api.flame(new URLSearchParams({ thread: '0' }));
      api.functions(new URLSearchParams({ thread: '0' }));
      for (const s of stacksIn(threadTree(profile.threads[0][0]))) void s;
    });
    if (problem) findings.push(`mutant ${i} (${what}): ${problem}`);
  }
  t.deepEqual(findings, []);
  t.log(`${parsed} of ${STACKS_MUTANTS} mutants parsed`);
  t.true(parsed > 0 && parsed < STACKS_MUTANTS, 'the mutants reach both outcomes');
});
