/* Thread states: creation on first use, numbering in order of first appearance, the registry list
 * the dump walks, thread end and the compaction of an ended thread's state, and the fork child's
 * reset.
 *
 * An ended thread stays in the profile, so its state is kept for the dump; what only a running
 * thread needs is released at its end: the context stack shrinks to its open frames (usually the
 * root alone), the statistics table to its used size, the replaced tables go, and each module
 * releases its own part (module.h, thread_compact). A dump on another thread (hyprof_flush, the
 * exit dump) or in a signal handler may be reading the old memory meanwhile: it is retired, and
 * released only when no dump is running (hp_thread_retire below). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "events.h"
#include "module.h"
#include "runtime.h"
#include "metrics.h"
#include "fold.h"
#include "stats.h"
#include "trace.h"

__thread hp_thread *hp_tls_thread __attribute__((tls_model("initial-exec")));
__thread void *hp_tls_start_routine __attribute__((tls_model("initial-exec")));
static hp_thread *thread_list;
/* In a fork child: the parent's thread list, before and after the forking thread (cut from it). */
static hp_thread *volatile left_by_fork[2];   /* volatile: written only, never optimised away */
static uint32_t next_index;
static pthread_key_t end_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* Memory handed to hp_thread_retire, released once no dump is running. A dump reads a thread's
 * memory through the pointers it loads after it took the dump (dump.c, `dumping`); memory is
 * retired after the pointers to it were replaced. So a dump that is not running when the retired
 * list was taken (hp_dump_idle, dump.c says why that is enough) either ended or starts after the
 * replacement and never sees the old memory: everything taken can go. Otherwise it waits for a
 * later call. */
typedef struct hp_retired {
  struct hp_retired *next;
  void *p;
  size_t len;
  void (*release)(void *p, size_t len);
} retired;
static retired *volatile retired_list;   /* reachable: a leak checker sees it kept, not lost */

