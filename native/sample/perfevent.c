/* Counter-overflow sampling through perf_event_open: one event per thread (pid = its tid), whose
 * overflow raises the sampling signal on that thread (F_SETOWN_EX with F_OWNER_TID, F_SETSIG).
 * Software events (task-clock, page-faults, ...) work on these VMs; hardware ones (cycles,
 * instructions) usually cannot be opened in a VM, which hp_perf_open_check detects once so the
 * user gets one clear message and the wall timer instead. The handler recognises our signals by
 * si_fd and re-arms the event with PERF_EVENT_IOC_REFRESH. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../core/clock.h"
#include "sample_int.h"

static int open_event(pid_t tid) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = hp_scfg.perf_type;
  a.config = hp_scfg.perf_config;
  a.sample_period = hp_scfg.period_ns;
  a.disabled = 1;
  a.exclude_kernel = 1;   /* allowed at perf_event_paranoid 2, and kernel PCs cannot be unwound here */
  a.exclude_hv = 1;
  a.wakeup_events = 1;
  return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int hp_perf_open_check(void) {
  int fd = open_event(0);
  if (fd < 0) return errno ? errno : EINVAL;
  close(fd);
  return 0;
}

int hp_perf_start(hp_sample_thread *st, pid_t tid) {
  int fd = open_event(tid);
  if (fd < 0) return -1;
  struct f_owner_ex own = {F_OWNER_TID, tid};
  if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 || fcntl(fd, F_SETSIG, hp_scfg.signo) != 0 ||
      fcntl(fd, F_SETOWN_EX, &own) != 0) {
    close(fd);
    return -1;
  }
  st->perf_fd_last = fd;
  hp_sample_clock_start(st);   /* before the event can overflow: its first sample weighs from here */
  __atomic_store_n(&st->perf_fd, fd, __ATOMIC_RELEASE);
  st->active = 1;
  ioctl(fd, PERF_EVENT_IOC_RESET, 0);
  ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
  return 0;
}

/* Two stoppers may race (the dump's hp_sample_stop_all and the thread ending): the event is
 * disabled first (a second disable is harmless), then the descriptor is taken by one atomic
 * exchange, so only one of them closes it; closing the same number twice could close a descriptor
 * opened meanwhile, such as the dump's own output file. perf_fd_last keeps the number so an
 * overflow signal already queued is still recognised as ours (counted after_stop) rather than
 * forwarded to the program's SIGPROF action (the default kills the process). Async-signal-safe. */
void hp_perf_stop(hp_sample_thread *st) {
  st->active = 0;
  int fd = __atomic_load_n(&st->perf_fd, __ATOMIC_ACQUIRE);
  if (fd < 0) return;
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  fd = __atomic_exchange_n(&st->perf_fd, -1, __ATOMIC_ACQ_REL);
  if (fd >= 0) close(fd);
}
