/* Loaded objects (dl_iterate_phdr's view): where an object's code is. Used at start-up by the modules
 * that tell code apart by address (the sampler's own code, the OpenMP runtime's and the system's). */
#ifndef HP_OBJECTS_H
#define HP_OBJECTS_H

#include <link.h>
#include <stdint.h>

/* The span [lo, hi) of the object's executable segments; 0 when it has none. */
int hp_object_code(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi);
/* 1 when one of the object's loaded segments holds address a. */
int hp_object_holds(const struct dl_phdr_info *info, uintptr_t a);

#endif
