/* The MPI rank of this process from its launcher's environment, and launcher detection (rank.c). */
#ifndef HP_RANK_H
#define HP_RANK_H

#include <stddef.h>

/* 1 when this process is an MPI launcher or one of its daemons (never measured); its executable's
 * name goes to `name` (cap bytes). */
int hp_is_launcher(char *name, size_t cap);
/* Set hp_rt.node (and the world size, the run id, their metadata) from the launcher's environment,
 * when a launcher started this process. */
void hp_rank_from_env(void);

#endif
