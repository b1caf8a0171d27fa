/* A forked child keeps measuring into its own file; the parent's data is not copied into it. */
#include <hyprof.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile double sink;

int main(void) {
  hyprof_start_named("before fork");
  for (int i = 0; i < 10000; i++) sink += i;
  hyprof_stop_named("before fork");
  hyprof_start_named("around fork");
  pid_t pid = fork();
  if (pid == 0) {
    for (int k = 0; k < 3; k++) {
      hyprof_start_named("child work");
      for (int i = 0; i < 10000; i++) sink += i;
      hyprof_stop_named("child work");
    }
    hyprof_stop_named("around fork");
    exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  hyprof_start_named("parent work");
  hyprof_stop_named("parent work");
  hyprof_stop_named("around fork");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
