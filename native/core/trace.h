/* Event tracing (HYPROF_TRACE / TAU_TRACE): every enter and leave of a timer, phase and parameter
 * specialisation, with the run's clock, into a fixed-size buffer per thread; a full buffer is
 * appended to the process's trace file (`hyprof.<host>.<pid>.<start>.trace` beside the raw file) as
 * one block, so memory never grows with the run. A dump (exit, flush, SIGINT / SIGTERM, exec)
 * appends a snapshot of every thread's unwritten part. docs/raw-format.md ("Trace file") has the
 * layout; `hyprof resolve` turns it into OTF2 (docs/trace.md).
 *
 * The recording is in the core, not a module, because it is on the probe fast path, which makes no
 * module call (native/README.md): one load of `hp_trace_on` and a predicted branch when tracing is
 * off; when on, two 8-byte stores into the thread's own buffer and a release store of its length.
 * No lock, no allocation; the only system call is the write of a full buffer (one write(2) of one
 * block on a file opened with O_APPEND, so the blocks of threads never interleave).
 */
#ifndef HP_TRACE_H
#define HP_TRACE_H

#include <stdint.h>

#include "thread.h"

/* Record kinds (high byte of a record's second word; docs/raw-format.md, "The trace file"). A record
 * is its time, its word (kind << 56 | n << 48 | a 48-bit value) and n more words: ENTER and LEAVE
 * carry the extra metric values (n = hp_trace_extra), the MPI kinds their fixed payload, written by
 * the MPI layer through hyprof_ext_trace (native/mpi/trace.c). */
enum {
  HP_TREC_ENTER = 1,
  HP_TREC_LEAVE = 2,
  HP_TREC_MPI_SEND = 3,          /* value comm; peer | tag << 32, bytes */
  HP_TREC_MPI_ISEND = 4,         /* value comm; peer | tag << 32, bytes, request id */
  HP_TREC_MPI_ISEND_DONE = 5,    /* value request id */
  HP_TREC_MPI_IRECV_REQUEST = 6, /* value request id */
  HP_TREC_MPI_RECV = 7,          /* value comm; peer | tag << 32, bytes */
  HP_TREC_MPI_IRECV = 8,         /* value comm; peer | tag << 32, bytes, request id */
  HP_TREC_MPI_COLL_BEGIN = 9,    /* no value */
  HP_TREC_MPI_COLL_END = 10,     /* value comm; op | root << 32, sent, received */
  HP_TREC_MPI_COMM = 11,         /* value comm; size | first << 32, then world ranks, two per word */
  /* OpenMP, recorded by the OMPT tool (native/ompt/otrace.c). A team instance is named by its
   * encountering thread: thread index << 32 | that thread's count of parallel regions (0: the
   * thread's initial task, a team of one). A task by its team instance, its creating thread's number
   * in that team and the creating thread's count of tasks created (OTF2's generation number). */
  HP_TREC_OMP_FORK = 12,         /* value requested team size; team instance */
  HP_TREC_OMP_JOIN = 13,         /* no value; team instance */
  HP_TREC_OMP_TEAM_BEGIN = 14,   /* no value; team instance, number in team | team size << 32 */
  HP_TREC_OMP_TEAM_END = 15,     /* no value; team instance */
  HP_TREC_OMP_TASK_CREATE = 16,  /* no value; team instance, creator's number in team | generation << 32 */
  HP_TREC_OMP_TASK_SWITCH = 17,  /* as TASK_CREATE: the task this thread switches to */
  HP_TREC_OMP_TASK_COMPLETE = 18,/* as TASK_CREATE */
  HP_TREC_OMP_LOCK_ACQUIRE = 19, /* value ompt_mutex_t kind; the mutex's wait id */
  HP_TREC_OMP_LOCK_RELEASE = 20, /* value ompt_mutex_t kind; the mutex's wait id */
  /* 21..23: kept for more OpenMP records */
};
#define HP_TREC_MAX_WORDS 255

/* Samples (kinds 24..31 are the sampling handler's; hp_trace_sample below): value 0, n = the frames
 * kept (1..HP_TRACE_SAMPLE_FRAMES), the more words are their program counters, leaf first, as the
 * sample table keeps them (the OpenMP tool's placeholders included). */
