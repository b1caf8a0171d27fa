/* C++ scope timers over the C API: a region or phase that stops when the scope ends.
 * Constructors are forced inline so the timer's start frame is the user's function, which is where
 * sample unwinding must stop. */
#ifndef HYPROF_HPP
#define HYPROF_HPP

#include <hyprof.h>

namespace hyprof {

#define HYPROF_INLINE inline __attribute__((always_inline))

class Region {
 public:
  HYPROF_INLINE explicit Region(hyprof_event_t event) : event_(event) { hyprof_start(event_); }
  HYPROF_INLINE explicit Region(const char *name, const char *group = nullptr)
      : event_(hyprof_event(name, group)) {
    hyprof_start(event_);
  }
  HYPROF_INLINE ~Region() { hyprof_stop(event_); }
  Region(const Region &) = delete;
  Region &operator=(const Region &) = delete;

 private:
  hyprof_event_t event_;
};

class Phase {
 public:
  HYPROF_INLINE explicit Phase(const char *name, const char *group = nullptr)
      : event_(hyprof_phase(name, group)) {
    hyprof_start(event_);
  }
  HYPROF_INLINE ~Phase() { hyprof_stop(event_); }
  Phase(const Phase &) = delete;
  Phase &operator=(const Phase &) = delete;

 private:
  hyprof_event_t event_;
};

/* Specialise the running timer by a parameter (see hyprof_param). */
inline void param(const char *name, long long value) { hyprof_param(name, value); }

#undef HYPROF_INLINE

}  // namespace hyprof

#endif
