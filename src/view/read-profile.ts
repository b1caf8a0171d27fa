/**
 * Reading a profile directory for `view` and `diff`, with a progress line on a terminal (a
 * directory can hold thousands of thread files) and silence when stderr is a file or a pipe.
 */
import { createProgress } from '../base/progress.js';
import type { TauProfile } from '../profile/tau-model.js';
import { readTauProfileDir } from '../profile/tau-reader.js';

export function readProfileWithProgress(dir: string): TauProfile {
  const progress = createProgress();
  try {
    return readTauProfileDir(dir, (_file, index, total) => progress.update(`hyprof: reading ${dir}: file ${index + 1} of ${total}`));
  } finally {
    progress.done();
  }
}
