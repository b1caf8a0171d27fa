/**
 * Sampling configuration from the environment: hyprof names and TAU aliases, every source, the
 * frame-pointer unwinder, the sampling signal, the table size, and the one-line messages for values
 * that cannot be used.
 */
import test from 'ava';
import { compileC } from './helpers/native.js';
import { attr, drop, frames, runSampled, symbolize, totalSamples } from './sampling-support.js';

const shares = () => compileC('sample_shares', ['sample_shares.c']);

function fnSamples(p: Parameters<typeof symbolize>[0], fn: string): number {
  const name = symbolize(p);
  return p.threads[0]!.samples.filter((s) => frames(name, s).includes(fn)).reduce((k, s) => k + s.count, 0);
}

test('TAU aliases: TAU_SAMPLING, TAU_EBS_PERIOD, TAU_EBS_SOURCE=itimer, TAU_EBS_UNWIND=0', async (t) => {
  const { result, raws } = await runSampled(shares(), [], {
    HYPROF_SAMPLING: undefined,
    TAU_SAMPLING: '1',
    TAU_EBS_PERIOD: '500',
    TAU_EBS_SOURCE: 'itimer',
    TAU_EBS_UNWIND: '0',
  });
  t.is(result.code, 0, result.stderr);
  t.is(result.stderr, '');
  const p = raws[0]!;
  t.like(p.sampling, { enabled: true, source: 'itimer-wall', periodNs: 500_000, unwind: false, signal: 27 });
  t.true(totalSamples(p.threads[0]!) > 30);
  t.true(p.threads[0]!.samples.every((s) => s.pcs.length === 1), 'TAU_EBS_UNWIND=0 keeps only the PC');
  t.is(attr(p, 'TAU_SAMPLING'), 'on');
  t.is(attr(p, 'TAU_EBS_PERIOD'), '500');
  t.is(attr(p, 'TAU_EBS_UNWIND'), 'off');
  t.is(attr(p, 'TAU_EBS_SOURCE'), 'itimer-wall');
});

test("TAU_EBS_UNWIND_DEPTH=auto (how TAU writes depth 0) is depth 0", async (t) => {
  const { result, raws } = await runSampled(shares(), [], { TAU_EBS_UNWIND_DEPTH: 'auto' });
  t.is(result.code, 0, result.stderr);
  t.is(result.stderr, '');
  t.is(raws[0]!.sampling?.unwindDepth, 0);
  t.is(attr(raws[0]!, 'TAU_EBS_UNWIND_DEPTH'), 'auto');
  t.is(attr(raws[0]!, 'HYPROF_UNWIND_DEPTH'), '0');
});

test('sampling is off by default for a linked program: SAMPLING says so and nothing is sampled', async (t) => {
  const { result, raws } = await runSampled(shares(), [], { HYPROF_SAMPLING: undefined });
  t.is(result.code, 0, result.stderr);
  const p = raws[0]!;
  t.is(p.sampling?.enabled, false);
  t.is(totalSamples(p.threads[0]!), 0);
  t.is(attr(p, 'TAU_SAMPLING'), 'off');
});

for (const source of ['itimer-cpu', 'task-clock', 'cpu-clock']) {
  test(`source ${source} samples the program`, async (t) => {
    const { result, raws } = await runSampled(shares(), [], { HYPROF_SAMPLE_SOURCE: source });
    t.is(result.code, 0, result.stderr);
    t.is(result.stderr, '', 'a usable source gives no message');
    const p = raws[0]!;
    t.is(p.sampling?.source, source);
    t.is(p.sampling?.periodNs, 1_000_000);
    t.true(fnSamples(p, "func_a") > 5, `${fnSamples(p, "func_a")} samples in func_a`);
    t.true(fnSamples(p, "func_b") > 0);
  });
}

test('source page-faults: the period is an event count', async (t) => {
  const { result, raws } = await runSampled(shares(), [], { HYPROF_SAMPLE_SOURCE: 'page-faults', HYPROF_PERIOD_US: '10' });
  t.is(result.code, 0, result.stderr);
  t.is(result.stderr, '');
  t.like(raws[0]!.sampling, { source: 'page-faults', periodNs: 10 });
});

