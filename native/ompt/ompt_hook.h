/* What other modules call in the OpenMP tool: the raw file section (native/dump) and the state of a
 * sample (native/sample's signal handler). Both are safe to call when no OpenMP runtime is present. */
#ifndef HP_OMPT_HOOK_H
#define HP_OMPT_HOOK_H

#include <stdint.h>

#include "../core/thread.h"
#include "../dump/writer.h"

/* Section tag of the OpenMP tool's data (docs/raw-format.md, "9 OMPT"). */
#define HP_SEC_OMPT 9u

/* Write the OMPT section when an OpenMP runtime started the tool. Async-signal-safe. */
void hp_ompt_write_sections(hp_buf *b);

/* Set by the tool once the runtime initialised it: classifies one sample of thread t in `context`
 * (value: its time in ns) and returns the thread's OMPT state. Async-signal-safe; NULL otherwise. */
extern uint32_t (*volatile hp_sample_state_hook)(hp_thread *t, uint64_t context, uint64_t value_ns);

#endif
