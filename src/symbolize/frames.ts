/**
 * What symbolization gives for one address. Inline chains are innermost first: frames[0] is the
 * function the instruction belongs to (possibly inlined), the last frame the real (out-of-line)
 * function that holds it; each frame's line is where control is in that function.
 */
export interface SourceFrame {
  function: string;
  /** Source file, or the module path when the module has symbols but no line information. */
  file: string;
  /** 0 when unknown. */
  line: number;
}

export type Resolution =
  /** module / buildId: the object file holding the address (absent for JIT code). */
  | { resolved: true; frames: SourceFrame[]; module?: string; buildId?: string }
  /** module: the module path, `[vdso]`, or `UNKNOWN` for an address outside every mapping. */
  | { resolved: false; module: string; address: bigint; buildId?: string };

export type SymbolizerTool = 'llvm-symbolizer' | 'addr2line';
export type SymbolizerChoice = 'auto' | SymbolizerTool;
