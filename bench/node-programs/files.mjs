// The inputs the programs work on: the .ts files of hyprof's src/ (a real project's sources) and
// the .js files TypeScript built from them (dist/src), sorted, every `step`-th one (so that each
// program runs a few seconds), read once: every run does the same work. Relative to this folder, so
// the benchmark runs from any checkout.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
function list(dir, ext, step) {
  return readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith(ext) && !f.endsWith('.d.ts'))
    .sort()
    .filter((_, i) => i % step === 0)
    .map((f) => ({ path: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }));
}
export const tsSources = (step = 1) => list(join(root, 'src'), '.ts', step);
export const jsSources = (step = 1) => list(join(root, 'dist', 'src'), '.js', step);
