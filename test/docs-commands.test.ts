/**
 * Every command line the README and docs/*.md show in their ```sh blocks runs, as written, in a fresh
 * clone of the repository, as a new user types it: the lines are read from the files here (so they
 * cannot drift from what is tested) and run one by one, in order, in one shell per file (an `export`
 * carries over, as in a terminal), from the clone's root, with `npx hyprof` as the docs write it.
 *
 * The clone is `git clone` of this repository plus the working tree's changes (tracked files that
 * differ, untracked files not ignored), so uncommitted docs are tested too. What cannot run here as
 * written is in COMMANDS below, each with its reason: a line skipped, or a word replaced. The
 * placeholders the docs use (app.c, app.f90, select.tau, prof) are real files and directories: a
 * small C program (with MPI when built by mpicc), a Fortran one and a select file.
 *
 * The README's first command builds the checkout (npm ci: 2 minutes of native build on this
 * machine); here the clone gets this checkout's node_modules, build/ and dist/ instead (the rest of
 * the suite tests that build), and the rest of the line runs as written. Then nothing typed after
 * it may rebuild or delete the build: build/Release/libhyprof.so and dist/src/cli/main.js keep their
 * modification times through every line (npx in the package's own directory runs the package's
 * install scripts: scripts/npx-in-checkout.sh).
 */
import test from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { assertConformant } from './helpers/conformance.js';
import { repoRoot, tmpDir } from './helpers/native.js';

interface CommandLine {
  file: string;
  /** The line of the block's opening fence: the lines of one block run in one shell. */
  block: number;
  line: number;
  text: string;
}

