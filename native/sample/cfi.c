/* Unwind rules read from a module's DWARF call-frame information (.eh_frame through .eh_frame_hdr),
 * kept per thread by program counter: the fast path of the default (DWARF) unwinder, unwind.c.
 *
 * Why: libunwind's unw_step costs about 800 instructions a frame even when its caches hit (two
 * locks, its register-state cache, the general DWARF machinery), which made the handler 2.2 µs at
 * 31 frames. Almost every frame of compiled x86-64 code has the same simple form: the CFA is rsp
 * or rbp plus a constant, the return address is stored at CFA plus a constant, rbp is either
 * unchanged or stored at CFA plus a constant. For such a frame the rule is computed once per
 * program counter from the CFI and kept in a small table of the thread's own; a step is then a
 * table hit, one addition and one or two loads from the thread's stack.
 *
 * Code with no call-frame information at all (JIT code in no module, V8's builtins in node's text
 * or in V8's copy of them: a Node stack is mostly such frames) gets a rule without HP_CFI_OK but
 * with HP_CFI_CHAIN: unwind.c steps through it by the frame-pointer chain, reading only the
 * thread's stack, as libunwind would (it falls back to the chain there, checking every address with
 * system calls).
 *
 * Anything else is left to libunwind, which remains the unwinder of record: a program counter in a
 * module without .eh_frame_hdr, a PLT entry without an FDE, CFA or register rules given by DWARF
 * expressions (signal trampolines, realigned stacks; the lazy PLT's one expression is known:
 * plt_expression below), signal-frame CIEs, encodings other than the standard ones.
 * Such a program counter gets a rule without HP_CFI_OK, and unwind.c unwinds that whole sample with
 * libunwind from the start, so every sample comes out as libunwind makes it.
 *
 * Async-signal-safe: reads only the loaded modules' memory through the maps snapshot (maps.c; the
 * caller holds hp_maps_reader_enter, so no module is unmapped meanwhile) and writes only the
 * calling thread's own table. Every read of CFI data is bounded by the module's loaded segments. */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "sample_int.h"

#if defined(__x86_64__)

#define DW_RBP 6
#define DW_RSP 7
#define DW_RA 16
#define STATE_STACK 8   /* DW_CFA_remember_state nesting kept */

/* Only two registers' rules matter for the simple form (the CFA's base is rsp or rbp, which the
 * row holds separately): rbp and the return address. The others are read past. */
enum { R_RBP = 0, R_RA = 1, NREGS = 2 };
static inline int tracked(uint64_t dwarf_reg) { return dwarf_reg == DW_RBP ? R_RBP : dwarf_reg == DW_RA ? R_RA : -1; }

enum { RULE_SAME = 0, RULE_UNDEFINED, RULE_OFFSET, RULE_OTHER };

typedef struct {
  uint8_t kind;
  int64_t off;           /* RULE_OFFSET: saved at CFA + off */
} reg_rule;

typedef struct {
  int cfa_reg;           /* DWARF register number, -1 when the CFA is an expression */
  int64_t cfa_off;
  int plt;               /* the CFA is the PLT's expression, evaluated at pc (plt_cfa_offset) */
  reg_rule reg[NREGS];
} cfi_row;

/* The CFA expression that binutils' linker writes for the lazy-binding PLT of x86-64 (every
 * non-PIE or -z lazy executable and library, node's own among them): CFA = rsp + 8, plus 8 from the
 * 11th byte of each 16-byte entry on (after its `push $n`):
 *   DW_OP_breg7 (rsp) 8; DW_OP_breg16 (rip) 0; DW_OP_lit15; DW_OP_and; DW_OP_lit11; DW_OP_ge;
 *   DW_OP_lit3; DW_OP_shl; DW_OP_plus
 * A program interrupted in a PLT stub (a call of a library function on its way) lands here; left to
 * libunwind, such a sample cost about 50 mincore calls. The value depends on rip itself, so it is
 * right only for the interrupted frame, whose rip is the pc looked up (HP_CFI_PLT, unwind.c). */
