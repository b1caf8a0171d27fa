/* A byte buffer for building the raw measurement file (docs/raw-format.md).
 *
 * Memory comes from mmap / mremap, never malloc, so the file can be built inside a SIGTERM / SIGINT
 * handler. A failed allocation sets `failed`; every later write is ignored and the dump reports it.
 */
#ifndef HP_WRITER_H
#define HP_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct hp_buf {
  uint8_t *data;
  size_t len;
  size_t cap;
  int failed;
  uint32_t sections;   /* sections ended so far (for the END section) */
} hp_buf;

/* The core's section tags. Each module defines its own (sampling: 6-8, the OpenMP tool: 9, MPI: 10; the core's functions: 11); all are
 * listed in docs/raw-format.md, where a new module takes the next free number. */
enum {
  HP_SEC_INFO = 1,
  HP_SEC_EVENTS = 2,
  HP_SEC_CONTEXTS = 3,
  HP_SEC_THREAD = 4,
  HP_SEC_USER_EVENTS = 5,
  HP_SEC_FUNCTIONS = 11,   /* compiler-instrumented functions (functions.c) */
  HP_SEC_END = 0xFFFFFFFFu
};

void hp_buf_bytes(hp_buf *b, const void *p, size_t n);
void hp_buf_u8(hp_buf *b, uint8_t v);
void hp_buf_u32(hp_buf *b, uint32_t v);
void hp_buf_i32(hp_buf *b, int32_t v);
void hp_buf_u64(hp_buf *b, uint64_t v);
void hp_buf_i64(hp_buf *b, int64_t v);
void hp_buf_f64(hp_buf *b, double v);
void hp_buf_str(hp_buf *b, const char *s);          /* NULL writes "" */
/* Start a section: returns the offset of its header, to pass to hp_buf_section_end. */
size_t hp_buf_section_begin(hp_buf *b, uint32_t tag);
/* Fill in the length and CRC-32 of the section started at `at`; counts it. */
void hp_buf_section_end(hp_buf *b, size_t at);
/* Overwrite a u32 written earlier at `offset` (a count known only after its entries were written). */
void hp_buf_patch_u32(hp_buf *b, size_t offset, uint32_t v);
void hp_buf_free(hp_buf *b);

#endif
