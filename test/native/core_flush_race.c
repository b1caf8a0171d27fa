/* Flushes while another thread keeps entering contexts it has never entered before (a new parameter
 * value each time): every file written must still be complete and consistent. argv[1]: a directory
 * to copy each flushed raw file into (as flush-<k>.raw). */
#include <dirent.h>
#include <hyprof.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int stop;

static void *churn(void *arg) {
  hyprof_event_t e = hyprof_event("work", NULL);
  for (long i = 0; !stop; i++) {
    hyprof_start(e);
    hyprof_param("p", i);
    hyprof_stop(e);
  }
  return arg;
}

static void copy(const char *from, const char *to) {
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
  char buf[65536];
  size_t n;
  while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
  if (in) fclose(in);
  if (out) fclose(out);
}

int main(int argc, char **argv) {
  const char *raw_dir = getenv("HYPROF_RAW_DIR");
  pthread_t t;
  pthread_create(&t, NULL, churn, NULL);
  for (int k = 0; k < 12; k++) {
    hyprof_flush();
    DIR *d = opendir(raw_dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
      if (!strstr(de->d_name, ".raw") || strstr(de->d_name, ".tmp")) continue;
      char from[4096], to[4096];
      snprintf(from, sizeof from, "%s/%s", raw_dir, de->d_name);
      snprintf(to, sizeof to, "%s/flush-%02d.raw", argv[1], k);
      copy(from, to);
    }
    if (d) closedir(d);
  }
  stop = 1;
  pthread_join(t, NULL);
  return 0;
}