for (const source of ['cycles', 'instructions', 'PAPI_TOT_CYC']) {
  test(`source ${source}: when it cannot be opened, one clear message and the wall timer`, async (t) => {
    const { result, raws } = await runSampled(shares(), [], { HYPROF_SAMPLE_SOURCE: source });
    t.is(result.code, 0, result.stderr);
    const p = raws[0]!;
    const lines = result.stderr.split('\n').filter((l) => l.includes(source));
    if (p.sampling?.source === source) {
      // a machine with counters: then it must have sampled with them
      t.is(lines.length, 0);
    } else {
      t.is(lines.length, 1, result.stderr);
      t.regex(lines[0]!, new RegExp(`^hyprof: sampling source '${source}' cannot be (opened|used).*; sampling with itimer-wall every 1000 us instead$`));
      t.is(p.sampling?.source, 'itimer-wall');
    }
    t.true(fnSamples(p, "func_a") > 15);
  });
}

test('malformed values: one message each, naming the variable and the value used', async (t) => {
  const { result, raws } = await runSampled(shares(), [], {
    HYPROF_PERIOD_US: 'fast',
    HYPROF_SIGNAL: 'SIGKILL',
    HYPROF_UNWINDER: 'dwarf',
    HYPROF_UNWIND_DEPTH: 'deep',
    HYPROF_SAMPLE_SOURCE: 'wallclock',
  });
  t.is(result.code, 0, result.stderr);
  const lines = result.stderr.trim().split('\n');
  t.is(lines.length, 5, result.stderr);
  t.true(lines.some((l) => l.includes('HYPROF_PERIOD_US=fast') && l.includes('using 1000')));
  t.true(lines.some((l) => l.includes('HYPROF_SIGNAL=SIGKILL') && l.includes('using SIGPROF')));
  t.true(lines.some((l) => l.includes('HYPROF_UNWINDER=dwarf') && l.includes('using libunwind')));
  t.true(lines.some((l) => l.includes('HYPROF_UNWIND_DEPTH=deep') && l.includes('using 10')));
  t.true(lines.some((l) => l.includes('HYPROF_SAMPLE_SOURCE=wallclock') && l.includes('using itimer-wall')));
  t.like(raws[0]!.sampling, { source: 'itimer-wall', periodNs: 1_000_000, unwindDepth: 10, unwinder: 'libunwind', signal: 27 });
  t.true(fnSamples(raws[0]!, "func_a") > 15);
});

test('HYPROF_SIGNAL chooses the sampling signal (name or number)', async (t) => {
  for (const [value, signo] of [
    ['SIGUSR2', 12],
    ['RTMIN+2', 36],
    ['10', 10],
  ] as const) {
    const { result, raws } = await runSampled(shares(), [], { HYPROF_SIGNAL: value });
    t.is(result.code, 0, result.stderr);
    t.is(raws[0]!.sampling?.signal, signo);
    t.true(fnSamples(raws[0]!, "func_a") > 15);
  }
});

test('HYPROF_UNWINDER=fp walks frame pointers of code that keeps them', async (t) => {
  const exe = compileC('sample_shares_fp', ['sample_shares.c'], { cflags: ['-O2', '-g', '-fno-omit-frame-pointer'] });
  const { result, raws } = await runSampled(exe, [], { HYPROF_UNWINDER: 'fp' });
  t.is(result.code, 0, result.stderr);
  const p = raws[0]!;
  t.is(p.sampling?.unwinder, 'fp');
  t.is(attr(p, 'HYPROF_UNWINDER'), 'fp');
  const name = symbolize(p);
  const withMain = p.threads[0]!.samples
    .filter((s) => frames(name, s).join(' < ') === 'func_a < main')
    .reduce((k, s) => k + s.count, 0);
  t.true(withMain > 15, `${withMain} samples func_a < main`);
});

test('a full sample table drops and counts (table_full), never loses silently', async (t) => {
  const exe = compileC('sample_many', ['sample_many.c']);
  const { result, raws } = await runSampled(exe, ['300'], { HYPROF_SAMPLE_TABLE: '64', HYPROF_PERIOD_US: '500' });
  t.is(result.code, 0, result.stderr);
  const main = raws[0]!.threads[0]!;
  t.is(main.samples.length, 64);
  const full = drop(main, 'table_full');
  t.true(full > 20, `${full} table_full drops`);
  t.is(Number(attr(raws[0]!, 'TAU_EBS_SAMPLES_TAKEN_0')), totalSamples(main) + full + drop(main, 'in_tool') + drop(main, 'after_stop'));
});
