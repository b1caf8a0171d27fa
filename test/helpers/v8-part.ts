/**
 * A copy of the hyprof package whose V8 part (native/addon/v8) is built for another Node ABI, as a
 * user meets it when the node that runs a program is not the node hyprof was built with. The part is
 * compiled from the real sources against this node's headers with node's own knob for the ABI
 * number (NODE_EMBEDDER_MODULE_VERSION): node itself then refuses to load it, with its own message.
 * The rest of the copy is the built package (dist/src, the addon, node_modules by a link). Also a
 * copy without the addon.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { libDir, repoRoot, tmpDir } from './native.js';

export interface OtherAbiPackage {
  /** The package root of the copy. */
  root: string;
  /** Its V8 part, built for ABI `abi`. */
  part: string;
  abi: string;
}

/** Node's headers, where node-gyp took them for the real V8 part (its makefile), else its nodedir or cache. */
function nodeHeaders(): string {
  const read = (f: string) => (existsSync(join(repoRoot, 'build', f)) ? readFileSync(join(repoRoot, 'build', f), 'utf8') : '');
  const used = /-I(\S+\/include\/node)\b/.exec(read('hyprof_v8.target.mk'))?.[1];
  const nodedir = /"nodedir":\s*"([^"]+)"/.exec(read('config.gypi'))?.[1];
  const candidates = [used, nodedir && join(nodedir, 'include', 'node'), join(homedir(), '.cache', 'node-gyp', process.versions.node, 'include', 'node')];
  const found = candidates.find((d) => d && existsSync(join(d, 'node.h')));
  if (!found) throw new Error(`no node.h for node ${process.version} (looked in ${candidates.filter(Boolean).join(', ')}): build hyprof with npm ci first`);
  return found;
}

function compile(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
}

/** A copy of the built package (dist/src, package.json, node_modules by a link), with the addon or without. */
function packageCopy(name: string, withAddon: boolean): { root: string; release: string } {
  const root = join(tmpDir(name), 'hyprof');
  const release = join(root, 'build', 'Release');
  mkdirSync(release, { recursive: true });
  cpSync(join(repoRoot, 'dist', 'src'), join(root, 'dist', 'src'), { recursive: true });
  copyFileSync(join(repoRoot, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
  if (withAddon) symlinkSync(join(libDir, 'hyprof_addon.node'), join(release, 'hyprof_addon.node'));
  return { root, release };
}

/** A copy of the package without its addon (no build, no prebuilt binary): what the preloads meet
 * when an install lost it. */
export function packageWithoutAddon(): string {
  return packageCopy('no-addon', false).root;
}

let made: OtherAbiPackage | undefined;

export function packageWithV8PartOfAnotherAbi(): OtherAbiPackage {
  if (made) return made;
  const { root, release } = packageCopy('other-abi', true);
  // Node 18's ABI, or Node 20's when this node is 18 (hyprof needs 20 or later).
  const abi = process.versions.modules === '108' ? '115' : '108';
  const src = join(repoRoot, 'native', 'addon', 'v8');
  const inc = ['-I', join(repoRoot, 'native'), '-I', join(repoRoot, 'native', 'include'), '-I', nodeHeaders()];
  const log = join(root, 'jit_log.o');
  compile('gcc', ['-c', '-O1', '-fPIC', '-std=gnu11', ...inc, join(src, 'jit_log.c'), '-o', log]);
  const part = join(release, 'hyprof_v8.node');
  compile('g++', ['-shared', '-fPIC', '-O1', '-std=gnu++17', '-fno-rtti', '-fno-exceptions', `-DNODE_EMBEDDER_MODULE_VERSION=${abi}`, '-DBUILDING_NODE_EXTENSION', ...inc, join(src, 'jit_events.cc'), log, '-o', part, '-ldl', '-lpthread']);
  made = { root, part, abi };
  return made;
}