/** The lines of ```sh blocks (a trailing `\` joins the next line); comments and blank lines left out. */
export function commandLines(file: string, markdown: string): CommandLine[] {
  const out: CommandLine[] = [];
  let inFence = false;
  let inSh = false;
  let block = 0;
  let pending: CommandLine | null = null;
  markdown.split('\n').forEach((raw, i) => {
    const fence = /^```(\S*)/.exec(raw);
    if (fence) {
      inFence = !inFence;
      inSh = inFence && ['sh', 'bash', 'shell'].includes(fence[1]);
      block = i + 1;
      return;
    }
    if (!inSh) return;
    const text = pending ? `${pending.text}\n${raw}` : raw;
    const start = pending ?? { file, block, line: i + 1, text: '' };
    if (/\\$/.test(raw)) {
      pending = { ...start, text };
      return;
    }
    pending = null;
    if (text.trim() && !text.trim().startsWith('#')) out.push({ ...start, text });
  });
  return out;
}

/** What cannot run here as written, and why. `skip`: the line is not run; `replace`: words changed. */
interface Special {
  file: string;
  match: RegExp;
  reason: string;
  skip?: true;
  replace?: Array<[RegExp, string]>;
  before?: string;
}

const COMMANDS: Special[] = [
  {
    file: 'README.md',
    match: /^bash scripts\/install-deps\.sh && npm ci && npm run example$/,
    replace: [[/npm ci/, 'true']],
    reason: "npm ci is replaced by this checkout's node_modules, build/ and dist/ (copied into the clone): the native build takes minutes and the rest of the suite tests it",
  },
  { file: 'README.md', match: /^npm test$/, skip: true, reason: 'the whole suite, which this test is part of' },
  {
    file: '*',
    match: /\.\/app args\.\.\./,
    replace: [[/ args\.\.\./, '']],
    reason: '"args..." stands for the program\'s own arguments',
  },
  {
    file: 'docs/instrumentation.md',
    match: /^make CC="\$\(npx hyprof config --wrapper cc\)"/,
    skip: true,
    reason: "the user's own make: here it would be the repository's Makefile; test/cc-wrapper.test.ts runs the wrappers and config --wrapper",
  },
  {
    file: 'docs/install.md',
    match: /^npm ci && bash scripts\/build-sea\.sh/,
    replace: [[/^npm ci && /, '']],
    reason: 'npm ci is done once for the clone (see the README line)',
  },
  {
    file: 'docs/install.md',
    match: /^build\/sea\/hyprof resolve hyprof\.\*\.raw/,
    before: 'HYPROF_RESOLVE=0 ./app',
    reason: 'the raw files it resolves are those of a run that left them (HYPROF_RESOLVE=0), as on a machine without Node',
  },
  {
    file: 'docs/mpi.md',
    match: /^mpirun -np 1024 /,
    replace: [[/-np 1024/, '-np 4']],
    reason: '1,024 ranks stand for a large job; 4 oversubscribed ranks on this machine (test/mpi-node-step.test.ts runs the step on 4 emulated nodes)',
  },
  {
    file: 'docs/view-export.md',
    match: /^flamegraph\.pl --countname=us /,
    skip: true,
    reason: "flamegraph.pl is the user's own (no Debian package ships it); the line above writes its input, and the export tests read that format",
  },
];

/** The placeholders the docs name, as real files in the clone's root. */
const APP_C = `/* The docs' app.c: a few timers, a parameter and a phase; an MPI program when mpicc builds it. */
#include <stdio.h>
#if __has_include(<mpi.h>)
#include <mpi.h>
#define WITH_MPI 1
#endif
#if __has_include(<hyprof.h>)
#include <hyprof.h>
#else
#define hyprof_phase_start(n)
#define hyprof_phase_stop(n)
#define hyprof_start_named(n)
#define hyprof_stop_named(n)
#define hyprof_param(n, v)
#endif

static double compute(int n) {
  double s = 0;
  for (int i = 0; i < n * 100000; i++) s += i * 0.5;
  return s;
}

int main(int argc, char **argv) {
#ifdef WITH_MPI
  MPI_Init(&argc, &argv);
#endif
  (void)argc, (void)argv;
  double s = 0;
  for (int it = 0; it < 3; it++) {
    hyprof_phase_start("Iteration");
    hyprof_start_named("solve");
    hyprof_param("n", it + 1);
    s += compute(it + 1);
    hyprof_stop_named("solve");
    hyprof_phase_stop("Iteration");
  }
#ifdef WITH_MPI
  double all = 0;
  MPI_Allreduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
#endif
  printf("%g\\n", s);
  return 0;
}
`;

const APP_F90 = `! The docs' app.f90: the hyprof module's timers.
program app
  use hyprof
  implicit none
  type(hyprof_event_t) :: solve
  integer :: i
  real(8) :: s = 0
  solve = hyprof_event('solve')
  call hyprof_start(solve)
  do i = 1, 3000000
    s = s + i * 0.5d0
  end do
  call hyprof_stop(solve)
  print *, s
end program app
`;

const SELECT_TAU = `# The docs' select.tau
BEGIN_EXCLUDE_LIST
"#compute#"
END_EXCLUDE_LIST
`;

/** A copy of the working tree as a fresh clone sees it (committed files plus the changes). */
function freshClone(): { clone: string; home: string; env: NodeJS.ProcessEnv; builtTimes: number[] } {
  const top = tmpDir('docs-commands');
  const clone = join(top, 'hyprof');
  const git = (args: string[], cwd = repoRoot) => {
    const r = spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  git(['clone', '-q', repoRoot, clone]);
  const changed = [...git(['diff', '--name-only', 'HEAD']).split('\n'), ...git(['ls-files', '--others', '--exclude-standard']).split('\n')];
  for (const f of changed.filter(Boolean)) {
    if (!existsSync(join(repoRoot, f))) continue;
    mkdirSync(dirname(join(clone, f)), { recursive: true });
    cpSync(join(repoRoot, f), join(clone, f));
  }
  // npm ci's result (see COMMANDS).
  for (const d of ['node_modules', 'build', 'dist']) cpSync(join(repoRoot, d), join(clone, d), { recursive: true, verbatimSymlinks: true });
  writeFileSync(join(clone, 'app.c'), APP_C);
  writeFileSync(join(clone, 'app.f90'), APP_F90);
  writeFileSync(join(clone, 'select.tau'), SELECT_TAU);
  const home = join(top, 'home');
  mkdirSync(home);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // $HOME/hyprof is where the docs install to; npx's cache is the user's, under it.
    HOME: home,
    npm_config_cache: join(home, '.npm'),
    // Open MPI as the tests run it: as root, on fewer cores than ranks, shared memory only.
    OMPI_ALLOW_RUN_AS_ROOT: '1',
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1',
    OMPI_MCA_rmaps_base_oversubscribe: '1',
    OMPI_MCA_btl: 'self,vader',
  };
  // npm's own settings for the test run (npm_config_* of the npm that started ava) stay out.
  for (const k of Object.keys(env)) if (/^npm_(?!config_cache$)/.test(k)) delete env[k];
  return { clone, home, env, builtTimes: builtTimes(clone) };
}

const built = ['build/Release/libhyprof.so', 'dist/src/cli/main.js'];
const builtTimes = (clone: string) => built.map((f) => statSync(join(clone, f)).mtimeMs);
let setup: ReturnType<typeof freshClone> | undefined;

/** Run the command lines of one block in one bash, in order; the output, and the line that failed. */
async function runBlock(lines: CommandLine[]): Promise<{ log: string; failed: string | null; ran: number; skipped: string[] }> {
  setup ??= freshClone();
  const { clone, env } = setup;
  let script = 'set -o pipefail\n';
  let ran = 0;
  const skipped: string[] = [];
  for (const l of lines) {
    const special = COMMANDS.find((c) => (c.file === '*' || c.file === l.file) && c.match.test(l.text));
    const where = `${l.file}:${l.line}`;
    if (special?.skip) {
      skipped.push(`${where} ${l.text} (${special.reason})`);
      continue;
    }
    let text = l.text;
    for (const [from, to] of special?.replace ?? []) text = text.replace(from, to);
    if (special?.before) script += `${special.before} >/dev/null 2>&1 || { echo "@@ FAILED ${where} (before: ${special.before})" >&2; exit 1; }\n`;
    script += `echo "@@ ${where} ($(date +%T)): $(cat <<'HYPROF_LINE'\n${text}\nHYPROF_LINE\n)" >&2\n${text}\n`;
    script += `rc=$?; if [ $rc -ne 0 ]; then echo "@@ FAILED ${where} rc=$rc" >&2; exit 1; fi\n`;
    ran++;
  }
  const r = await runOnly('bash', ['-c', script], { cwd: clone, env, timeoutMs: 280_000 });
  const log = `${r.stdout}\n${r.stderr}`;
  const failed = /@@ FAILED (\S+)/.exec(r.stderr)?.[1] ?? (r.code !== 0 ? `bash exited ${r.code} ${r.signal ?? ''}` : null);
  return { log, failed, ran, skipped };
}

function runOnly(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }) {
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}

function docs(): string[] {
  return ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

const blocks = (file: string): CommandLine[][] => {
  const byBlock = new Map<number, CommandLine[]>();
  for (const l of commandLines(file, readFileSync(join(repoRoot, file), 'utf8'))) byBlock.set(l.block, [...(byBlock.get(l.block) ?? []), l]);
  return [...byBlock.values()];
};

test('the command lines are found: each README section that shows commands has some', (t) => {
  const readme = commandLines('README.md', readFileSync(join(repoRoot, 'README.md'), 'utf8')).map((l) => l.text);
  t.true(readme.some((l) => l.startsWith('bash scripts/install-deps.sh')), readme.join('\n'));
  t.true(readme.some((l) => l.includes('npx hyprof run -- ./app')));
  t.true(readme.length >= 15, `${readme.length} lines`);
  // A continued line is one command; each block is its own.
  t.deepEqual(commandLines('x.md', '```sh\na \\\n  b\nc\n```\n```js\nnot(this)\n```\n```sh\nd\n```\n').map((l) => [l.block, l.line, l.text]), [
    [1, 2, 'a \\\n  b'],
    [1, 4, 'c'],
    [9, 10, 'd'],
  ]);
  // Every allow-list entry still matches a line (an entry for a line that is gone is a stale reason).
  const all = docs().flatMap((f) => commandLines(f, readFileSync(join(repoRoot, f), 'utf8')));
  for (const c of COMMANDS) t.true(all.some((l) => (c.file === '*' || c.file === l.file) && c.match.test(l.text)), `unused: ${c.match}`);
});

// In the order a reader meets them: the README first (its first block builds the clone), then docs/.
for (const file of docs()) {
  for (const lines of blocks(file)) {
    test.serial(`${file}, the commands at line ${lines[0].block}: they run as written in the clone`, async (t) => {
      const r = await runBlock(lines);
      t.is(r.failed, null, r.log.slice(-6000));
      t.log(`${r.ran} lines run${r.skipped.length ? `; skipped: ${r.skipped.join('; ')}` : ''}`);
    });
  }
}

test.serial('what the README left: the example, profiles, the ranks of the MPI lines, the C-only install', (t) => {
  if (!setup) return t.fail('the README lines did not run');
  const { clone, home } = setup;
  assertConformant(join(clone, 'examples', 'out', 'profile'));
  assertConformant(join(clone, 'prof'));
  t.true(readdirSync(join(clone, 'prof')).filter((f) => /^profile\.\d+\.0\.0$/.test(f)).length >= 4, 'four ranks');
  t.true(existsSync(join(home, 'hyprof', 'lib', 'pkgconfig', 'hyprof.pc')), 'make install PREFIX=$HOME/hyprof');
});

test.serial('nothing typed after the first command rebuilt or deleted the build', async (t) => {
  if (!setup) return t.fail('the README lines did not run');
  const { clone, env } = setup;
  // npx --no -- hyprof --version, as the README writes it, prints hyprof's version.
  const v = await runOnly('npx', ['--no', '--', 'hyprof', '--version'], { cwd: clone, env, timeoutMs: 120_000 });
  const version = (JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as { version: string }).version;
  t.is(v.stdout.trim(), version, v.stderr);
  t.deepEqual(builtTimes(clone), setup.builtTimes, 'build/Release/libhyprof.so and dist/src/cli/main.js as the first command left them');
});
