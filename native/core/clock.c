/* The choice and calibration of the runtime's clock (clock.h).
 *
 * HYPROF_CLOCK:
 *   auto (default)  the TSC when it is invariant and the kernel itself keeps time with it (its
 *                   clocksource is "tsc": the kernel checked that the counters of all CPUs agree, so
 *                   a thread moving between CPUs reads one clock); else CLOCK_MONOTONIC;
 *   tsc             the TSC whenever it is invariant, whatever the kernel's clocksource;
 *   monotonic       clock_gettime(CLOCK_MONOTONIC) always.
 * Invariant: CPUID leaf 0x80000007, EDX bit 8 (what Linux reports as constant_tsc + nonstop_tsc):
 * the counter ticks at one rate in every P-, C- and T-state.
 *
 * Calibration: the TSC's rate is measured against CLOCK_MONOTONIC between the start and the end of
 * initialisation, at least 1 ms apart (the rest of initialisation usually fills most of it). Each
 * point is the best of a few brackets "monotonic, TSC, monotonic" (the tightest bracket: a
 * preemption in between only makes a bracket wider); measured here, 100 µs already gives a rate
 * within 4e-6 of one taken over a second, 1 ms within 5e-6 under load. The second point is the
 * origin of the conversion, so hp_now_ns continues CLOCK_MONOTONIC from there. A forked child keeps
 * its parent's conversion (same counter, same rate).
 */
#define _GNU_SOURCE
#include "clock.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "config.h"
#include "meta.h"

hp_clock hp_clk;

#define MIN_WINDOW_NS 1000000u   /* the calibration's two points are at least this far apart */
#define BRACKETS 8               /* tries per calibration point */

enum { CLOCK_AUTO, CLOCK_TSC, CLOCK_MONOTONIC_ONLY };
static const char *const clock_names[] = {"auto", "tsc", "monotonic", NULL};

static int wanted = CLOCK_MONOTONIC_ONLY;  /* what calibrate_begin decided to try */
static uint64_t begin_ns, begin_tsc;
static char reason[160];                   /* why the monotonic clock is in force, for the metadata */

#if defined(__x86_64__)
static int tsc_invariant(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007) return 0;
  __cpuid(0x80000007, a, b, c, d);
  return (d >> 8) & 1;
}

/* The kernel's current clocksource is the TSC (it found the TSC stable and synchronised). */
static int kernel_uses_tsc(char *name, size_t cap) {
  snprintf(name, cap, "unknown");
  FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (!f) return 0;
  if (!fgets(name, (int)cap, f)) snprintf(name, cap, "unknown");
  fclose(f);
  name[strcspn(name, "\n")] = 0;
  return strcmp(name, "tsc") == 0;
}

/* One calibration point: CLOCK_MONOTONIC at the middle of the tightest bracket, and its TSC. */
static void point(uint64_t *ns, uint64_t *tsc) {
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < BRACKETS; i++) {
    uint64_t a = hp_mono_ns();
    uint64_t t = __rdtsc();
    uint64_t b = hp_mono_ns();
    if (b - a < best) {
      best = b - a;
      *ns = a + (b - a) / 2;
      *tsc = t;
    }
  }
}
#endif

void hp_clock_calibrate_begin(void) {
  int choice = hp_env_choice("HYPROF_CLOCK", NULL, clock_names, CLOCK_AUTO);
  wanted = CLOCK_MONOTONIC_ONLY;
  if (choice == CLOCK_MONOTONIC_ONLY) {
    snprintf(reason, sizeof reason, "HYPROF_CLOCK=monotonic");
    return;
  }
#if defined(__x86_64__)
  if (!tsc_invariant()) {
    snprintf(reason, sizeof reason, "the TSC is not invariant on this machine");
    if (choice == CLOCK_TSC) hp_warn("HYPROF_CLOCK=tsc: %s; using CLOCK_MONOTONIC", reason);
    return;
  }
  char source[64];
  if (!kernel_uses_tsc(source, sizeof source) && choice == CLOCK_AUTO) {
    snprintf(reason, sizeof reason, "the kernel's clocksource is %s, not tsc (HYPROF_CLOCK=tsc uses the TSC anyway)",
             source);
    return;
  }
  wanted = CLOCK_TSC;
  point(&begin_ns, &begin_tsc);
#else
  snprintf(reason, sizeof reason, "no TSC support on this architecture");
  if (choice == CLOCK_TSC) hp_warn("HYPROF_CLOCK=tsc: %s; using CLOCK_MONOTONIC", reason);
#endif
}

void hp_clock_calibrate_end(void) {
#if defined(__x86_64__)
  if (wanted == CLOCK_TSC) {
    uint64_t waited = hp_mono_ns() - begin_ns;
    if (waited < MIN_WINDOW_NS) {
      struct timespec rest = {0, (long)(MIN_WINDOW_NS - waited)};
      while (nanosleep(&rest, &rest) != 0) {
      }
    }
    uint64_t end_ns = 0, end_tsc = 0;
    point(&end_ns, &end_tsc);
    if (end_tsc > begin_tsc && end_ns > begin_ns) {
      hp_clk.tsc0 = end_tsc;
      hp_clk.ns0 = end_ns;
      hp_clk.mult = (uint64_t)((((unsigned __int128)(end_ns - begin_ns)) << 32) / (end_tsc - begin_tsc));
      __atomic_store_n(&hp_clk.tsc, 1, __ATOMIC_RELEASE);
      char desc[160];
      snprintf(desc, sizeof desc, "TSC, invariant, %.3f MHz (calibrated against CLOCK_MONOTONIC over %.2f ms)",
               (double)(end_tsc - begin_tsc) * 1e3 / (double)(end_ns - begin_ns), (double)(end_ns - begin_ns) / 1e6);
      hp_meta_add("HYPROF_CLOCK", "tsc");
      hp_meta_add("hyprof Clock", desc);
      return;
    }
    snprintf(reason, sizeof reason, "the TSC did not advance during calibration");
  }
#endif
  char desc[200];
  snprintf(desc, sizeof desc, "CLOCK_MONOTONIC (%s)", reason);
  hp_meta_add("HYPROF_CLOCK", "monotonic");
  hp_meta_add("hyprof Clock", desc);
}
