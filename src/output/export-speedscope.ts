/**
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json): one "sampled"
 * profile per thread over shared frames; each stack is a sample weighted by its own value.
 */
import { sourceOf } from './event-tree.js';
import type { TauProfile } from './tau-model.js';
import { isTimeMetric, selectThreads, stacksOf, threadName, threadTree, type ExportSelection } from './export-common.js';

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
  const frameOf = (name: string): number => {
    let i = frameIndex.get(name);
    if (i === undefined) {
      i = frames.length;
      const src = sourceOf(name);
      frames.push(src ? { name, file: src.file, line: src.line } : { name });
      frameIndex.set(name, i);
    }
    return i;
  };
  const profiles: SpeedscopeFile['profiles'] = threads.map((t) => {
    const stacks = stacksOf(threadTree(t));
    const weights = stacks.map((s) => s.value);
    return {
      type: 'sampled',
      name: `${threadName(t)} ${metric}`,
      unit: isTimeMetric(metric) ? 'microseconds' : 'none',
      startValue: 0,
      endValue: weights.reduce((a, b) => a + b, 0),
      samples: stacks.map((s) => s.frames.map((f) => frameOf(f.name))),
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