static const uint8_t plt_expression[] = {0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22};

static int64_t plt_cfa_offset(uint64_t pc) { return 8 + ((pc & 15) >= 11 ? 8 : 0); }

/* A bounded reader over module memory. */
typedef struct {
  const uint8_t *p, *end;
  int bad;
} rd;

static uint8_t u8(rd *r) {
  if (r->p + 1 > r->end) {
    r->bad = 1;
    return 0;
  }
  return *r->p++;
}

static uint64_t fixed(rd *r, unsigned n) {
  if ((size_t)(r->end - r->p) < n) {
    r->bad = 1;
    r->p = r->end;
    return 0;
  }
  uint64_t v = 0;
  memcpy(&v, r->p, n); /* little-endian */
  r->p += n;
  return v;
}

/* LEB128: seven bits a byte, low first; the signed form extends the last byte's bit 6. */
static uint64_t leb(rd *r, int is_signed) {
  uint64_t v = 0;
  unsigned shift = 0;
  uint8_t b;
  do {
    b = u8(r);
    if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
    shift += 7;
  } while ((b & 0x80) && !r->bad);
  if (is_signed && shift < 64 && (b & 0x40)) v |= ~(uint64_t)0 << shift;
  return v;
}
static uint64_t uleb(rd *r) { return leb(r, 0); }
static int64_t sleb(rd *r) { return (int64_t)leb(r, 1); }

/* A pointer in DW_EH_PE encoding. Applications supported: absolute, pc-relative, data-relative
 * (to `data_base`); the indirect bit is reported, not followed. Returns 0 on anything else. */
static int encoded(rd *r, uint8_t enc, uintptr_t data_base, uint64_t *out, int *indirect) {
  uintptr_t here = (uintptr_t)r->p;
  uint64_t v;
  switch (enc & 0x0f) {
    case 0x00: v = fixed(r, 8); break;                              /* absptr */
    case 0x01: v = uleb(r); break;                                  /* uleb128 */
    case 0x02: v = fixed(r, 2); break;                              /* udata2 */
    case 0x03: v = fixed(r, 4); break;                              /* udata4 */
    case 0x04: v = fixed(r, 8); break;                              /* udata8 */
    case 0x09: v = (uint64_t)sleb(r); break;                        /* sleb128 */
    case 0x0a: v = (uint64_t)(int64_t)(int16_t)fixed(r, 2); break;  /* sdata2 */
    case 0x0b: v = (uint64_t)(int64_t)(int32_t)fixed(r, 4); break;  /* sdata4 */
    case 0x0c: v = fixed(r, 8); break;                              /* sdata8 */
    default: return 0;
  }
  switch (enc & 0x70) {
    case 0x00: break;
    case 0x10: v += here; break;
    case 0x30: v += data_base; break;
    default: return 0;
  }
  if (indirect) *indirect = (enc & 0x80) != 0;
  *out = v;
  return !r->bad;
}

/* The module holding pc and its .eh_frame_hdr, from the maps snapshot. */
typedef struct {
  const struct dl_phdr_info *info;
  const uint8_t *hdr;
  size_t hdr_len;
} module;

/* Is [a, a + n) inside one loaded segment of the module that has the p_flags `flags`? */
static int in_segment(const module *m, uintptr_t a, size_t n, uint32_t flags) {
  const struct dl_phdr_info *info = m->info;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || (ph->p_flags & flags) != flags) continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    if (a >= lo && a <= hi && n <= hi - a) return 1;
  }
  return 0;
}

static int in_module(const module *m, uintptr_t a, size_t n) { return in_segment(m, a, n, 0); }

/* [a, a + n) inside an executable segment: where code bytes may be read. A pc that an unwind step
 * took from a corrupt or foreign frame can point into the module's data, which other threads write:
 * reading it there would be a data race (ThreadSanitizer reports it) and tells nothing. */
static int in_code(const module *m, uintptr_t a, size_t n) { return in_segment(m, a, n, PF_X); }

