/* Memory the runtime keeps or frees on purpose: statistics tables grown several times on several
 * threads (an outgrown one is freed, or retired while a dump may be reading it), user-event tables
 * grown (the old ones stay for a dump that may be reading them), and
 * a fork child, where the parent's other threads' states stay allocated. Built with AddressSanitizer
 * + LeakSanitizer and linked with -lhyprof in sampling-sanitizers.test.ts: no leak may be reported,
 * and the output the program buffers must come out. */
#include <hyprof.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void *body(void *arg) {
  char name[32];
  for (int i = 0; i < 3000; i++) {   /* 3,000 contexts: the table grows from 256 slots 4 times */
    snprintf(name, sizeof name, "phase %d", i);
    (hyprof_start_named)(name);
    (hyprof_stop_named)(name);
  }
  for (int i = 0; i < 100; i++) {    /* 100 user events: their table grows from 16 3 times */
    snprintf(name, sizeof name, "value %d", i);
    hyprof_user_event_trigger(hyprof_user_event(name), i);
  }
  return arg;
}

int main(void) {
  pthread_t th[4];
  for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, body, NULL);
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  pid_t child = fork();
  if (child == 0) {
    body(NULL);
    printf("child done\n");   /* buffered: lost if the leak check ends the process first */
    return 0;
  }
  int status = 0;
  waitpid(child, &status, 0);
  body(NULL);
  printf("parent done, child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
