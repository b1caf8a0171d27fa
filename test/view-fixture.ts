/**
 * Fixtures for the viewer tests: a copy of one of TAU's reference profiles (shared/reference/tau,
 * beside the repository) whose source paths point at a source file written beside it, so the
 * viewer has a readable file to show for the samples.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, tmpDir, tauReferenceDir } from './helpers/native.js';

export const referenceDir = (variant: string): string => join(tauReferenceDir, variant);

/** Line `n` of the stand-in source file. */
export const sourceLine = (n: number): string => `/* matmult.c line ${n} */ int line_${n} = ${n};`;

export function profileCopy(variant: string): { dir: string; srcDir: string; source: string } {
  const root = tmpDir(`view-${variant}`);
  const dir = join(root, 'profile');
  const srcDir = join(root, 'src');
  mkdirSync(dir);
  mkdirSync(srcDir);
  const text = readFileSync(join(referenceDir(variant), 'profile.0.0.0'), 'utf8');
  writeFileSync(join(dir, 'profile.0.0.0'), text.split('/home/user/tau-example').join(srcDir));
  const source = join(srcDir, 'matmult.c');
  writeFileSync(source, Array.from({ length: 60 }, (_, i) => sourceLine(i + 1)).join('\n') + '\n');
  return { dir, srcDir, source };
}
