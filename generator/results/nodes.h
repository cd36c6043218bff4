/* nodes: slow-node suspicion. Every judged night of every configuration is
 * an event: the nodes its run ran on (the history record's node list,
 * Slurm hostlist syntax) and whether the night was slower than its
 * baseline. A node's score at a night is the share of slow runs among the
 * runs it took part in, minus that share among the runs it did not take
 * part in, over every night up to that one (a running score: each night is
 * scored as if it were the latest). A slow run names the nodes it shares
 * with earlier slow runs whose score is positive; when every run ran on the
 * same nodes nothing can tell a node from the software, and none is named. */
#ifndef LLMB_NODES_H
#define LLMB_NODES_H

#include <stddef.h>

#include <jansson.h>

struct nodes;

struct nodes *nodes_new(void);
void nodes_free(struct nodes *s);
/* One run on night day on the nodes of list; slow: its night was SLOWER. */
void nodes_add(struct nodes *s, int day, const char *list, int slow);
/* The nodes a slow run on night day (on the nodes of list) shares with
 * earlier slow runs, most suspect first: [{"node","score","runs",
 * "slow_runs","earlier_slow_runs","runs_elsewhere","slow_runs_elsewhere"}],
 * or NULL when none is named. */
json_t *nodes_suspects(const struct nodes *s, int day, const char *list);
/* Every node's score at night day ({"node": {...}}), or NULL when the runs
 * ran on fewer than two nodes in all. */
json_t *nodes_scores(const struct nodes *s, int day);
/* The names of a Slurm hostlist ("n[1-3,7],gpu-a"; zero padding kept):
 * a vector of *n strings (free each and the vector), NULL when the list is
 * malformed or names more than 65536 nodes. */
char **nodes_expand(const char *list, size_t *n);
/* How many names a Slurm hostlist holds, counted without expanding it (no
 * bound: n[1-1000000] is 1000000): 0, or -1 when it is malformed. */
int nodes_count(const char *list, size_t *n);

#endif
