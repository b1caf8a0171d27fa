/* The name of a function in the running process, from its object's ELF symbol table (.symtab, else
 * .dynsym): what dladdr cannot tell for the executable's own functions. Each object's table is read
 * once and kept sorted. Not async-signal-safe (opens and maps files, allocates); callers hold their
 * own lock (functions.c). */
#ifndef HP_SYMTAB_H
#define HP_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

/* Copy the symbol of the function at `addr` into out; returns 0 when none is known. */
int hp_symtab_name(uintptr_t addr, char *out, size_t cap);

#endif
