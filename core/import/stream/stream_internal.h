/* stream_internal.h: the state streaming mode's pass keeps (stream.h),
 * shared by the pass (stream_pass.c) and window loads (stream_window.c).
 */
#ifndef STRATA_STREAM_INTERNAL_H
#define STRATA_STREAM_INTERNAL_H

#include "gzindex.h"
#include "stream.h"
#include "u64map.h"

/* A raw byte range of the trace and the SHA-256 of its bytes: how an index
 * file knows its trace (stream_stx.h). */
#define ST_STX_SAMPLES_MAX 18
typedef struct ssample {
  uint64_t offset, length;
  uint8_t sha[32];
} ssample;

/* One block of the decoded input: what its events span. */
typedef struct sblock {
  uint64_t first_src, last_src; /* UINT64_MAX, 0: no event */
  int64_t lo, hi;               /* absolute ns: the events' [start, end] extent */
  uint64_t events;
} sblock;

/* An event the index holds exactly (stream.h "the exact events"). */
typedef struct sexact {
  int64_t pid, key; /* its track, as st_builder_track keys it */
  uint32_t track_name;
  uint8_t kind, flags;
  int64_t start, dur; /* absolute ns */
  uint32_t name, cat;
  uint64_t src, end_src; /* end_src: UINT64_MAX if none */
} sexact;

/* One summary bucket of a track: events starting in
 * [base + idx * w, base + (idx + 1) * w). */
typedef struct sbucket {
  uint32_t track;
  uint8_t counter; /* a counter track's bucket: the v* fields */
  uint8_t rep_flags;
  int64_t idx;
  int64_t lo, hi; /* absolute ns: first start, last end */
  uint64_t count;
  int64_t rep_dur; /* the longest event: its name, category, flags and src */
  uint64_t rep_src;
  uint32_t rep_name, rep_cat;
  double vmin, vmax, vlast;
  int64_t tlast;
} sbucket;

/* An event at least one bucket long, kept as it is. */
typedef struct slong {
  uint32_t track;
  uint8_t flags;
  int64_t start, dur;
  uint32_t name, cat;
  uint64_t src;
} slong;

/* A counter series' last sample in one block: a window starts each series
 * at its value before the window (from the blocks it does not read). */
typedef struct sclast {
  uint64_t block;
  uint32_t track; /* the pass's */
  uint32_t name;
  int64_t pid, key;
  int64_t ts;
  double v;
} sclast;

/* a slice waiting for its end src (B/E, b/e pairs: st_builder_end_src
 * follows st_builder_slice) */
typedef struct spending {
  int on;
  uint32_t track, name, cat;
  uint8_t flags;
  int64_t start, dur;
  uint64_t src;
} spending;

/* The re-ordered copy (stream.h, stream_spill.c): one record per event. */
typedef struct srecord {
  uint32_t track; /* the copy's track (sspill.tracks) */
  uint8_t kind;   /* SREC_* */
  uint8_t flags;
  uint16_t pad;
  uint32_t name, cat;
  int64_t start, dur; /* absolute ns; a counter: dur holds the value's bits */
  uint64_t src, end_src;
} srecord;
enum {
  SREC_SLICE = 1,
  SREC_COUNTER = 2,
  SREC_FLOW = 3
}; /* a flow point: key in name | cat << 32,
     role in flags, bind in pad */

typedef struct spart {
  int64_t lo, hi; /* absolute ns: its events' [start, end] extent */
  uint64_t records;
} spart;

typedef struct schunk {
  uint64_t offset;
  uint32_t part, len;
} schunk;

typedef struct strackkey {
  int64_t pid, key;
  uint32_t name;
  uint8_t kind;
} strackkey;

/* a counter series' last sample in one partition */
typedef struct spclast {
  uint32_t part, track;
  int64_t ts;
  double v;
} spclast;

