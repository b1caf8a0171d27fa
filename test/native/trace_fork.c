/* Forks under tracing: system() (a fork-and-exec of a shell that enters no timer), a child that
 * works and exits normally (its own raw and trace files), a child that leaves by _exit (no dump: no
 * files). Prints the working child's pid. */
#include <hyprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  hyprof_start_named("outer");
  int rc = system("true");
  pid_t p = fork();
  if (p == 0) {
    hyprof_start_named("child work");
    hyprof_stop_named("child work");
    exit(0);
  }
  printf("%d\n", (int)p);
  fflush(stdout);
  waitpid(p, NULL, 0);
  pid_t q = fork();
  if (q == 0) _exit(0);
  waitpid(q, NULL, 0);
  hyprof_stop_named("outer");
  return rc;
}
