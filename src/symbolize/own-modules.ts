/** hyprof's own code: the runtime library, its MPI layer, or the Node addon it is built into. */
export function isRuntimeModule(path: string | undefined): boolean {
  const base = path?.slice(path.lastIndexOf('/') + 1) ?? '';
  return /^libhyprof(_mpi)?\.so(\.|$)/.test(base) || (base.endsWith('.node') && base.includes('hyprof'));
}