typedef struct sspill {
  uint32_t parts; /* plus one: events at least pw long */
  int64_t p0, pw; /* absolute ns: partition k starts at p0 + k * pw */
  spart *part;    /* parts + 1 */
  schunk *chunks;
  size_t nchunks;
  strackkey *tracks;
  uint32_t ntracks;
  spclast *clast;
  size_t nclast;
  uint64_t bytes;
} sspill;

void st_stream_spill_free(const st_alloc *a, sspill *sp);

struct st_stream {
  st_alloc alloc;
  char file_name[256]; /* desc's hint (a copy): the re-ordering pass's too */
  st_strtab *strings;
  int own_strings;
  st_loader *loader;
  st_builder *builder; /* the loader's, during the pass */
  st_builder_sink sink;
  uint64_t block_bytes;
  uint32_t max_buckets;
  uint64_t staging; /* the loaders' Perfetto staging limit (desc.staging) */
  int nomem;
  int finished;

  /* the summary */
  int64_t base, w; /* bucket origin and width (ns); base set by the first event */
  int have_base;
  sbucket *bk;
  size_t nbk, capbk;
  st_u64map bmap; /* (track, idx) key -> index into bk */
  /* per track, the bucket its last event went to (events of a track come
   * mostly in time order): saves most map lookups; valid while epoch holds */
  struct tcache {
    int64_t idx;
    uint32_t bucket, epoch;
  } * tcache;
  size_t ntcache;
  uint32_t epoch; /* bumped by each coarsening */
  slong *longs;
  size_t nlong, caplong;
  uint64_t summary_events;

  /* the block index */
  sblock *blocks;
  size_t nblocks, capblocks;
  uint64_t last_src; /* the last event's src (counters have none of their own) */
  sclast *clast;     /* per (block, counter track): its last sample */
  size_t nclast, capclast;
  st_u64map cmap; /* block << 24 | track -> index into clast */

  /* the exact events, and their halves' srcs sorted (after the pass) */
  sexact *exact;
  size_t nexact, capexact;
  uint64_t *skip;
  size_t nskip;
  spending pend;

  uint64_t events_end, bytes_decoded;
  int64_t origin, end; /* the summary trace's time zero and end (absolute ns) */
  int windows;
  sspill *spill; /* the re-ordered copy, once made (stream_spill.c) */

  /* compressed input: restart points built from the raw bytes during the
   * pass, for window reads (stream_read.c) */
  st_gzindex *gz;
  uint8_t gz_sniff[2];
  uint32_t gz_sniffed;
  int gz_state;       /* 0: not known yet, 1: indexing, 2: not compressed, 3: failed */
  uint64_t raw_bytes; /* raw bytes pushed */
  uint64_t gz_span;

  /* opened from an index file (stream_stx_read.c): no loader; these stand
   * for its stats, metadata and figures */
  int opened;
  st_stats *saved_stats;
  char *saved_meta;
  char *saved_text; /* the warnings' kinds */
  uint64_t saved_buckets;
  ssample samples[ST_STX_SAMPLES_MAX];
  uint32_t nsamples;
};

/* stream_read.c: the raw bytes of the pass into the gzip index (from
 * st_stream_push); its end (from st_stream_finish). */
void st_stream_gz_push(st_stream *s, const void *data, size_t len);
void st_stream_gz_finish(st_stream *s);

/* The stream's statistics: its pass's loader's, or an index file's. */
static inline const st_stats *st_stream_stats_of(const st_stream *s) {
  if (s && s->opened) return s->saved_stats;
  return s ? st_loader_stats(s->loader) : NULL;
}

/* The chunks of the re-ordered copy holding the events meeting [a0, a1]
 * (absolute ns), as st_stream_window_plan (stream_spill.c). */
uint32_t st_stream_spill_plan(const st_stream *s, int64_t a0, int64_t a1, st_stream_range *out,
                              uint32_t cap, uint64_t *bytes);

/* Adds exact event e whole to b (its track found or created by key): the
 * summary's and a window's. */
st_code st_stream_add_exact(st_builder *b, const sexact *e);

/* 1 if src is a half of an exact event (binary search of s->skip) */
int st_stream_skips(const st_stream *s, uint64_t src);

#endif