static int find_module(uintptr_t pc, module *m) {
  const struct dl_phdr_info *info = hp_maps_object_of(pc);
  if (!info) return 0;
  m->info = info;
  m->hdr = NULL;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_GNU_EH_FRAME) {
      m->hdr = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
      m->hdr_len = ph->p_memsz;
    }
  }
  return m->hdr && in_module(m, (uintptr_t)m->hdr, m->hdr_len);
}

/* The FDE covering pc: binary search of .eh_frame_hdr's table (the standard datarel|sdata4 form). */
static const uint8_t *find_fde(const module *m, uintptr_t pc) {
  rd r = {m->hdr, m->hdr + m->hdr_len, 0};
  uint8_t version = u8(&r), ptr_enc = u8(&r), count_enc = u8(&r), table_enc = u8(&r);
  uint64_t eh_frame, count;
  if (r.bad || version != 1 || table_enc != 0x3b) return NULL;
  if (!encoded(&r, ptr_enc, (uintptr_t)m->hdr, &eh_frame, NULL) || !encoded(&r, count_enc, (uintptr_t)m->hdr, &count, NULL))
    return NULL;
  const uint8_t *table = r.p;
  if (count == 0 || count > (size_t)(r.end - table) / 8) return NULL;
  int64_t target = (int64_t)(pc - (uintptr_t)m->hdr);
  size_t lo = 0, hi = (size_t)count; /* the answer is the last entry with start <= target */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    int32_t start;
    memcpy(&start, table + mid * 8, 4);
    if ((int64_t)start <= target) lo = mid;
    else hi = mid;
  }
  int32_t start, fde;
  memcpy(&start, table + lo * 8, 4);
  memcpy(&fde, table + lo * 8 + 4, 4);
  if ((int64_t)start > target) return NULL;
  return m->hdr + fde;
}

typedef struct {
  int64_t data_align;
  uint64_t code_align;
  uint8_t fde_enc;
  int has_z;             /* 'z' augmentation: FDEs carry an augmentation data length */
  int signal_frame;
  rd insns;              /* the CIE's initial instructions */
} cie_info;

/* A length-prefixed entry of .eh_frame at p: its body [*body, *end). 32-bit lengths only. */
static int entry(const module *m, const uint8_t *p, const uint8_t **body, const uint8_t **end) {
  if (!in_module(m, (uintptr_t)p, 4)) return 0;
  uint32_t len;
  memcpy(&len, p, 4);
  if (len == 0 || len == 0xffffffffu || !in_module(m, (uintptr_t)p + 4, len)) return 0;
  *body = p + 4;
  *end = p + 4 + len;
  return 1;
}

static int parse_cie(const module *m, const uint8_t *p, cie_info *c) {
  const uint8_t *body, *end;
  if (!entry(m, p, &body, &end)) return 0;
  rd r = {body, end, 0};
  if (fixed(&r, 4) != 0) return 0; /* CIE id */
  uint8_t version = u8(&r);
  if (version != 1 && version != 3) return 0;
  const char *aug = (const char *)r.p;
  size_t aug_len = strnlen(aug, (size_t)(r.end - r.p));
  if (aug_len == (size_t)(r.end - r.p)) return 0;
  r.p += aug_len + 1;
  c->code_align = uleb(&r);
  c->data_align = sleb(&r);
  uint64_t ra = version == 1 ? u8(&r) : uleb(&r);
  if (ra != DW_RA) return 0;
  c->fde_enc = 0; /* absptr */
  c->signal_frame = 0;
  c->has_z = aug[0] == 'z';
  if (c->has_z) {
    uint64_t len = uleb(&r);
    if (r.bad || len > (size_t)(r.end - r.p)) return 0;
    const uint8_t *data_end = r.p + len;
    for (const char *a = aug + 1; *a; a++) {
      uint64_t ignored;
      switch (*a) {
        case 'R': c->fde_enc = u8(&r); break;
        case 'L': (void)u8(&r); break;
        case 'P': {
          uint8_t enc = u8(&r);
          if (!encoded(&r, enc, 0, &ignored, NULL)) return 0;
          break;
        }
        case 'S': c->signal_frame = 1; break;
        default: return 0; /* an augmentation we do not know: its data cannot be skipped safely */
      }
    }
    r.p = data_end;
  } else if (aug[0]) {
    return 0;
  }
  if (r.bad) return 0;
  c->insns = (rd){r.p, end, 0};
  return 1;
}

