/* The part of the OpenMP tools interface (OpenMP 5.0/5.1, chapter 4) that hyprof uses, declared from
 * the specification's ABI values. Declared here rather than included from <omp-tools.h> because that
 * header ships with clang (not on gcc's include path) and the runtime is built with gcc. */
#ifndef HP_OMPT_ABI_H
#define HP_OMPT_ABI_H

#include <stdint.h>

typedef union ompt_data_t {
  uint64_t value;
  void *ptr;
} ompt_data_t;

typedef uint64_t ompt_wait_id_t;

/* Frame addresses the runtime records per task (4.4.4.28): exit = where the runtime called into the
 * task's code, enter = where the task's code called into the runtime (NULL while it runs user code). */
typedef struct ompt_frame_t {
  ompt_data_t exit_frame;
  ompt_data_t enter_frame;
  int exit_frame_flags;
  int enter_frame_flags;
} ompt_frame_t;

typedef enum ompt_frame_flag_t {
  ompt_frame_runtime = 0x00,
  ompt_frame_application = 0x01,
  ompt_frame_cfa = 0x10,
  ompt_frame_framepointer = 0x20,
  ompt_frame_stackaddress = 0x30
} ompt_frame_flag_t;

typedef void (*ompt_callback_t)(void);
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *interface_function_name);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);

typedef struct ompt_start_tool_result_t {
  ompt_initialize_t initialize;
  ompt_finalize_t finalize;
  ompt_data_t tool_data;
} ompt_start_tool_result_t;

typedef enum ompt_callbacks_t {
  ompt_callback_thread_begin = 1,
  ompt_callback_thread_end = 2,
  ompt_callback_parallel_begin = 3,
  ompt_callback_parallel_end = 4,
  ompt_callback_task_create = 5,
  ompt_callback_task_schedule = 6,
  ompt_callback_implicit_task = 7,
  ompt_callback_sync_region_wait = 16,
  ompt_callback_mutex_released = 17,
  ompt_callback_work = 20,
  ompt_callback_masked = 21, /* ompt_callback_master in OpenMP 5.0 */
  ompt_callback_sync_region = 23,
  ompt_callback_mutex_acquire = 26,
  ompt_callback_mutex_acquired = 27,
} ompt_callbacks_t;

typedef enum ompt_set_result_t {
  ompt_set_error = 0,
  ompt_set_never = 1,
  ompt_set_impossible = 2,
  ompt_set_sometimes = 3,
  ompt_set_sometimes_paired = 4,
  ompt_set_always = 5
} ompt_set_result_t;

typedef ompt_set_result_t (*ompt_set_callback_t)(ompt_callbacks_t event, ompt_callback_t callback);
typedef int (*ompt_get_state_t)(ompt_wait_id_t *wait_id);
typedef int (*ompt_get_task_info_t)(int ancestor_level, int *flags, ompt_data_t **task_data, ompt_frame_t **task_frame,
                                    ompt_data_t **parallel_data, int *thread_num);

typedef enum ompt_scope_endpoint_t { ompt_scope_begin = 1, ompt_scope_end = 2, ompt_scope_beginend = 3 } ompt_scope_endpoint_t;

typedef enum ompt_thread_t {
  ompt_thread_initial = 1,
  ompt_thread_worker = 2,
  ompt_thread_other = 3,
  ompt_thread_unknown = 4
} ompt_thread_t;

typedef enum ompt_work_t {
  ompt_work_loop = 1,
  ompt_work_sections = 2,
  ompt_work_single_executor = 3,
  ompt_work_single_other = 4,
  ompt_work_workshare = 5,
  ompt_work_distribute = 6,
  ompt_work_taskloop = 7,
  ompt_work_scope = 8
} ompt_work_t;

typedef enum ompt_sync_region_t {
  ompt_sync_region_barrier = 1,
  ompt_sync_region_barrier_implicit = 2,
  ompt_sync_region_barrier_explicit = 3,
  ompt_sync_region_barrier_implementation = 4,
  ompt_sync_region_taskwait = 5,
  ompt_sync_region_taskgroup = 6,
  ompt_sync_region_reduction = 7,
  ompt_sync_region_barrier_implicit_workshare = 8,
  ompt_sync_region_barrier_implicit_parallel = 9,
  ompt_sync_region_barrier_teams = 10
} ompt_sync_region_t;

typedef enum ompt_mutex_t {
  ompt_mutex_lock = 1,
  ompt_mutex_test_lock = 2,
  ompt_mutex_nest_lock = 3,
  ompt_mutex_test_nest_lock = 4,
  ompt_mutex_critical = 5,
  ompt_mutex_atomic = 6,
  ompt_mutex_ordered = 7
} ompt_mutex_t;

typedef enum ompt_task_flag_t {
  ompt_task_initial = 0x00000001,
  ompt_task_implicit = 0x00000002,
  ompt_task_explicit = 0x00000004,
  ompt_task_target = 0x00000008,
  ompt_task_undeferred = 0x08000000,
  ompt_task_untied = 0x10000000,
  ompt_task_final = 0x20000000,
  ompt_task_mergeable = 0x40000000,
  ompt_task_merged = 0x80000000
} ompt_task_flag_t;

typedef enum ompt_task_status_t {
  ompt_task_complete = 1,
  ompt_task_yield = 2,
  ompt_task_cancel = 3,
  ompt_task_detach = 4,
  ompt_task_early_fulfill = 5,
  ompt_task_late_fulfill = 6,
  ompt_task_switch = 7,
  ompt_taskwait_complete = 8
} ompt_task_status_t;

typedef enum ompt_state_t {
  ompt_state_work_serial = 0x000,
  ompt_state_work_parallel = 0x001,
  ompt_state_work_reduction = 0x002,
  ompt_state_wait_barrier = 0x010,
  ompt_state_wait_barrier_implicit_parallel = 0x011,
  ompt_state_wait_barrier_implicit_workshare = 0x012,
  ompt_state_wait_barrier_implicit = 0x013,
  ompt_state_wait_barrier_explicit = 0x014,
  ompt_state_wait_barrier_implementation = 0x015,
  ompt_state_wait_barrier_teams = 0x016,
  ompt_state_wait_taskwait = 0x020,
  ompt_state_wait_taskgroup = 0x021,
  ompt_state_wait_mutex = 0x040,
  ompt_state_wait_lock = 0x041,
  ompt_state_wait_critical = 0x042,
  ompt_state_wait_atomic = 0x043,
  ompt_state_wait_ordered = 0x044,
  ompt_state_wait_target = 0x080,
  ompt_state_wait_target_map = 0x081,
  ompt_state_wait_target_update = 0x082,
  ompt_state_idle = 0x100,
  ompt_state_overhead = 0x101,
  ompt_state_undefined = 0x102
} ompt_state_t;

#endif
