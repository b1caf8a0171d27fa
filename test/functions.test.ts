/**
 * Which function: `hyprof report --functions` (self and total per function, overall and per
 * context, like perf report --no-children / --children), the viewer's functions answer, and
 * `hyprof export --format pprof` with real functions, locations with lines and mappings, so that
 * pprof -top ranks functions and pprof -list shows their lines. A real program (probes, a
 * parameter, a hot leaf function) built with gcc and clang, sampled under hyprof run.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Profile } from 'pprof-format';
import type { FunctionReport } from '../src/report/report-functions.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { readBuildId } from '../src/symbolize/elf-build-id.js';
import { ProfileApi } from '../src/view/api.js';
import { compileC, hyprof, tmpDir } from './helpers/native.js';

for (const cc of ['gcc', 'clang'] as const) {
  test(`${cc}: the samples by function in the report, the viewer and pprof agree`, async (t) => {
    const exe = compileC(`functions_${cc}`, ['assemble_matmult.c'], { cc, cflags: ['-O2', '-g'] });
    const root = tmpDir(`functions-${cc}`);
    const dir = join(root, 'prof');
    const r = await hyprof(['run', '--dir', dir, '--period', '500', '--', exe, 'regions', '160']);
    t.is(r.code, 0, r.stderr);

    const rep = await hyprof(['report', dir, '--functions', '--json']);
    t.is(rep.code, 0, rep.stderr);
    const report = JSON.parse(rep.stdout) as FunctionReport;
    const th = report.threads[0];
    const row = (fn: string) => th.overall.rows.find((x) => x.function === fn);
    // The kernel and its leaf are there with their file; the kernel's total holds both (which one
    // has more self time depends on the compiler and the machine's load).
    t.truthy(row('matrixMultiply') && row('multiply'), th.overall.rows.slice(0, 5).map((x) => x.function).join(', '));
    t.regex(row('multiply')!.file, /assemble_matmult\.c$/);
    t.true(row('matrixMultiply')!.total >= row('multiply')!.self + row('matrixMultiply')!.self - 1e-6);
    const selfSum = th.overall.rows.reduce((s, x) => s + x.self, 0);
    t.true(Math.abs(selfSum - th.overall.value) < 1e-6 * th.overall.value + 1e-6, 'self values add up to the sampled value');
    // Per context: the specialised timer's samples, split by size.
    t.true(th.contexts.some((c) => /^matrixMultiply \[ <size> = <160> \]$/.test(c.context ?? '')), th.contexts.map((c) => c.context).join(' | '));
    const bySort = JSON.parse((await hyprof(['report', dir, '--functions', '--json', '--sort', 'incl'])).stdout) as FunctionReport;
    t.is(bySort.sort, 'total');
    t.is(bySort.threads[0].overall.rows[0].function, 'matrixMultiply');
    t.true(bySort.threads[0].overall.rows[0].totalPercent >= bySort.threads[0].overall.rows[1].totalPercent);
    const text = await hyprof(['report', dir, '--functions', '--limit', '3']);
    // One unit for the report, the one its largest value reads best in (TAU pprof's words).
    t.regex(text.stdout, /Self%\s+Self (msec|sec)\s+Total%\s+Total (msec|sec)\s+#Samples\s+Function/);
    const ms = await hyprof(['report', dir, '--functions', '--limit', '3', '--units', 'ms']);
    t.regex(ms.stdout, /Self%\s+Self msec\s+Total%\s+Total msec\s+#Samples\s+Function/);
    t.regex(text.stdout, /\[CONTEXT\] matrixMultiply \[ <size> = <160> \]: \d+ samples/);

    // The viewer answers the same.
    const profile = readTauProfileDir(dir);
    const api = new ProfileApi(profile);
    const view = api.functions(new URLSearchParams({ thread: '0' })) as { scope: { rows: Array<{ function: string; self: number }> } };
    t.is(view.scope.rows[0].function, th.overall.rows[0].function);
    t.true(Math.abs(view.scope.rows[0].self - th.overall.rows[0].self) < 1e-6);
    // What the page can get wrong is answered with a status and a message.
    t.throws(() => api.functions(new URLSearchParams({ thread: '0', sort: 'children' })), { message: 'unknown sort "children"; use self or total' });
    t.throws(() => api.functions(new URLSearchParams({ thread: '0', context: 'nope' })), { message: 'no sample context "nope" in this thread' });

    // pprof: functions with files, locations with lines, the executable's mapping with its build id.
    const out = join(root, 'p.pb.gz');
    t.is((await hyprof(['export', dir, '--format', 'pprof', '-o', out])).code, 0);
    const p = Profile.decode(gunzipSync(readFileSync(out)));
    const str = (i: number | bigint) => p.stringTable.strings[Number(i)];
    const fns = new Map(p.function.map((f) => [Number(f.id), f]));
    const mult = p.function.find((f) => str(f.name) === 'multiply')!;
    t.truthy(mult);
    t.regex(str(mult.filename), /assemble_matmult\.c$/);
    t.false(p.function.some((f) => /^\[(SAMPLE|UNWIND|CONTEXT)\]/.test(str(f.name))));
    const exeMap = p.mapping.find((m) => str(m.filename) === exe);
    t.truthy(exeMap, p.mapping.map((m) => str(m.filename)).join(', '));
    t.is(str(exeMap!.buildId), readBuildId(exe) ?? '');
    const multLocs = p.location.filter((l) => Number(l.line[0].functionId) === Number(mult.id));
    t.true(multLocs.length > 0 && multLocs.every((l) => Number(l.line[0].line) > 0 && Number(l.mappingId) === Number(exeMap!.id)));
    // pprof -top: flat value per function is the leaf's; multiply's matches the report's self.
    const locFn = new Map(p.location.map((l) => [Number(l.id), fns.get(Number(l.line[0].functionId))!]));
    const flat = p.sample
      .filter((s) => str(locFn.get(Number(s.locationId[0]))!.name) === 'multiply')
      .reduce((a, s) => a + Number(s.value[1]), 0);
    t.true(Math.abs(flat / 1000 - row('multiply')!.self) <= 1 + 1e-6 * flat, `${flat / 1000} vs ${row('multiply')!.self}`);
    // The contexts stay visible: root frames, and a context label.
    const s0 = p.sample.find((s) => str(locFn.get(Number(s.locationId[0]))!.name) === 'multiply')!;
    const label = (key: string) => str(s0.label.find((l) => str(l.key) === key)!.str);
    t.regex(label('context'), /^\.TAU application => main => Iteration \d => matrixMultiply => matrixMultiply \[ <size> = <\d+> \]$/);
    t.is(str(locFn.get(Number(s0.locationId.at(-1)))!.name), '.TAU application');
  });
}