/* Run CFA instructions from `r`, starting at code address loc, until the row covering pc. */
static int run_cfa(rd *r, const cie_info *c, cfi_row *row, const cfi_row *initial, uint64_t loc, uint64_t pc) {
  cfi_row stack[STATE_STACK];
  int depth = 0;
  while (r->p < r->end && !r->bad) {
    uint8_t op = u8(r);
    uint8_t low = op & 0x3f;
    uint64_t reg, delta = 0;
    int advance = 0, i;
    switch (op >> 6) {
      case 1: delta = low; advance = 1; break;                                     /* advance_loc */
      case 2: {                                                                    /* offset */
        int64_t off = (int64_t)uleb(r) * c->data_align;
        if ((i = tracked(low)) >= 0) row->reg[i] = (reg_rule){RULE_OFFSET, off};
        continue;
      }
      case 3:                                                                      /* restore */
        if ((i = tracked(low)) >= 0) row->reg[i] = initial ? initial->reg[i] : (reg_rule){RULE_SAME, 0};
        continue;
      default: break;
    }
    if (!advance) {
      switch (op) {
        case 0x00: break;                                                          /* nop */
        case 0x02: delta = u8(r); advance = 1; break;                              /* advance_loc1 */
        case 0x03: delta = fixed(r, 2); advance = 1; break;                        /* advance_loc2 */
        case 0x04: delta = fixed(r, 4); advance = 1; break;                        /* advance_loc4 */
        case 0x05:                                                                 /* offset_extended */
        case 0x11: {                                                               /* offset_extended_sf */
          reg = uleb(r);
          int64_t off = op == 0x05 ? (int64_t)uleb(r) * c->data_align : sleb(r) * c->data_align;
          if ((i = tracked(reg)) >= 0) row->reg[i] = (reg_rule){RULE_OFFSET, off};
          break;
        }
        case 0x2f: {                                                               /* GNU_negative_offset_extended */
          reg = uleb(r);
          int64_t off = -(int64_t)uleb(r) * c->data_align;
          if ((i = tracked(reg)) >= 0) row->reg[i] = (reg_rule){RULE_OFFSET, off};
          break;
        }
        case 0x06:                                                                 /* restore_extended */
          if ((i = tracked(uleb(r))) >= 0) row->reg[i] = initial ? initial->reg[i] : (reg_rule){RULE_SAME, 0};
          break;
        case 0x07:                                                                 /* undefined */
          if ((i = tracked(uleb(r))) >= 0) row->reg[i] = (reg_rule){RULE_UNDEFINED, 0};
          break;
        case 0x08:                                                                 /* same_value */
          if ((i = tracked(uleb(r))) >= 0) row->reg[i] = (reg_rule){RULE_SAME, 0};
          break;
        case 0x09:                                                                 /* register */
          reg = uleb(r);
          (void)uleb(r);
          if ((i = tracked(reg)) >= 0) row->reg[i] = (reg_rule){RULE_OTHER, 0};
          break;
        case 0x0a:                                                                 /* remember_state */
          if (depth == STATE_STACK) return 0;
          stack[depth++] = *row;
          break;
        case 0x0b:                                                                 /* restore_state */
          if (depth == 0) return 0;
          *row = stack[--depth]; /* the CFA rule included, as libunwind and libgcc do */
          break;
        case 0x0c:                                                                 /* def_cfa */
          row->cfa_reg = (int)uleb(r);
          row->cfa_off = (int64_t)uleb(r);
          row->plt = 0;
          break;
        case 0x12:                                                                 /* def_cfa_sf */
          row->cfa_reg = (int)uleb(r);
          row->cfa_off = sleb(r) * c->data_align;
          row->plt = 0;
          break;
        case 0x0d: row->cfa_reg = (int)uleb(r); row->plt = 0; break;               /* def_cfa_register */
        case 0x0e: row->cfa_off = (int64_t)uleb(r); row->plt = 0; break;           /* def_cfa_offset */
        case 0x13: row->cfa_off = sleb(r) * c->data_align; row->plt = 0; break;    /* def_cfa_offset_sf */
        case 0x0f: {                                                               /* def_cfa_expression */
          uint64_t len = uleb(r);
          if (len > (size_t)(r->end - r->p)) return 0;
          int plt = len == sizeof plt_expression && memcmp(r->p, plt_expression, len) == 0;
          r->p += len;
          row->cfa_reg = plt ? DW_RSP : -1;
          row->cfa_off = plt ? plt_cfa_offset(pc) : 0;
          row->plt = plt;
          break;
        }
        case 0x10:                                                                 /* expression */
        case 0x16: {                                                               /* val_expression */
          reg = uleb(r);
          uint64_t len = uleb(r);
          if (len > (size_t)(r->end - r->p)) return 0;
          r->p += len;
          if ((i = tracked(reg)) >= 0) row->reg[i] = (reg_rule){RULE_OTHER, 0};
          break;
        }
        case 0x14:                                                                 /* val_offset */
        case 0x15:                                                                 /* val_offset_sf */
          reg = uleb(r);
          if (op == 0x14) (void)uleb(r);
          else (void)sleb(r);
          if ((i = tracked(reg)) >= 0) row->reg[i] = (reg_rule){RULE_OTHER, 0};
          break;
        case 0x2e: (void)uleb(r); break;                                           /* GNU_args_size */
        default: return 0;                                                         /* set_loc, vendor ops */
      }
    }
    if (advance) {
      loc += delta * c->code_align;
      if (loc > pc) return !r->bad; /* the row in force at pc is the current one */
    }
  }
  return !r->bad;
}

