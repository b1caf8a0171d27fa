/* A plugin that sample_runpath.c dlopens by bare name through its own RUNPATH. */
#include "sample_common.h"

__attribute__((noinline)) void plug_spin(int ms) { SPIN_BODY(ms); }
__attribute__((noinline)) void plug_work(int ms) { plug_spin(ms); __asm__ volatile("" ::: "memory"); }
