/**
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json): one "sampled"
 * profile per thread over shared frames; each stack is a sample weighted by its own value.
 */
import type { TauProfile } from './tau-model.js';
import { isTimeMetric, selectThreads, stacksOf, threadName, threadTree, type ExportFrame, type ExportSelection } from './export-common.js';

export interface SpeedscopeFile {
  $schema: 'https://www.speedscope.app/file-format-schema.json';
  shared: { frames: Array<{ name: string; file?: string; line?: number }> };
  profiles: Array<{
    type: 'sampled';
    name: string;
    unit: 'microseconds' | 'none';
    startValue: number;
    endValue: number;
    samples: number[][];
    weights: number[];
  }>;
  name: string;
  activeProfileIndex: number;
  exporter: string;
}

export function exportSpeedscope(profile: TauProfile, sel: ExportSelection = {}, version = '0.1.0'): SpeedscopeFile {
  const { metric, threads } = selectThreads(profile, sel);
  const frames: SpeedscopeFile['shared']['frames'] = [];
  const frameIndex = new Map<string, number>();
  const frameOf = (f: ExportFrame): number => {
    const key = `${f.name}\u0000${f.file ?? ''}\u0000${f.line ?? ''}`;
    let i = frameIndex.get(key);
    if (i === undefined) {
      i = frames.length;
      frames.push(f.file !== undefined ? { name: f.name, file: f.file, line: f.line } : { name: f.name });
      frameIndex.set(key, i);
    }
    return i;
  };
  const profiles: SpeedscopeFile['profiles'] = threads.map((t) => {
    // Stacks first: the thread's tree is dropped before the samples are built (see export-pprof.ts).
    const stacks = stacksOf(threadTree(t));
    const weights = stacks.map((s) => s.value);
    return {
      type: 'sampled',
      name: `${threadName(t)} ${metric}`,
      unit: isTimeMetric(metric) ? 'microseconds' : 'none',
      startValue: 0,
      endValue: weights.reduce((a, b) => a + b, 0),
      samples: stacks.map((s) => s.frames.map(frameOf)),
      weights,
    };
  });
  return {
    $schema: 'https://www.speedscope.app/file-format-schema.json',
    shared: { frames },
    profiles,
    name: `${profile.dir} (${metric})`,
    activeProfileIndex: 0,
    exporter: `hyprof ${version}`,
  };
}
