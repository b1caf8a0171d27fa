/* Fortran strings handed to C: a CHARACTER(*) argument has a length and no terminating NUL, and is
 * blank-padded when it comes from a fixed-length variable. These make a C string of it: trailing
 * blanks (and NULs) trimmed, NUL-terminated, in a buffer of the caller or, when longer, on the heap. */
#ifndef HP_FSTRING_H
#define HP_FSTRING_H

#include <stddef.h>

#define HP_FSTRING_BUF 512

typedef struct {
  char *str;  /* NULL only when memory could not be had */
  char local[HP_FSTRING_BUF];
} hp_fstring;

/* Fills s from the `len` characters at `chars`; release with hp_fstring_done. */
void hp_fstring_make(hp_fstring *s, const char *chars, size_t len);
void hp_fstring_done(hp_fstring *s);

/* The first two members of a Fortran 2018 C descriptor (ISO_Fortran_binding.h, CFI_cdesc_t): the
 * standard fixes base_addr, elem_len and version as its first members, in that order, so a
 * CHARACTER(len=*) dummy of a BIND(C) interface is read through this without the compiler's header. */
typedef struct {
  void *base_addr;
  size_t elem_len;
} hp_cfi_string;

#endif
