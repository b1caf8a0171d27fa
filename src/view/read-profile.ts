/**
 * Reading a profile directory for `view` and `diff`, with a progress line on a terminal (a
 * directory can hold thousands of thread files) and silence when stderr is a file or a pipe.
 */
import { createProgress } from '../base/progress.js';
import type { TauProfile } from '../profile/tau-model.js';
import { listProfileFiles, readTauProfileDir } from '../profile/tau-reader.js';
import { RANGES_ABOVE, ScaledProfile } from './scaled-profile.js';

export function readProfileWithProgress(dir: string): TauProfile {
  const progress = createProgress();
  try {
    return readTauProfileDir(dir, (_file, index, total) => progress.update(`hyprof: reading ${dir}: file ${index + 1} of ${total}`));
  } finally {
    progress.done();
  }
}

/**
 * The profile as `hyprof view DIR` holds it: read whole, or, above `rangesAbove` thread files, folded
 * file by file into a ScaledProfile (its threads read again when the page opens one).
 */
export function openProfileForView(dir: string, rangesAbove = RANGES_ABOVE): { profile: TauProfile; scaled?: ScaledProfile } {
  const sets = listProfileFiles(dir);
  if (sets.some((s) => s.merged) || (sets[0]?.files.length ?? 0) <= rangesAbove) return { profile: readProfileWithProgress(dir) };
  const progress = createProgress();
  try {
    const scaled = new ScaledProfile(dir, (_file, index, total) => progress.update(`hyprof: reading ${dir}: file ${index + 1} of ${total}`));
    return { profile: scaled.profile, scaled };
  } finally {
    progress.done();
  }
}
