/* ELF symbol tables of loaded objects, for naming compiler-instrumented functions at run time. */
#define _GNU_SOURCE
#include "symtab.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "objects.h"

#define MAX_OBJECTS 256

typedef struct sym {
  uint64_t value, size;
  uint32_t name;
} sym;

typedef struct object {
  uintptr_t bias;
  char path[512];
  const char *strtab;
  size_t strtab_size;
  sym *syms;
  size_t n;
} object;

static object objects[MAX_OBJECTS];
static size_t n_objects;

static int by_value(const void *a, const void *b) {
  const sym *x = a, *y = b;
  return x->value < y->value ? -1 : x->value > y->value;
}

/* Read the function symbols of `o->path` (mapped for the life of the process: names point into it). */
static void load(object *o) {
  int fd = open(o->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  void *map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(Elf64_Ehdr))
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return;
  size_t size = (size_t)st.st_size;
  const uint8_t *base = map;
  const Elf64_Ehdr *eh = map;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
      eh->e_shoff > size || (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size - eh->e_shoff)
    goto fail;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
  const Elf64_Shdr *tab = NULL;
  for (int want = SHT_SYMTAB; !tab && want; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0)
    for (unsigned i = 0; i < eh->e_shnum; i++)
      if (sh[i].sh_type == (unsigned)want) tab = &sh[i];
  if (!tab || tab->sh_link >= eh->e_shnum || tab->sh_offset > size || tab->sh_size > size - tab->sh_offset) goto fail;
  const Elf64_Shdr *str = &sh[tab->sh_link];
  if (str->sh_offset > size || str->sh_size > size - str->sh_offset) goto fail;
  const Elf64_Sym *s = (const Elf64_Sym *)(base + tab->sh_offset);
  size_t n = tab->sh_size / sizeof(Elf64_Sym), k = 0;
  o->syms = malloc((n ? n : 1) * sizeof(sym));
  if (!o->syms) goto fail;
  for (size_t i = 0; i < n; i++) {
    unsigned type = ELF64_ST_TYPE(s[i].st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s[i].st_shndx == SHN_UNDEF || !s[i].st_value ||
        s[i].st_name >= str->sh_size)
      continue;
    o->syms[k++] = (sym){s[i].st_value, s[i].st_size, s[i].st_name};
  }
  qsort(o->syms, k, sizeof(sym), by_value);
  o->n = k;
  o->strtab = (const char *)base + str->sh_offset;
  o->strtab_size = str->sh_size;
  return;
fail:
  munmap(map, size);
}

typedef struct finding {
  uintptr_t addr, bias;
  char path[512];
  int found;
} finding;

static int find_object(struct dl_phdr_info *info, size_t size, void *data) {
  finding *f = data;
  if (!hp_object_holds(info, f->addr)) return 0;
  f->bias = info->dlpi_addr;
  /* The main program has no name here: its file is the process's executable. */
  const char *name = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
  size_t len = strlen(name);
  if (len >= sizeof f->path) return 1;
  memcpy(f->path, name, len + 1);
  f->found = 1;
  return 1;
}

int hp_symtab_name(uintptr_t addr, char *out, size_t cap) {
  finding f = {.addr = addr};
  dl_iterate_phdr(find_object, &f);
  if (!f.found || !cap) return 0;
  object *o = NULL;
  for (size_t i = 0; i < n_objects && !o; i++)
    if (objects[i].bias == f.bias && !strcmp(objects[i].path, f.path)) o = &objects[i];
  if (!o) {
    if (n_objects == MAX_OBJECTS) return 0;
    o = &objects[n_objects++];
    o->bias = f.bias;
    memcpy(o->path, f.path, sizeof o->path);
    load(o);
  }
  uint64_t off = addr - f.bias;
  size_t lo = 0, hi = o->n; /* the last symbol at or below off */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (o->syms[mid].value <= off)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (!lo) return 0;
  const sym *s = &o->syms[lo - 1];
  /* Several symbols may share an address (aliases): any of them names it. */
  if (off != s->value && off >= s->value + s->size) return 0;
  const char *name = o->strtab + s->name;
  size_t len = strnlen(name, o->strtab_size - s->name);
  if (len >= cap) len = cap - 1;
  memcpy(out, name, len);
  out[len] = 0;
  return 1;
}
