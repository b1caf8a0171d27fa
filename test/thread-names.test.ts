/**
 * Thread names the program sets reach the labels of the report and the viewer: pthread_setname_np
 * (also on the main thread) and hyprof_set_thread_name, for threads still running when the
 * measurements are written at exit and by the runtime's SIGTERM handler (which reads the names
 * with open/read/close only). A thread that kept the name it inherited from its creator is not
 * named by it.
 */
import test from 'ava';
import { compileC, hyprof, tmpDir } from './helpers/native.js';
import { readTauProfileDir } from '../src/profile/tau-reader.js';
import { ProfileApi } from '../src/view/api.js';
import { join } from 'node:path';

const exe = compileC('thread_names', ['thread_names.c'], { cflags: ['-O1', '-g', '-D_GNU_SOURCE'] });
/** The workers start together: their thread numbers come in any order, the main thread is 0. */
const sorted = (xs: Array<string | undefined>): Array<string | undefined> => [xs[0], ...xs.slice(1).sort()];

for (const mode of ['exit', 'term']) {
  test(`names of running threads written ${mode === 'exit' ? 'at exit' : 'on SIGTERM'} label the report and the viewer`, async (t) => {
    const dir = join(tmpDir(`thread-names-${mode}`), 'profile');
    const r = await hyprof(['run', '--dir', dir, '--', exe, mode]);
    t.is(r.code, mode === 'exit' ? 0 : 143, r.stderr);
    const report = await hyprof(['report', dir]);
    const titles = report.stdout.split('\n').filter((l) => l.startsWith('NODE '));
    t.is(titles.length, 4);
    titles.forEach((l, i) => t.regex(l, new RegExp(`^NODE 0;CONTEXT 0;THREAD ${i}( "[a-z-]+")?:$`)));
    t.deepEqual(sorted(titles.map((l) => /"(.*)"/.exec(l)?.[1] ?? '')), ['main-named', '', 'named-by-api', 'named-by-os']);
    const api = new ProfileApi(readTauProfileDir(dir));
    const rows = (api.threads(new URLSearchParams()) as { rows: Array<{ label: string }> }).rows.map((x) => x.label);
    t.deepEqual(rows, titles.map((l) => l.replace(/^NODE 0;CONTEXT 0;THREAD (\d+)(.*):$/, 'n,c,t 0,0,$1$2')));
    // The name is also the metadata TAU's tools read.
    const meta = readTauProfileDir(dir).threads[0].map((th) => th.metadata.find(([k]) => k === 'Thread Name')?.[1]);
    t.deepEqual(sorted(meta), ['main-named', 'named-by-api', 'named-by-os', undefined]);
  });
}
