/**
 * CUDA kernels' names as their source says them (docs/gpu.md): CUPTI gives a kernel's linkage name
 * (`_ZN6solver6reduceILi256EEEvPKfPfi`); the profile shows the function with its namespaces and
 * template arguments, without its parameter types (`solver::reduce<256>`), as `c++filt -p` (GNU
 * binutils) writes it. The names of a process are demangled in one run of c++filt; without it, a
 * plain function's name is taken out of its mangled form (`_Z5saxpyifPKfPf` → `saxpy`) and other
 * names stay as CUPTI gave them. A name is the same wherever it is asked for (the profile's events,
 * the trace's regions), so the answers are kept for the process's life.
 */
import { spawnSync } from 'node:child_process';

const known = new Map<string, string>();

/** Demangle `names` (those not known yet) in one run of c++filt. */
export function demangleKernels(names: Iterable<string>): void {
  const todo = [...new Set(names)].filter((n) => n.startsWith('_Z') && !known.has(n));
  if (todo.length === 0) return;
  const r = spawnSync('c++filt', ['-p'], { input: `${todo.join('\n')}\n`, encoding: 'utf8', maxBuffer: 64 << 20 });
  const lines = r.status === 0 ? r.stdout.split('\n') : [];
  // One line out per line in; anything else (no c++filt, a failure) leaves the simple rule below.
  if (lines.length === todo.length + 1) todo.forEach((n, i) => known.set(n, lines[i] || n));
}

/** A kernel's (or copy's, set's) name as the profile shows it. */
export function kernelName(name: string): string {
  const d = known.get(name);
  if (d !== undefined) return d;
  const m = /^_Z(\d+)(.*)$/.exec(name);
  if (!m) return name;
  const n = Number(m[1]);
  return m[2].length >= n ? m[2].slice(0, n) : name;
}
