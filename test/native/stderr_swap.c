/* A program that closes its stderr and opens a data file, which gets descriptor 2 (test/stderr.test.ts).
 * hyprof's warnings (a misuse after the swap, in the parent and in a forked child) and the at-exit
 * resolver's line must go to the stderr the program started with, never into the data file.
 * With a second file, the program then also closes every other descriptor and puts that file on
 * descriptor 200 (where hyprof keeps its copy of stderr): nothing of hyprof's may go there either.
 * Usage: stderr_swap DATA_FILE [SECOND_FILE] */
#include <fcntl.h>
#include <hyprof.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  hyprof_start_named("before the swap");
  hyprof_stop_named("before the swap");
  close(2);
  int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd != 2) return 3;
  static const char data[] = "program data\n";
  if (write(2, data, strlen(data)) < 0) return 4;
  if (argc > 2) {
    for (int d = 3; d < 1024; d++) close(d);
    int second = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (second < 0 || dup2(second, 200) != 200) return 5;
    close(second);
    static const char more[] = "second data\n";
    if (write(200, more, strlen(more)) < 0) return 6;
  }
  hyprof_start_named("outer");
  hyprof_stop_named("not running");   /* a misuse: hyprof warns */
  hyprof_stop_named("outer");
  pid_t child = fork();
  if (child == 0) {
    hyprof_stop_named("not running in the child");
    return 0;   /* the child resolves its own profile at exit too */
  }
  int status;
  waitpid(child, &status, 0);
  printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
