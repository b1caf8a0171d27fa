/**
 * The single executable (scripts/build-sea.sh): the CLI bundled into one file and built into a copy
 * of the node binary, with the viewer's page and the version as assets. There are no package files
 * beside it, so what the package reads from its own folder comes from here instead.
 */
import * as sea from 'node:sea';

/** True when running as the single executable. */
export function inSingleExecutable(): boolean {
  try {
    return sea.isSea();
  } catch {
    return false;
  }
}

/** A text asset of the single executable (undefined outside it). */
export function singleExecutableText(key: string): string | undefined {
  return inSingleExecutable() ? sea.getAsset(key, 'utf8') : undefined;
}

/** A binary asset of the single executable (undefined outside it). */
export function singleExecutableBytes(key: string): Buffer | undefined {
  return inSingleExecutable() ? Buffer.from(sea.getAsset(key)) : undefined;
}
