/* Whether the program an exec starts will load the runtime (exec.h): then it takes this image's
 * measurements over (HYPROF_EXEC_RAW), else this image says where they are. It does when the new
 * environment preloads a libhyprof library, or when the executable needs one directly (DT_NEEDED of
 * its dynamic section: linked with -lhyprof or the MPI layer). A script is judged by its
 * interpreter. A new environment that sets HYPROF_DISABLE or HYPROF_RESOLVE=0 makes it not measured
 * for this purpose (it would not resolve the files). Libraries the program loads later (dlopen), or needs through another library, are
 * not seen: such a program is taken as not measured, and the message then names files its own
 * resolve also includes.
 *
 * Async-signal-safe (exec may be called from a signal handler or a vfork child): open, pread,
 * close, access, and small buffers on the stack (that of a handler may be a SIGSTKSZ alternate
 * stack). */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"
#include "exec.h"

#define RUNTIME_PREFIX "libhyprof"

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

static int preloads_runtime(char *const envp[]) {
  for (char *const *e = envp; e && *e; e++)
    if (strncmp(*e, "LD_PRELOAD=", 11) == 0 && contains(*e + 11, RUNTIME_PREFIX)) return 1;
  return 0;
}

/* The value of `name` in envp as a boolean (config.h's spellings), or -1 when unset or unknown. */
static int env_bool(char *const envp[], const char *name) {
  size_t n = strlen(name);
  for (char *const *e = envp; e && *e; e++) {
    if (strncmp(*e, name, n) != 0 || (*e)[n] != '=') continue;
    return hp_bool_word(*e + n + 1);
  }
  return -1;
}

/* path = dir + "/" + name, bounded. */
static int join(char *out, size_t cap, const char *dir, size_t dir_len, const char *name) {
  size_t n = strlen(name);
  if (dir_len + 1 + n + 1 > cap) return 0;
  memcpy(out, dir, dir_len);
  out[dir_len] = '/';
  memcpy(out + dir_len + 1, name, n + 1);
  return 1;
}

/* The file execvp would run: the first executable of PATH's directories (glibc's default PATH
 * when it is not set). */
static int search_path(const char *name, char *out, size_t cap) {
  const char *path = getenv("PATH");
  if (!path) path = "/bin:/usr/bin";
  for (const char *d = path;; ) {
    const char *end = strchr(d, ':');
    size_t len = end ? (size_t)(end - d) : strlen(d);
    int ok = len == 0 ? join(out, cap, ".", 1, name) : join(out, cap, d, len, name);
    if (ok && access(out, X_OK) == 0) return 1;
    if (!end) return 0;
    d = end + 1;
  }
}

static int read_at(int fd, void *buf, size_t n, off_t at) { return pread(fd, buf, n, at) == (ssize_t)n; }

/* A 64-bit ELF file whose dynamic section needs a library named libhyprof*. Read a few entries at a
 * time: this runs on the stack of whoever calls exec, perhaps a signal handler on a small
 * alternate stack. */
