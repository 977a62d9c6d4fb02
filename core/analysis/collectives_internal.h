/* collectives_internal.h: the collectives' state (collectives.h), shared
 * by collectives.c, which finds, matches and summarises them, and its
 * passes in their own files: collectives_clock.c (clock offsets) and
 * collectives_replay.c (critical paths, what-ifs). Nothing here is
 * collectives.h's contract.
 */
#ifndef STRATA_COLLECTIVES_INTERNAL_H
#define STRATA_COLLECTIVES_INTERNAL_H

#include "collectives.h"

/* Interned strings (collective kinds and groups). */
typedef struct istr {
  char *p;
  size_t n;
} istr;

typedef struct istrs {
  istr *v;
  uint32_t n, cap, last;
} istrs;

/* One collective's instance on one rank: its device kernel. */
typedef struct inst {
  uint32_t trace, device;
  st_event_ref kernel;
  int64_t t_a, t_e; /* own times */
  int64_t a, e;     /* aligned (after 4.) */
  uint32_t group, kind;
  int64_t seq, step;
  uint32_t ord, coll, pos;
  uint64_t bytes;
} inst;

struct st_collectives {
  st_alloc alloc;
  const st_analysis *an;
  uint8_t *added; /* per trace: st_collectives_add called */
  int finished;
  istrs names;
  inst *in;
  uint32_t nin, capin;
  st_coll *colls;
  uint32_t ncolls;
  st_coll_member *members;
  uint32_t nmembers;
  st_coll_offset *offsets;
  int64_t zero; /* absolute ns of aligned 0 */
  st_coll_step_rank *sr;
  uint32_t nsr;
  st_coll_path *paths;
  uint32_t npaths;
  st_coll_segment *segs;
  uint32_t nsegs, capsegs;
  double *what_if;
  uint8_t *what_if_has;
};

/* The median of v[0, n) (sorted in place; even n: x + (y - x) / 2 of the
 * middle two x <= y). */
int64_t coll_median(int64_t *v, uint32_t n);

/* The traces' clock offsets (collectives.h) into c->offsets and c->zero,
 * and the instances' aligned times; o: pointers to the c->nin instances in
 * their matching order (each o[i]->coll set). ST_OK or ST_ERR_NOMEM
 * (collectives_clock.c). */
st_code coll_offsets(st_collectives *c, inst **o);

/* The steps replayed: c->paths, c->segs, c->what_if (collectives_replay.c).
 * ST_OK or ST_ERR_NOMEM. */
st_code coll_replays(st_collectives *c);

#endif
