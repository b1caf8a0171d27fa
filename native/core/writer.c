/* The raw file's byte buffer. mmap / mremap only: the buffer may be built inside a SIGTERM handler,
 * where malloc is off limits. */
#define _GNU_SOURCE
#include "writer.h"

#include <string.h>
#include <sys/mman.h>

static uint32_t crc_table[256];
static int crc_ready;

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
  crc_ready = 1;
}

static uint32_t crc32_of(const uint8_t *p, size_t n) {
  if (!crc_ready) crc_init();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

static int reserve(hp_buf *b, size_t more) {
  if (b->failed) return 0;
  if (b->len + more <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 1 << 20;
  while (cap < b->len + more) cap *= 2;
  void *p = b->data ? mremap(b->data, b->cap, cap, MREMAP_MAYMOVE)
                    : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    b->failed = 1;
    return 0;
  }
  b->data = p;
  b->cap = cap;
  return 1;
}

void hp_buf_bytes(hp_buf *b, const void *p, size_t n) {
  if (!reserve(b, n)) return;
  memcpy(b->data + b->len, p, n);
  b->len += n;
}

/* x86_64 and aarch64 Linux are little-endian, the file's byte order. */
void hp_buf_u8(hp_buf *b, uint8_t v) { hp_buf_bytes(b, &v, 1); }
void hp_buf_u32(hp_buf *b, uint32_t v) { hp_buf_bytes(b, &v, 4); }
void hp_buf_i32(hp_buf *b, int32_t v) { hp_buf_bytes(b, &v, 4); }
void hp_buf_u64(hp_buf *b, uint64_t v) { hp_buf_bytes(b, &v, 8); }
void hp_buf_i64(hp_buf *b, int64_t v) { hp_buf_bytes(b, &v, 8); }
void hp_buf_f64(hp_buf *b, double v) { hp_buf_bytes(b, &v, 8); }

void hp_buf_str(hp_buf *b, const char *s) {
  uint32_t n = s ? (uint32_t)strlen(s) : 0;
  hp_buf_u32(b, n);
  if (n) hp_buf_bytes(b, s, n);
}

size_t hp_buf_section_begin(hp_buf *b, uint32_t tag) {
  size_t at = b->len;
  hp_buf_u32(b, tag);
  hp_buf_u32(b, 0); /* CRC, filled in at the end */
  hp_buf_u64(b, 0); /* length, filled in at the end */
  return at;
}

void hp_buf_section_end(hp_buf *b, size_t at) {
  if (b->failed) return;
  uint64_t len = b->len - at - 16;
  uint32_t crc = crc32_of(b->data + at + 16, len);
  memcpy(b->data + at + 4, &crc, 4);
  memcpy(b->data + at + 8, &len, 8);
  b->sections++;
}

void hp_buf_patch_u32(hp_buf *b, size_t offset, uint32_t v) {
  if (!b->failed && offset + 4 <= b->len) memcpy(b->data + offset, &v, 4);
}

void hp_buf_free(hp_buf *b) {
  if (b->data) munmap(b->data, b->cap);
  memset(b, 0, sizeof *b);
}
