/* The ranks of one node end together when Open MPI stops them (rank_end.c). */
#ifndef HP_RANK_END_H
#define HP_RANK_END_H

/* At start, in a rank that Open MPI launched with other ranks on its node: names the node's tally
 * file. Elsewhere a no-op. */
void hp_rank_end_init(void);
/* At the start of the SIGINT / SIGTERM dump handler: the moment the wait is bounded from.
 * Async-signal-safe. */
void hp_rank_end_mark(void);
/* In the SIGINT / SIGTERM dump, once this rank's measurements are written: tallies it, then waits
 * (bounded) until every rank of the node has written. Async-signal-safe. */
void hp_rank_end_wait(void);

#endif
