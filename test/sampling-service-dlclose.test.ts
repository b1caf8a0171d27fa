/**
 * A runtime service thread started while another thread is inside dlclose is still recognised
 * (native/sample/service.c, maps.c). Open MPI starts its progress thread (libopen-pal) during
 * MPI_Init while it closes the components it did not select; the start routine's library was then
 * not found (the loaded-objects snapshot refuses lookups during a dlclose), and the progress thread
 * kept the wall clock in about one run in three. Here the overlap is made certain: a library's
 * destructor, run inside dlclose on one thread, waits until a thread started meanwhile from
 * `libevent_hyprof_test.so` (a runtime library by name) has run.
 */
import test from 'ava';
import { join } from 'node:path';
import { compileC, libPath, run, tmpDir } from './helpers/native.js';

test('a service thread started during another thread\'s dlclose gets the CPU clock, and is said', async (t) => {
  const dir = tmpDir('service-dlclose');
  const shared = { link: false, cflags: ['-O1', '-g', '-shared', '-fPIC'], outDir: dir };
  const slow = compileC('libslow_close.so', ['service_dlclose.c'], { ...shared, cflags: [...shared.cflags, '-DSLOW_LIB'] });
  const svc = compileC('libevent_hyprof_test.so', ['service_dlclose.c'], { ...shared, cflags: [...shared.cflags, '-DSERVICE_LIB'] });
  const exe = compileC('service_dlclose', ['service_dlclose.c'], { link: false, cflags: ['-O1', '-g', '-rdynamic'], ldflags: ['-ldl'], outDir: dir });
  const r = await run(exe, [slow, svc], {
    env: { LD_PRELOAD: libPath, HYPROF_SAMPLING: '1', HYPROF_RESOLVE: '0', HYPROF_RAW_DIR: join(dir, 'raw'), HYPROF_SERVICE_THREADS: undefined },
  });
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'done\n');
  t.regex(r.stderr, /^hyprof: thread 2 starts in libevent_hyprof_test\.so, a runtime library: runtime service threads are sampled by their CPU time/m);
});
