/* Reading a trace file the runtime wrote (native/core/trace.c; layout in docs/raw-format.md,
 * "Trace file"): its blocks checked (magic, length, CRC), and each thread's records put back in
 * order: per thread and gen the RECORDS block, else the longest SNAPSHOT. A damaged file is refused
 * with its name and the offset; a file cut short at its end (a run killed while writing) is read up
 * to its last whole block, and the loss said. */
#ifndef HP_TRACE_FILE_H
#define HP_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct tf_event {
  uint32_t id;
  uint8_t kind;
  uint32_t base;
  char *name;
  char *group;
} tf_event;

/* One thread's records, in order: `n` records of `words` 8-byte words each (time, event | kind << 56,
 * then the extra metric values). */
typedef struct tf_thread {
  uint32_t index;
  uint32_t tid;
  uint64_t *rec;
  size_t n;
  uint64_t end_ns;       /* when its open regions end (0: unknown, its last record's time is used) */
  int ended;             /* its last block says the thread ended */
  int closed_by_dump;    /* a dump (exit, flush, signal) wrote its end */
  uint64_t lost;         /* records the runtime could not write (counted by it) */
  uint32_t missing_blocks; /* blocks of it not in the file (before its last one) */
  int ran_after_dump;    /* records after the last dump's snapshot: the run went on, then ended unseen */
} tf_thread;

typedef struct tf_file {
  const char *path;
  uint32_t extra;        /* extra metric values per record */
  int64_t pid;
  uint64_t start_wall_ns;
  tf_thread *threads;
  size_t n_threads;
  tf_event *events;      /* by id; name NULL when the file does not define it */
  size_t n_events;
  uint64_t cut_bytes;    /* bytes at its end that are not a whole block */
} tf_file;

/* Read and check `path`. On failure returns -1 with a one-line message in err. */
int tf_read(const char *path, tf_file *f, char *err, size_t cap);
void tf_free(tf_file *f);

#endif
