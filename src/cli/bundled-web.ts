/**
 * The viewer's page inside the single executable: scripts/build-sea.sh adds every file of dist/web
 * as an asset `web/<path>` and their list as `web-files.json`.
 */
import { singleExecutableBytes, singleExecutableText } from '../base/single-executable.js';
import type { WebFiles } from '../view/server.js';

/** The page's files when running as the single executable, else undefined (served from dist/web). */
export function bundledWebFiles(): WebFiles | undefined {
  const list = singleExecutableText('web-files.json');
  if (list === undefined) return undefined;
  const files: WebFiles = new Map();
  for (const path of JSON.parse(list) as string[]) files.set(path, singleExecutableBytes(`web/${path}`) ?? Buffer.alloc(0));
  return files;
}