#define DYN_CHUNK 16
static int elf_needs_runtime(int fd, const Elf64_Ehdr *eh) {
  if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum > 64) return 0;
  Elf64_Phdr ph, dyn = {0};
  int have_dyn = 0;
  for (int i = 0; i < eh->e_phnum; i++) {
    if (!read_at(fd, &ph, sizeof ph, (off_t)(eh->e_phoff + i * sizeof ph))) return 0;
    if (ph.p_type == PT_DYNAMIC) {
      dyn = ph;
      have_dyn = 1;
    }
  }
  if (!have_dyn) return 0; /* static: LD_PRELOAD and DT_NEEDED mean nothing to it */
  Elf64_Dyn d[DYN_CHUNK];
  size_t n = dyn.p_filesz / sizeof(Elf64_Dyn);
  if (n > 256) n = 256;
  uint64_t strtab = 0;
  size_t end = n; /* the entries before DT_NULL */
  for (size_t i = 0; i < end; i += DYN_CHUNK) {
    size_t k = n - i < DYN_CHUNK ? n - i : DYN_CHUNK;
    if (!read_at(fd, d, k * sizeof(Elf64_Dyn), (off_t)(dyn.p_offset + i * sizeof(Elf64_Dyn)))) return 0;
    for (size_t j = 0; j < k && i + j < end; j++) {
      if (d[j].d_tag == DT_NULL) end = i + j;
      else if (d[j].d_tag == DT_STRTAB) strtab = d[j].d_un.d_ptr;
    }
  }
  n = end;
  /* The string table's address, as a file offset: through the loadable segment that holds it. */
  off_t strtab_at = -1;
  for (int i = 0; i < eh->e_phnum; i++) {
    if (!read_at(fd, &ph, sizeof ph, (off_t)(eh->e_phoff + i * sizeof ph))) return 0;
    if (ph.p_type == PT_LOAD && strtab >= ph.p_vaddr && strtab < ph.p_vaddr + ph.p_filesz)
      strtab_at = (off_t)(strtab - ph.p_vaddr + ph.p_offset);
  }
  if (strtab_at < 0) return 0;
  for (size_t i = 0; i < n; i += DYN_CHUNK) {
    size_t k = n - i < DYN_CHUNK ? n - i : DYN_CHUNK;
    if (!read_at(fd, d, k * sizeof(Elf64_Dyn), (off_t)(dyn.p_offset + i * sizeof(Elf64_Dyn)))) return 0;
    for (size_t j = 0; j < k; j++) {
      if (d[j].d_tag != DT_NEEDED) continue;
      char name[sizeof RUNTIME_PREFIX] = {0};
      ssize_t got = pread(fd, name, sizeof name - 1, strtab_at + (off_t)d[j].d_un.d_val);
      if (got == (ssize_t)sizeof name - 1 && memcmp(name, RUNTIME_PREFIX, sizeof RUNTIME_PREFIX - 1) == 0) return 1;
    }
  }
  return 0;
}

static int file_needs_runtime(int fd, int depth) {
  union {
    Elf64_Ehdr eh;
    char text[256];
  } head;
  memset(&head, 0, sizeof head);
  ssize_t got = pread(fd, &head, sizeof head - 1, 0);
  if (got >= (ssize_t)sizeof(Elf64_Ehdr) && memcmp(head.eh.e_ident, ELFMAG, SELFMAG) == 0) return elf_needs_runtime(fd, &head.eh);
  if (got > 2 && head.text[0] == '#' && head.text[1] == '!' && depth == 0) {
    /* "#! /path/to/interpreter [arg]": the interpreter is what runs */
    char *s = head.text + 2;
    while (*s == ' ' || *s == '\t') s++;
    size_t len = strcspn(s, " \t\n");
    s[len] = 0;
    int ifd = open(s, O_RDONLY | O_CLOEXEC);
    if (ifd < 0) return 0;
    int r = file_needs_runtime(ifd, 1);
    close(ifd);
    return r;
  }
  return 0;
}

int hp_exec_target_measured(const char *target, int search, int dirfd, char *const envp[]) {
  /* Told to measure nothing, or not to resolve at exit: the earlier files would not be resolved. */
  int off = env_bool(envp, "HYPROF_DISABLE") == 1 || env_bool(envp, "HYPROF_RESOLVE") == 0;
  if (preloads_runtime(envp)) return off ? 0 : 1;
  const char *open_path = target;
  int fd;
  if (search && !strchr(target, '/')) {
    /* The path found on PATH goes in a static buffer (exec may run on a small signal stack), one
     * exec's look-up at a time: another thread's exec looking up meanwhile gets "not measured" (its
     * image then says where its measurements are, which stays true). */
    static char found[4096];
    static int found_busy;
    if (__atomic_exchange_n(&found_busy, 1, __ATOMIC_ACQUIRE)) return 0;
    int ok = search_path(target, found, sizeof found);
    fd = ok ? openat(dirfd, found, O_RDONLY | O_CLOEXEC) : -1;
    __atomic_store_n(&found_busy, 0, __ATOMIC_RELEASE);
    if (!ok) return -1;
  } else {
    if (open_path[0] && faccessat(dirfd, open_path, X_OK, 0) != 0) return -1;
    fd = open_path[0] ? openat(dirfd, open_path, O_RDONLY | O_CLOEXEC) : dup(dirfd);
  }
  if (fd < 0) return 0;
  int r = file_needs_runtime(fd, 0);
  close(fd);
  return r && !off;
}
