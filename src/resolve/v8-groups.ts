/**
 * V8's own work named as such in samples of Node programs, as `node --cpu-prof` names it: the part
 * of a stack from the entry of the garbage collector (or of the compiler) down to the sampled leaf
 * becomes one frame, `(garbage collector)` (or `(compile)`), under the JavaScript or native frames
 * that led there. Without it a collection shows as hundreds of V8 internals (scavenger visitors,
 * marking, the lock that hands its parallel tasks to helper threads) scattered over the profile.
 *
 * Recognised by the C++ names of V8's entry points in node's symbols (node ships them; a stripped
 * node leaves these frames UNRESOLVED and nothing is grouped).
 */

export const GC_GROUP = '(garbage collector)';
export const COMPILE_GROUP = '(compile)';

const GC =
  /\bv8::internal::(Heap::(CollectGarbage|CollectAllGarbage|CollectAllAvailableGarbage|PerformGarbageCollection|StartIncrementalMarking|FinalizeIncrementalMarking\w*|HandleGCRequest|PerformSharedGarbageCollection)|(Scavenger|ScavengerCollector|MarkCompactCollector|MinorMarkCompactCollector|MinorGCJob|IncrementalMarking|IncrementalMarkingJob|ConcurrentMarking|Sweeper|ArrayBufferSweeper|ScavengeJob|MemoryReducer)::)/;
const COMPILE =
  /\bv8::internal::(Compiler::|Runtime_Compile\w*|Runtime_InstallBaselineCode|Runtime_FunctionFirstExecution|parsing::|Parser::|ParserBase<|PreParser::|Scanner::|interpreter::(Interpreter|BytecodeGenerator|InterpreterCompilationJob)|baseline::|maglev::|compiler::|OptimizingCompileDispatcher::|BaselineBatchCompiler::|CodeGenerator::)|^Builtins_CompileLazy$/;

/** The group of one native frame's function, or null when it is none of V8's grouped work. */
export function v8GroupOf(fn: string): string | null {
  const name = fn.split('(', 1)[0];
  if (GC.test(name)) return GC_GROUP;
  if (COMPILE.test(name)) return COMPILE_GROUP;
  return null;
}

/**
 * Where a sample's V8 group starts (frames innermost first), looking only at the frames above the
 * innermost JavaScript frame (V8 working for that code: a JavaScript frame further out is the code
 * that led there, and a group frame beyond it is not what runs now): `at`, the outermost group frame
 * there (everything from it down to the leaf is V8's work), and `group`, the innermost one's (what
 * ran when the sample was taken: a collection the compiler's allocation started is the garbage
 * collector's time, as V8's own profiler counts it). Null when no such frame is in a group.
 * `js`: the innermost JavaScript frame, null when the chain has none (cut by the unwind depth, or
 * V8 working for no JavaScript: the compile of a script's top level called from C++).
 * `isJs(i)`: frame i is a JavaScript function.
 */
export function v8GroupEntry(
  functions: Array<string | null>,
  isJs: (i: number) => boolean = () => false,
): { at: number; group: string; js: number | null } | null {
  let at = -1;
  let group: string | null = null;
  let i = 0;
  for (; i < functions.length && !isJs(i); i++) {
    const fn = functions[i];
    const g = fn === null ? null : v8GroupOf(fn);
    if (!g) continue;
    at = i;
    group ??= g;
  }
  return group ? { at, group, js: i < functions.length ? i : null } : null;
}

/**
 * How many innermost frames a sample in V8's group `g` loses, and whether the group frame takes
 * their place. Compilation is the own time of the JavaScript function it was done for (the function
 * that called the one being compiled lazily, or that asked for a script, `eval` or `new Function` to
 * be compiled), as `node --cpu-prof` counts it; when the chain reaches no JavaScript frame it stays
 * `(compile)`. The garbage collector's time stays `(garbage collector)`, as `--cpu-prof` shows it.
 */
export function v8GroupFold(g: { at: number; group: string; js: number | null }): { drop: number; named: boolean } {
  if (g.group === COMPILE_GROUP && g.js !== null) return { drop: g.js, named: false };
  return { drop: g.at + 1, named: true };
}

/** V8's builtins and stubs: from node's embedded blob (`Builtins_LoadIC`) or named in a perf map
 * (`Builtin:LoadIC`, `BytecodeHandler:Star0`, `Stub:...`). */
export function isV8Builtin(fn: string): boolean {
  return /^Builtins_/.test(fn) || /^(Builtin|BytecodeHandler|Stub|Handler|RegExp):/.test(fn);
}

/**
 * How many innermost frames are V8 builtins run for the JavaScript function under them (property
 * loads, calls, comparisons): their time is that function's own time, as `node --cpu-prof` counts
 * it. 0 when the first frame that is no builtin is not JavaScript (a builtin called from C++ stays).
 * `isJs(i)`: frame i is a JavaScript function.
 */
export function builtinsOfJsCaller(functions: Array<string | null>, isJs: (i: number) => boolean): number {
  let n = 0;
  while (n < functions.length && functions[n] !== null && isV8Builtin(functions[n]!)) n++;
  return n > 0 && n < functions.length && isJs(n) ? n : 0;
}
