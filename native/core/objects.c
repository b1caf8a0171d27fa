/* Loaded objects: the span of their code (objects.h). */
#define _GNU_SOURCE
#include "objects.h"

int hp_object_code(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi) {
  uintptr_t l = UINTPTR_MAX, h = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    uintptr_t a = info->dlpi_addr + ph->p_vaddr;
    if (a < l) l = a;
    if (a + ph->p_memsz > h) h = a + ph->p_memsz;
  }
  if (h <= l) return 0;
  *lo = l;
  *hi = h;
  return 1;
}

int hp_object_holds(const struct dl_phdr_info *info, uintptr_t a) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t s = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && a >= s && a < s + ph->p_memsz) return 1;
  }
  return 0;
}
