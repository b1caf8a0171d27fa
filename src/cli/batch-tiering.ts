/**
 * V8's tiering for hyprof's own process, set before the rest of hyprof is loaded (imported first by
 * main.ts and sea-main.ts). The measured program is never touched: this is hyprof's command.
 */
import { setFlagsFromString } from 'node:v8';

// V8 optimises a function (TurboFan, on other threads) once it has run through 3 interrupt budgets
// of 66 KB of bytecode. Most of hyprof's commands are batch jobs of a second or less, where that
// optimisation costs more CPU than it saves. Eight times the budget took the resolve of a Node
// program's raw file from 0.86 to 0.60 s of CPU and the TypeScript compiler's from 1.16 to 0.98 s,
// no slower by the clock; a resolve and a report of 2,000 ranks, several seconds each, cost the same
// (bench/RESULTS.md, "Node resolve"). A long job still optimises its hot code, a few ms later.
setFlagsFromString('--interrupt-budget=540672');
