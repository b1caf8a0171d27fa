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

/* One thread's records, in order: `n` records in `n_words` 8-byte words; each is its time, its word
 * (kind << 56 | more << 48 | value: an event id for ENTER / LEAVE) and `more` words (the extra metric
 * values of ENTER / LEAVE, the payload of the MPI kinds): tf_record_words gives a record's size. */
typedef struct tf_thread {
  uint32_t index;
  uint32_t tid;
  uint64_t *rec;
  size_t n;
  size_t n_words;
  uint64_t first_ns, last_ns; /* its first and last record's time (0 with none) */
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

/* Record kinds (native/core/trace.h, HP_TREC_*). */
enum {
  TF_ENTER = 1, TF_LEAVE = 2, TF_MPI_SEND = 3, TF_MPI_ISEND = 4, TF_MPI_ISEND_DONE = 5, TF_MPI_IRECV_REQUEST = 6,
  TF_MPI_RECV = 7, TF_MPI_IRECV = 8, TF_MPI_COLL_BEGIN = 9, TF_MPI_COLL_END = 10, TF_MPI_COMM = 11,
  /* OpenMP (HP_TREC_OMP_*, 12..23) */
  TF_OMP_FORK = 12, TF_OMP_JOIN = 13, TF_OMP_TEAM_BEGIN = 14, TF_OMP_TEAM_END = 15, TF_OMP_TASK_CREATE = 16,
  TF_OMP_TASK_SWITCH = 17, TF_OMP_TASK_COMPLETE = 18, TF_OMP_LOCK_ACQUIRE = 19, TF_OMP_LOCK_RELEASE = 20,
  TF_KINDS
};
/* The payload words of an OpenMP kind, -1 for another kind. */
static inline int tf_omp_words(uint32_t kind) {
  switch (kind) {
    case TF_OMP_FORK: case TF_OMP_JOIN: case TF_OMP_TEAM_END: case TF_OMP_LOCK_ACQUIRE: case TF_OMP_LOCK_RELEASE: return 1;
    case TF_OMP_TEAM_BEGIN: case TF_OMP_TASK_CREATE: case TF_OMP_TASK_SWITCH: case TF_OMP_TASK_COMPLETE: return 2;
    default: return -1;
  }
}
/* Samples (native/core/trace.h, HP_TREC_SAMPLE; kinds 24..31 are sampling's): value 0, then the
 * program counters of its frames, leaf first, 1..TF_SAMPLE_MAX_FRAMES of them (HP_TRACE_SAMPLE_FRAMES). */
enum { TF_SAMPLE = 24 };
#define TF_SAMPLE_MAX_FRAMES 8
/* Does a record of sampling's kinds (24..31) have the words its kind has? -1: not one of them. */
static inline int tf_sample_record_ok(uint32_t kind, uint32_t more) {
  if (kind == TF_SAMPLE) return more >= 1 && more <= TF_SAMPLE_MAX_FRAMES;
  return -1;
}
/* GPU activity (native/core/trace.h, HP_TREC_GPU_DEF / HP_TREC_GPU; the CUDA layer's): value the
 * aggregate's slot. DEF: kind | device << 32, context | stream << 32, launching thread, then the name
 * NUL-padded (1 to 32 words); GPU: start, end, bytes. */
enum { TF_GPU_DEF = 32, TF_GPU = 33 };
#define TF_GPU_NAME_WORDS 32
static inline int tf_gpu_record_ok(uint32_t kind, uint32_t more) {
  if (kind == TF_GPU_DEF) return more >= 4 && more <= 3 + TF_GPU_NAME_WORDS;
  if (kind == TF_GPU) return more == 3;
  return -1;
}
static inline uint32_t tf_kind(const uint64_t *rec) { return (uint32_t)(rec[1] >> 56); }
static inline uint64_t tf_value(const uint64_t *rec) { return rec[1] & 0xFFFFFFFFFFFFull; }
static inline size_t tf_record_words(const uint64_t *rec) { return 2 + (size_t)((rec[1] >> 48) & 0xFF); }

/* Read and check `path`. On failure returns -1 with a one-line message in err. */
int tf_read(const char *path, tf_file *f, char *err, size_t cap);
void tf_free(tf_file *f);

#endif
