/**
 * In-process `hyprof resolve` for tests that call the library directly: the profile it writes is
 * checked for conformance (conformance.ts) like every profile the tests produce.
 */
import { resolveRawFiles, type ResolveOptions, type ResolveResult } from '../../src/resolve/resolve.js';
import { assertConformant } from './conformance.js';

export async function resolveChecked(files: string[], opts: ResolveOptions): Promise<ResolveResult> {
  const r = await resolveRawFiles(files, opts);
  assertConformant(r.outDir);
  return r;
}
