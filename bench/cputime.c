/* Run a command and report what it cost: wall seconds from fork to exit, and the user + system CPU
 * seconds of the process and everything it waited for (wait4's rusage), which a loaded machine
 * disturbs far less than wall time. Used by bench/lib.ts.
 *
 * Usage: cputime OUTFILE COMMAND [ARGS...]
 * Writes "<wall s> <cpu s>" to OUTFILE; exits with the command's status (128 + signal if killed). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: cputime OUTFILE COMMAND [ARGS...]\n");
    return 2;
  }
  double t0 = mono_s();
  pid_t pid = fork();
  if (pid < 0) {
    perror("cputime: fork");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    perror("cputime: exec");
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) {
    perror("cputime: wait4");
    return 2;
  }
  double wall = mono_s() - t0;
  double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
               (double)ru.ru_stime.tv_usec * 1e-6;
  FILE *out = fopen(argv[1], "w");
  if (!out) {
    perror("cputime: OUTFILE");
    return 2;
  }
  fprintf(out, "%.6f %.6f\n", wall, cpu);
  fclose(out);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}
