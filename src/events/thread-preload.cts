/**
 * `hyprof run`'s preload for Node programs (`--require` in NODE_OPTIONS). Node runs preloads on its
 * main thread and again on every worker_threads worker, before the worker's own code: here each such
 * thread tells the runtime that it runs JavaScript, so that it is measured (and sampled) from now on,
 * under the name `worker <threadId>`. Node's helper threads (V8's platform workers, libuv's thread
 * pool ...) never run this and stay unmeasured unless HYPROF_NODE_THREADS=all (docs/node.md,
 * "Threads"). CommonJS, so that `--require` can load it without the ES module loader.
 */
import { join } from 'node:path';
import { isMainThread, threadId } from 'node:worker_threads';

interface ThreadMarker {
  registerThread(name?: string): void;
}

// Only with the runtime preloaded (the addon's calls then reach it): a process that dropped
// LD_PRELOAD but kept NODE_OPTIONS must not start a runtime of its own from here.
if (/(^|[:\s/])libhyprof\.so/.test(process.env.LD_PRELOAD ?? '')) {
  try {
    const load = require('node-gyp-build') as (dir: string) => ThreadMarker;
    // dist/src/events -> the package root
    load(join(__dirname, '..', '..', '..')).registerThread(isMainThread ? undefined : `worker ${threadId}`);
  } catch (e) {
    if (isMainThread) {
      // node-gyp-build's reason spans lines (where it looked): one line, as every hyprof message
      const reason = String((e as Error).message).trim().replace(/\s*\n\s*/g, ' ');
      process.stderr.write(
        `hyprof: worker threads are not measured: the addon could not be loaded (${reason}); ` +
          'HYPROF_NODE_THREADS=all measures every thread from its start\n',
      );
    }
  }
}