enum { HP_TREC_SAMPLE = 24 };
/* GPU activity, recorded by the CUDA layer (native/cuda/records.c) on the thread that hands CUPTI's
 * records over, at that moment; the GPU's own times are in the payload. An aggregate of the layer's
 * (one kernel, copy, set or synchronisation name on one stream from one launching context) is
 * defined once, then each activity names it by its slot. */
enum {
  HP_TREC_GPU_DEF = 32,          /* value slot; kind | device << 32, context | stream << 32, launching
                                    thread (2^32 - 1: unknown), then the name, NUL-padded words */
  HP_TREC_GPU = 33,              /* value slot; start, end (run clock), bytes */
};
/* Frames a traced sample keeps: the leaf and up to 7 callers (the unwind's stop rule may keep fewer).
 * Enough to say what ran inside a long region; the profile keeps the whole chain. */
#define HP_TRACE_SAMPLE_FRAMES 8

/* The header in front of every block in the file (docs/raw-format.md). */
#define HP_TRACE_BLOCK_HEADER 48

/* One thread's buffer: HP_TRACE_BLOCK_HEADER bytes of room for the block's header, then `cap`
 * bytes of records. Written by its thread only; a dump on another thread copies the published part
 * (len) and checks gen before and after (a seqlock: a buffer written out meanwhile is read again). */
typedef struct hp_trace_buf {
  uint8_t *mem;              /* header room + records (mmap) */
  uint32_t cap;              /* bytes of records */
  uint32_t len;              /* bytes of records published (atomic) */
  uint32_t gen;              /* blocks this thread has handed to write(2) (atomic) */
  uint32_t ended;            /* 1 once the thread's last block was written (atomic) */
  uint64_t lost;             /* records that could not be written (atomic): a failed write, or no
                                buffer (memory, a record after the thread's end) */
  uint32_t lost_why;         /* HP_TRACE_LOST_* bits (atomic) */
  uint64_t samples_lost;     /* samples the handler found no room for (the buffer full: it may not
                                write it out itself); written by this thread's handler only
                                (relaxed), read by a dump (trace_samples_lost) */
} hp_trace_buf;

#define HP_TRACE_LOST_WRITE 1u   /* write(2) failed (disk full, quota, ...) */
#define HP_TRACE_LOST_MEMORY 2u  /* no memory for the thread's buffer */
#define HP_TRACE_LOST_ENDED 4u   /* a record on a thread after its end (a late destructor's probe) */

/* Set once at initialisation, before any thread state, when tracing is on and its file is open. */
extern int hp_trace_on;
/* Extra metric values per record (hp_n_metrics - 1 when several metrics are measured, else 0). */
extern uint32_t hp_trace_extra;

/* The slow part of a record: a full buffer written out, metrics read, no buffer. */
void hp_trace_put_slow(hp_thread *t, uint32_t kind, uint32_t event, uint64_t ns);

/* Record an enter or leave of `event` at `ns` on t (its own thread). Async-signal-safe.
 * Every writer of a thread's buffer but the sampling handler (hp_trace_sample) runs on that thread
 * with t->in_tool set (hp_tool_enter / hp_tool_leave, as the probes, hyprof_ext_trace, thread start,
 * end and fork do): the handler records nothing while in_tool is set, which is what lets samples
 * share the buffer (trace.c, "Samples"). A new writer must keep to this. */
static inline __attribute__((always_inline)) void hp_trace_put(hp_thread *t, uint32_t kind, uint32_t event, uint64_t ns) {
  hp_trace_buf *b = t->trace;
  if (__builtin_expect(b && !hp_trace_extra && b->len + 16 <= b->cap, 1)) {
    uint32_t len = b->len;
    uint64_t *r = (uint64_t *)(b->mem + HP_TRACE_BLOCK_HEADER + len);
    /* release stores: a dump that sees these bytes sees the gen they belong to (thread.h) */
    __atomic_store_n(&r[0], ns, __ATOMIC_RELEASE);
    __atomic_store_n(&r[1], (uint64_t)event | ((uint64_t)kind << 56), __ATOMIC_RELEASE);
    __atomic_store_n(&b->len, len + 16, __ATOMIC_RELEASE);
    return;
  }
  hp_trace_put_slow(t, kind, event, ns);
}