static void push_retired(retired *first, retired *last) {
  retired *head = __atomic_load_n(&retired_list, __ATOMIC_RELAXED);
  do last->next = head;
  while (!__atomic_compare_exchange_n(&retired_list, &head, first, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

void hp_thread_release_retired(void) {
  /* Taken first, then the check: memory retired after the check is not in what was taken. */
  retired *all = __atomic_exchange_n(&retired_list, NULL, __ATOMIC_ACQ_REL);
  if (!all) return;
  if (!hp_dump_idle()) {
    retired *last = all;
    while (last->next) last = last->next;
    push_retired(all, last);
    return;
  }
  while (all) {
    retired *r = all;
    all = r->next;
    if (r->release) r->release(r->p, r->len);
    else free(r->p);
    free(r);
  }
}

retired *hp_thread_retire_record(void) { return malloc(sizeof(retired)); }

void hp_thread_retire(retired *r, void *p, size_t len, void (*release)(void *p, size_t len)) {
  r->p = p;
  r->len = len;
  r->release = release;
  push_retired(r, r);
}

/* The entry stack address of a thread whose state is made after its start (hp_thread_remember_entry). */
static __thread uintptr_t entry_remembered;

hp_thread *hp_thread_current(void) { return hp_tls_thread; }
void hp_thread_remember_entry(uintptr_t entry_stack_addr) { entry_remembered = entry_stack_addr; }
hp_thread *hp_thread_list(void) { return __atomic_load_n(&thread_list, __ATOMIC_ACQUIRE); }

static void on_thread_exit(void *p) { hp_thread_end(p); }
static void make_key(void) { pthread_key_create(&end_key, on_thread_exit); }

hp_thread *hp_thread_create(uintptr_t entry_stack_addr) {
  if (hp_tls_thread) return hp_tls_thread;
  if (!hp_init()) return NULL;
  hp_thread *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->frames = calloc(HP_MAX_FRAMES, sizeof(hp_frame));
  t->frame_cap = HP_MAX_FRAMES;
  t->name_cache = calloc(1, sizeof *t->name_cache);
  if (!t->frames || !t->name_cache || !hp_stat_init(t)) {
    free(t->name_cache);
    free(t->frames);
    free(t);
    return NULL;
  }
  t->in_tool = 1;
  t->tid = (pid_t)syscall(SYS_gettid);
  /* The name it inherited from its creator: a name equal to it was not given to this thread. */
  if (prctl(PR_GET_NAME, t->born_comm) != 0) t->born_comm[0] = '\0';
  t->start_ns = hp_wall_ns();
  if (!entry_stack_addr) entry_stack_addr = entry_remembered;
  t->entry_stack_addr = entry_stack_addr;
  hp_frame *root = &t->frames[0];
  root->event = hp_rt.root_event;
  root->param_event = HP_NO_EVENT;
  root->base_context = root->context = hp_context_hash(0, hp_rt.root_event);
  root->start_ns = hp_now_ns();
  root->stack_addr = entry_stack_addr;
  t->top = 0;
  t->index = __atomic_fetch_add(&next_index, 1, __ATOMIC_RELAXED);
  hp_metrics_thread_start(t);
  hp_schedstat_thread_start(t);
  hp_fold_thread_start(t);
  hp_tls_thread = t;
  pthread_once(&key_once, make_key);
  pthread_setspecific(end_key, t);
  /* Listing and the modules' thread_start under the module lock: a module registered late calls
   * its thread_start for the listed threads, so each thread gets it exactly once (module.h). */
  hp_modules_lock();
  hp_thread *head = __atomic_load_n(&thread_list, __ATOMIC_RELAXED);
  do t->next = head;
  while (!__atomic_compare_exchange_n(&thread_list, &head, t, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
  hp_trace_thread_start(t);
  hp_modules_thread_start(t);
  hp_modules_unlock();
  hp_tool_leave(t);
  return t;
}

/* Read a small /proc file into out (at most cap-1 bytes, the trailing newline dropped). open, read
 * and close only: async-signal-safe. Returns the length, or -1. */
int hp_read_small_file(const char *path, char *out, size_t cap) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, out, cap - 1);
  close(fd);
  if (n < 0) return -1;
  while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\0')) n--;
  out[n] = '\0';
  return (int)n;
}

/* "/proc/self/task/<tid>/<leaf>" into path (64 bytes; leaf at most 16), built by hand: snprintf is
 * not async-signal-safe. */
void hp_task_file_path(pid_t tid, const char *leaf, char path[64]) {
  size_t at = sizeof "/proc/self/task/" - 1;
  memcpy(path, "/proc/self/task/", at);
  char digits[16];
  int nd = 0;
  unsigned long v = (unsigned long)tid;
  do digits[nd++] = (char)('0' + v % 10);
  while ((v /= 10) && nd < (int)sizeof digits);
  while (nd > 0) path[at++] = digits[--nd];
  path[at++] = '/';
  size_t n = strlen(leaf);
  if (n > 16) n = 16;
  memcpy(path + at, leaf, n);
  path[at + n] = '\0';
}

int hp_thread_os_name(const hp_thread *t, char *out, size_t cap) {
  if (!hp_rt.process_comm[0] || cap < 2) return 0;
  char path[64];
  hp_task_file_path(t->tid, "comm", path);
  char comm[32];
  if (hp_read_small_file(path, comm, sizeof comm) <= 0) return 0;
  if (strcmp(comm, hp_rt.process_comm) == 0 || strcmp(comm, t->born_comm) == 0) return 0;
  size_t n = strlen(comm);
  if (n >= cap) n = cap - 1;
  memcpy(out, comm, n);
  out[n] = '\0';
  return 1;
}

/* The context stack (and the extra metrics' frames) with room for `cap` frames, the open ones
 * copied; the old ones retired. Returns 0, changing nothing, when memory could not be had. */
static int resize_frames(hp_thread *t, int32_t cap) {
  int32_t top = t->top;
  hp_frame *frames = calloc((size_t)cap, sizeof(hp_frame));
  void *mframes = frames && t->mframes ? hp_metrics_frames_copy(t, cap) : NULL;
  retired *r = hp_thread_retire_record(), *rm = t->mframes ? hp_thread_retire_record() : NULL;
  if (!frames || !r || (t->mframes && (!mframes || !rm))) {
    free(frames);
    free(mframes);
    free(r);
    free(rm);
    return 0;
  }
  hp_frame *old = t->frames;
  void *old_m = t->mframes;
  memcpy(frames, old, (size_t)(top + 1) * sizeof(hp_frame));
  /* A dump on another thread reads the stack meanwhile (dump.c, collect_open): inside a write, so
   * that a reading across the change is read again, and in the order that keeps each reading within
   * the memory it loaded: a stack that grows is published before its capacity rises, one that
   * shrinks after its capacity falls. The thread's own signal handler reads frames[top] only. */
  uint32_t seq = hp_write_begin(t);
  if (cap < t->frame_cap) __atomic_store_n(&t->frame_cap, cap, __ATOMIC_RELEASE);
  __atomic_store_n(&t->frames, frames, __ATOMIC_RELEASE);
  if (mframes) __atomic_store_n(&t->mframes, mframes, __ATOMIC_RELEASE);
  __atomic_store_n(&t->frame_cap, cap, __ATOMIC_RELEASE);
  hp_write_end(t, seq);
  hp_thread_retire(r, old, 0, NULL);
  if (old_m) hp_thread_retire(rm, old_m, 0, NULL);
  return 1;
}

int hp_thread_frames_regrow(hp_thread *t) {
  if (t->frame_cap >= HP_MAX_FRAMES || !resize_frames(t, HP_MAX_FRAMES)) return 0;
  __atomic_store_n(&t->kept_bytes, t->kept_bytes + (uint64_t)HP_MAX_FRAMES * sizeof(hp_frame), __ATOMIC_RELAXED);
  hp_thread_release_retired();
  return 1;
}

/* An ended thread keeps what the dump writes (see the file comment). On the thread, inside the
 * tool. A resize that finds no memory leaves that part as it was. */
static void compact(hp_thread *t) {
  uint64_t kept = sizeof *t;
  hp_name_cache *nc = t->name_cache;   /* this thread's alone: no dump reads it */
  t->name_cache = NULL;
  free(nc);
  if (resize_frames(t, t->top + 1)) t->compacted = 1;
  kept += (uint64_t)t->frame_cap * (sizeof(hp_frame) + (t->mframes ? hp_metrics_frame_size() : 0));
  kept += hp_stat_compact(t);
  /* The user-event tables user_stats replaced: only a dump that loaded one before may read it. */
  for (unsigned k = 0; k < sizeof t->user_retired / sizeof *t->user_retired; k++) {
    retired *r = t->user_retired[k] ? hp_thread_retire_record() : NULL;
    if (!r) continue;
    hp_thread_retire(r, t->user_retired[k], 0, NULL);
    t->user_retired[k] = NULL;
  }
  kept += (uint64_t)t->user_capacity * sizeof(hp_user_stat);
  for (uint32_t i = 0; i < t->n_warnings && i < HP_MAX_WARNINGS; i++) kept += strlen(t->warnings[i]) + 1;
  kept += hp_modules_thread_compact(t);
  hp_trace_thread_compact(t);
  __atomic_store_n(&t->kept_bytes, kept, __ATOMIC_RELAXED);   /* a dump may read it meanwhile */
  hp_thread_release_retired();
}

void hp_thread_end(hp_thread *t) {
  if (!t || t->ended) return;
  hp_tool_enter(t);
  /* The name the program gave the thread with pthread_setname_np, while the thread still exists. */
  if (!t->name[0]) hp_thread_os_name(t, t->name, sizeof t->name);
  hp_modules_thread_end(t);
  hp_metrics_thread_end(t);
  hp_schedstat_thread_end(t);
  t->stop_ns = hp_wall_ns();
  /* Close the timers still open at the thread's end: they are counted as closed then. */
  t->stop_mono_ns = hp_now_ns();
  hp_trace_thread_end(t);
  __atomic_store_n(&t->ended, 1, __ATOMIC_RELEASE);
  compact(t);
  hp_tool_leave(t);
}

void hp_thread_after_fork_child(void) {
  hp_thread *self = hp_tls_thread;
  /* Only the forking thread exists in the child; the others' states stay allocated but unlisted,
   * reachable from left_by_fork (a leak checker sees them kept, not lost). */
  left_by_fork[0] = __atomic_load_n(&thread_list, __ATOMIC_RELAXED);
  left_by_fork[1] = self ? self->next : NULL;
  __atomic_store_n(&thread_list, self, __ATOMIC_RELAXED);
  next_index = 1;
  if (!self) {
    hp_trace_fork_child(NULL);
    hp_modules_fork_child(NULL);
    return;
  }
  self->next = NULL;
  self->index = 0;
  self->tid = (pid_t)syscall(SYS_gettid);
  self->start_ns = hp_wall_ns();
  hp_stat_clear(self);
  self->n_warnings = 0;
  self->warnings_not_kept = 0;
  self->drops_alloc = self->drops_depth = 0;
  hp_fold_fork_child(self);
  uint64_t now = hp_now_ns();
  self->detached_ns = 0;
  /* The open timers go on in the child, measured from the fork. */
  for (int32_t i = 0; i <= self->top; i++) {
    hp_frame *f = &self->frames[i];
    f->start_ns = now;
    f->detached_at_push = f->detached_at_param = f->sub_ns = f->sub_at_param = 0;
    f->child_ns = f->child_ns_at_param = 0;
    f->child_calls = f->child_calls_at_param = 0;
    if (f->param_event != HP_NO_EVENT) f->param_start_ns = now;
  }
  hp_metrics_fork_child(self);
  hp_schedstat_thread_start(self); /* the child's account starts at 0, not at the parent's */
  hp_schedstat_idle_start();
  hp_trace_fork_child(self);
  hp_modules_fork_child(self);
}

void hp_thread_warn(hp_thread *t, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* Print each distinct text once per thread; keep up to HP_MAX_WARNINGS texts for the profile. */
  for (uint32_t i = 0; i < t->n_warnings; i++)
    if (strcmp(t->warnings[i], msg) == 0) return;
  if (t->n_warnings < HP_MAX_WARNINGS) {
    char *copy = strdup(msg);
    if (copy) {
      t->warnings[t->n_warnings++] = copy;
      hp_warn("%s", msg);
      return;
    }
  }
  t->warnings_not_kept++;
  if (t->warnings_not_kept == 1) hp_warn("%s (further warnings on this thread are counted, not printed)", msg);
}
