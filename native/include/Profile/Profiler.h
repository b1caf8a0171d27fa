/* TAU's internal header, which some of TAU's own examples include instead of TAU.h
 * (`#include <Profile/Profiler.h>`): with hyprof's include directory (`hyprof config --cflags`) it is
 * hyprof's TAU.h, so those programs build unchanged. */
#ifndef HYPROF_TAU_PROFILE_PROFILER_H
#define HYPROF_TAU_PROFILE_PROFILER_H
#include <TAU.h>
#endif