#define HP_TRACE(t, kind, event, ns) \
  do { \
    if (__builtin_expect(hp_trace_on, 0)) hp_trace_put((t), (kind), (event), (ns)); \
  } while (0)

/* Record a record of another kind than ENTER / LEAVE on t (its own thread): `value` (48 bits) in its
 * word and the n (<= HP_TREC_MAX_WORDS) words of payload. Stores into the thread's own buffer only,
 * as hp_trace_put; not called from signal handlers. */
void hp_trace_put_words(hp_thread *t, uint32_t kind, uint64_t value, const uint64_t *payload, uint32_t n, uint64_t ns);

/* hp_trace_put_words for a record of n <= 2 payload words (the OpenMP tool's, native/ompt/otrace.c:
 * one or more per task), its common case inline: the same release stores as hp_trace_put; a full
 * buffer or none goes to hp_trace_put_words. */
static inline __attribute__((always_inline)) void hp_trace_put_2(hp_thread *t, uint32_t kind, uint64_t value, uint64_t w0,
                                                                 uint64_t w1, uint32_t n, uint64_t ns) {
  hp_trace_buf *b = t->trace;
  uint32_t size = 16 + 8 * n;
  if (__builtin_expect(b && !!b->mem && b->len + size <= b->cap && n <= 2, 1)) {
    uint32_t len = b->len;
    uint64_t *r = (uint64_t *)(b->mem + HP_TRACE_BLOCK_HEADER + len);
    __atomic_store_n(&r[0], ns, __ATOMIC_RELEASE);
    __atomic_store_n(&r[1], (value & 0xFFFFFFFFFFFFull) | ((uint64_t)n << 48) | ((uint64_t)kind << 56), __ATOMIC_RELEASE);
    __atomic_store_n(&r[2], w0, __ATOMIC_RELEASE);
    if (n > 1) __atomic_store_n(&r[3], w1, __ATOMIC_RELEASE);
    __atomic_store_n(&b->len, len + size, __ATOMIC_RELEASE);
    return;
  }
  uint64_t payload[2] = {w0, w1};
  hp_trace_put_words(t, kind, value, payload, n, ns);
}

/* Record one sample of t (its own thread), from the sampling signal handler: `pcs` its frames, leaf
 * first (at most HP_TRACE_SAMPLE_FRAMES kept). Async-signal-safe: stores into the thread's own buffer
 * only, never a write(2); a sample that finds the buffer full is counted in samples_lost. The caller
 * must have checked that the signal did not land inside the runtime (t->in_tool clear): trace.c
 * argues why that makes the one buffer safe to share with the probes. */
void hp_trace_sample(hp_thread *t, uint64_t ns, const uint64_t *pcs, uint32_t depth);

/* ---- lifecycle, called by the core ---- */

/* At initialisation (after the configuration): read HYPROF_TRACE / TAU_TRACE, open the file. */
void hp_trace_process_start(void);
/* A thread's state was made (its root frame set): its buffer, and the enter of its root. */
void hp_trace_thread_start(hp_thread *t);
/* The thread ends (stop_mono_ns set): its last block, flagged as its end. */
void hp_trace_thread_end(hp_thread *t);
/* An ended thread's compaction: the buffer is released (retired). Returns the bytes kept. */
void hp_trace_thread_compact(hp_thread *t);
/* Forked child: a file of its own; the forking thread's buffer emptied (the parent writes those
 * records) and its open frames entered again at their new start. */
void hp_trace_fork_child(hp_thread *t);
/* Inside a dump, for every listed thread: a snapshot block of its unwritten records, with the time its
 * open regions end at (`end_ns`). Async-signal-safe. */
void hp_trace_dump_thread(const hp_thread *t, uint64_t end_ns);
/* The dump's metadata: the trace file and what was lost (hp_meta_add). Async-signal-safe. */
void hp_trace_add_metadata(void);
/* Drop entries of t's THREAD section (trace_records_lost); returns how many. Async-signal-safe. */
struct hp_buf;
uint32_t hp_trace_write_drops(const hp_thread *t, struct hp_buf *b);

#endif