/* The rule of the frame executing at pc (frame 0: the interrupted instruction; outer frames: their
 * return address minus one, inside the call), in the cache's compact form. 0: not of the simple
 * form (or no CFI): libunwind's case. */
enum { COMPUTED_OTHER = 0, COMPUTED_SIMPLE = 1, COMPUTED_NO_CFI = 2 };

/* Code that has no call-frame information at all: in no loaded object (JIT code, V8's copy of
 * node's builtins), or in an object with a valid .eh_frame_hdr whose table has no entry covering it
 * (V8's embedded builtins in node's own text). Its frames are walked by the frame-pointer chain,
 * what libunwind falls back to there too. Not a PLT entry (the one such code libunwind recognises
 * by its bytes, read here inside the object's segments): left to libunwind. */
static int no_cfi(uintptr_t pc, const module *m, int in_object) {
  if (!in_object) return 1;
  if (!in_code(m, pc, 16)) return 0;
  uint64_t w0, w1;
  memcpy(&w0, (const void *)pc, 8);
  memcpy(&w1, (const void *)(pc + 8), 8);
  int plt = (w0 & 0xffff) == 0x25ff && ((w0 >> 48) & 0xff) == 0x68 && ((w1 >> 24) & 0xff) == 0xe9;
  return !plt;
}

