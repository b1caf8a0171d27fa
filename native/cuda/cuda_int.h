/* The CUDA layer's parts (native/cuda/): records.c turns CUPTI's activity records into the
 * aggregates the CUDA section holds; spans.c keeps when the GPU was busy and the host waited;
 * cupti.c talks to CUPTI and is the module's table. */
#ifndef HP_CUDA_INT_H
#define HP_CUDA_INT_H

#include <stdint.h>

#include <cupti_activity.h>

#include "core/ext.h"
#include "core/ext_module.h"

#define HP_SEC_CUDA 14u

/* Record kinds of the section (docs/raw-format.md, 14 CUDA). */
enum { HP_CUDA_KERNEL = 1, HP_CUDA_MEMCPY = 2, HP_CUDA_MEMSET = 3, HP_CUDA_SYNC = 4 };

/* The launching thread of correlation id `corr`: its core thread index and current context. Called
 * on the launching thread from CUPTI's callback on entry to a driver API call. */
void hp_cuda_note_launch(uint32_t corr);
/* One activity record (any kind; kinds not measured are skipped) with its GPU timestamps moved by
 * `offset` ns onto the run's clock. On CUPTI's buffer-completion thread or a dump's thread. */
void hp_cuda_take(const CUpti_Activity *r, int64_t offset);
/* Records CUPTI dropped (buffers not had in time): added to the section's count. */
void hp_cuda_count_cupti_drops(uint64_t n);
/* The GPU busy (HP_SPAN_BUSY: a kernel, copy or set) or the host waiting (HP_SPAN_WAIT: a
 * synchronisation) from start to end on the run's clock, into bounded sets of intervals (spans.c).
 * Called by the takers, serialised. */
enum { HP_SPAN_BUSY = 0, HP_SPAN_WAIT = 1 };
void hp_cuda_span_add(int which, uint64_t start, uint64_t end);
/* The two sets, at the section's end. Async-signal-safe. */
void hp_cuda_spans_write(hp_buf *b);
/* The section, drop counts included. Async-signal-safe: an aggregate being written at that moment
 * is skipped and counted. */
void hp_cuda_write(hp_buf *b);

#endif
