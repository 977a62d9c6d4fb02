/* argsrc_internal.h: what the args source's files share (argsrc.h is the
 * interface): the source's tables, the query's state, the JSON text writer
 * every format's decoder writes through, and each format's query step, which
 * lives beside its importer.
 *   args/argsrc.c           the source (create, recording), the query dialogue
 *   chrome/chrome_args.c    Chrome JSON: the "args" member of the object at
 *                           src (chrome_args.h), a B/E pair's args merged
 *   xplane/xplane_args.c    XSpace: an XEvent's stats and its metadata's -> JSON
 *   perfetto/perfetto_args.c  Perfetto: debug annotations, scheduling details
 *   args/argsrc_common.c    what the formats' steps use: the query's reads (ask,
 *                           finish, a record at the range's start) and the JSON
 *                           text writer (growing, capped, UTF-8 safe)
 *
 * Call order: a file calls only the files below it, never one above.
 *
 *   argsrc.c -> chrome_args.c, xplane_args.c, perfetto_args.c -> argsrc_common.c
 *   argsrc.c -> argsrc_common.c
 */
#ifndef STRATA_ARGSRC_INTERNAL_H
#define STRATA_ARGSRC_INTERNAL_H

#include "argsrc.h"
#include "json_out.h"
#include "pb_wire.h"
#include "u64map.h"

/* ---- the source's tables ---- */

typedef struct txt {
  uint32_t off, len; /* into st_argsrc.text */
} txt;

typedef struct xp_ev {
  uint64_t off, len;
} xp_ev;

typedef struct xp_plane {
  uint64_t off, len;
  st_u64map stats; /* stat metadata id -> index into xstats */
  st_u64map evs;   /* event metadata id -> index into xevs */
} xp_plane;

typedef struct pf_gen {
  uint64_t offset; /* packet that started it (0: before any clear) */
  uint32_t g;
} pf_gen;

typedef struct pf_seq {
  pf_gen *gens; /* ascending offsets */
  uint32_t n, cap;
} pf_seq;

typedef struct pf_range { /* an FtraceEventBundle record */
  uint64_t off, len;
} pf_range;

typedef struct pf_thr { /* a thread, for scheduling details */
  int64_t tid, pid;
  txt tname, pname;
} pf_thr;

/* interned key: table (1 bit) | generation (31 bits) | iid (32 bits) */
#define PF_GEN_MAX 0x7FFFFFFFu

struct st_argsrc {
  st_alloc alloc;
  st_args_kind kind;
  char *text; /* resident names, capped at ST_ARGSRC_TEXT_MAX */
  size_t ntext, captext;
  int capped;
  /* XSpace */
  xp_plane *planes;
  uint32_t nplanes, cap_planes;
  txt *xstats;
  uint32_t nxstats, cap_xstats;
  xp_ev *xevs;
  uint32_t nxevs, cap_xevs;
  /* Perfetto */
  pf_seq *seqs;
  uint32_t nseqs, cap_seqs;
  st_u64map seq_map;
  uint32_t next_gen;
  st_u64map interned; /* key -> index into ptxt */
  txt *ptxt;
  uint32_t nptxt, cap_ptxt;
  pf_range *bundles; /* ascending offsets */
  uint32_t nbundles, cap_bundles;
  pf_thr *thr;
  uint32_t nthr, cap_thr;
  st_u64map thr_map; /* tid -> index */
};

static inline uint64_t pf_key(int table, uint32_t g, uint64_t iid) {
  return ((uint64_t)(table & 1) << 63) | ((uint64_t)g << 32) | (iid & 0xFFFFFFFFu);
}

/* ---- the JSON text writer (argsrc_common.c) ---- */

#define STR_MAX ((size_t)1u << 20) /* one string value is cut past this */
#define ELLIPSIS "\xE2\x80\xA6"

typedef struct jb {
  st_jout o; /* growing (json_out.h): o.buf the text, o.len its length */
  int truncated, stop;
} jb;

void jb_put(jb *b, const char *s, size_t n);
void jb_lit(jb *b, const char *s);
/* A JSON string: control characters escaped, invalid UTF-8 -> U+FFFD, cut
 * with an ellipsis past STR_MAX bytes of input. */
void jb_str(jb *b, const uint8_t *s, size_t n);
void jb_cstr(jb *b, const char *s);
/* Starts a member or element: 0 (and stop) once the result is over the cap. */
int jb_sep(jb *b, int *first);
/* An integer: a JSON number when a double holds it exactly, else a string. */
void jb_int(jb *b, int64_t v, int is_unsigned, uint64_t u);
/* Starts member k (after a separator). */
void jb_key(jb *b, int *first, const char *k);
/* The shortest %g that reads back the same double. */
void jb_fmt_double(char *buf, size_t cap, double v);

/* ---- the query (argsrc.c, its reads argsrc_common.c), each format's step ---- */

struct st_args_query {
  const st_argsrc *as;
  st_alloc alloc;
  uint64_t src, want, want_off; /* the range asked for last */
  int steps, state, done;
  uint32_t plane;
  uint8_t *ev; /* XSpace: the XEvent payload, kept while its metadata is read */
  size_t nev;
  uint64_t ev_origin;
  jb out;
  /* a B/E slice: the end event is decoded after the first (phase 1), then
   * the two results are merged */
  uint64_t end_src; /* UINT64_MAX: none */
  int phase;
  jb first; /* the first event's result, while the end's is decoded */
};

/* Asks for [offset, offset + length) next. */
st_code argsrc_ask(st_args_query *q, uint64_t offset, uint64_t length, int *more,
                   st_args_span *read, st_error *err);
/* The result is complete. */
st_code argsrc_finish(st_args_query *q, int *more, st_error *err);
/* The LEN record with tag `tag` at the start of data: its payload, or a
 * request for the whole record when it goes on past len. */
st_code argsrc_record_at(st_args_query *q, const uint8_t *data, size_t len, uint64_t tag,
                         const char *what, const uint8_t **payload, size_t *plen, int *more,
                         st_args_span *read, st_error *err);
/* One step of a Chrome JSON / XSpace / Perfetto query: data holds the range
 * asked for. */
st_code argsrc_step_json(st_args_query *q, const uint8_t *data, size_t len, int *more,
                         st_args_span *read, st_error *err);
st_code argsrc_step_xplane(st_args_query *q, const uint8_t *data, size_t len, int *more,
                           st_args_span *read, st_error *err);
st_code argsrc_step_perfetto(st_args_query *q, const uint8_t *data, size_t len, int *more,
                             st_args_span *read, st_error *err);

#endif