static int compute(uintptr_t pc, hp_cfi_rule *out) {
  module m;
  if (!find_module(pc, &m)) {
    /* in no object; but during a dlclose the snapshot answers "none" for every address: libunwind's */
    if (hp_maps_object_of(pc) || !hp_maps_generation()) return COMPUTED_OTHER;
    return COMPUTED_NO_CFI;
  }
  const uint8_t *fde = find_fde(&m, pc);
  const uint8_t *body, *end;
  if (!fde) return no_cfi(pc, &m, 1) ? COMPUTED_NO_CFI : COMPUTED_OTHER;
  if (!entry(&m, fde, &body, &end)) return 0;
  rd r = {body, end, 0};
  uint32_t cie_off = (uint32_t)fixed(&r, 4);
  if (r.bad || cie_off == 0 || (uintptr_t)cie_off > (uintptr_t)body) return 0;
  cie_info c;
  if (!parse_cie(&m, body - cie_off, &c) || c.signal_frame) return 0;
  uint64_t begin, range;
  int indirect = 0;
  if (!encoded(&r, c.fde_enc, (uintptr_t)m.hdr, &begin, &indirect) || indirect) return 0;
  if (!encoded(&r, c.fde_enc & 0x0f, 0, &range, NULL)) return 0;
  if (pc < begin || pc - begin >= range) /* between FDEs: no CFI for pc */
    return no_cfi(pc, &m, 1) ? COMPUTED_NO_CFI : COMPUTED_OTHER;
  if (c.has_z) {
    uint64_t len = uleb(&r);
    if (r.bad || len > (size_t)(r.end - r.p)) return 0;
    r.p += len;
  }
  cfi_row row;
  memset(&row, 0, sizeof row);
  row.cfa_reg = DW_RSP;
  rd cie_insns = c.insns;
  if (!run_cfa(&cie_insns, &c, &row, NULL, begin, UINT64_MAX)) return 0;
  cfi_row initial = row;
  if (!run_cfa(&r, &c, &row, &initial, begin, pc)) return 0;

  const reg_rule *ra = &row.reg[R_RA], *rbp = &row.reg[R_RBP];
  memset(out, 0, sizeof *out);
  out->pc = pc;
  if (ra->kind == RULE_UNDEFINED) {
    out->flags = HP_CFI_OK | HP_CFI_END; /* the outermost frame (_start, clone) */
    return 1;
  }
  if (row.cfa_reg != DW_RSP && row.cfa_reg != DW_RBP) return 0;
  if (ra->kind != RULE_OFFSET || rbp->kind == RULE_UNDEFINED || rbp->kind == RULE_OTHER) return 0;
  if (row.cfa_off < INT32_MIN || row.cfa_off > INT32_MAX || ra->off < INT8_MIN || ra->off > INT8_MAX) return 0;
  if (rbp->kind == RULE_OFFSET && (rbp->off < INT16_MIN || rbp->off > INT16_MAX)) return 0;
  out->cfa_off = (int32_t)row.cfa_off;
  out->ra_off = (int8_t)ra->off;
  out->flags = HP_CFI_OK | (row.cfa_reg == DW_RBP ? HP_CFI_CFA_RBP : 0) | (row.plt ? HP_CFI_PLT : 0);
  if (rbp->kind == RULE_OFFSET) {
    out->flags |= HP_CFI_RBP_SAVED;
    out->rbp_off = (int16_t)rbp->off;
  }
  return 1;
}

int hp_cfi_prepare(hp_sample_thread *st) {
  /* the table describes the modules of one snapshot: a new snapshot (a library loaded or
   * unloaded) starts it afresh, so no rule outlives its module */
  uint64_t gen = hp_maps_generation();
  if (!gen) return 0; /* no snapshot, or a dlclose under way: libunwind says what it can */
  if (st->work->cfi_gen != gen) {
    memset(st->work->cfi_cache, 0, sizeof st->work->cfi_cache);
    st->work->cfi_gen = gen;
  }
  return 1;
}

void hp_cfi_fill(uintptr_t pc, hp_cfi_rule *slot) {
  int c = compute(pc, slot);
  if (c != COMPUTED_SIMPLE) {
    memset(slot, 0, sizeof *slot);
    slot->pc = pc; /* remembered as "not simple": libunwind's, without parsing again */
    if (c == COMPUTED_NO_CFI) slot->flags = HP_CFI_CHAIN;
  }
}

#else

int hp_cfi_prepare(hp_sample_thread *st) {
  (void)st;
  return 0;
}

void hp_cfi_fill(uintptr_t pc, hp_cfi_rule *slot) {
  memset(slot, 0, sizeof *slot);
  slot->pc = pc;
}

#endif
