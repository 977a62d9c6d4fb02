/* load.c: the chunk-fed loading pipeline (see load.h):
 *
 *   raw chunks -> source (sniff gzip/zlib, inflate) -> format sniff on the
 *   first decoded bytes -> one importer -> st_builder -> st_trace
 *
 * An importer is a small table of functions (create/push/finish/...); adding
 * a format means writing one and choosing it in pick_importer(). Formats
 * recognised but not read yet (zstd, zip) fail cleanly with ST_ERR_FORMAT
 * and a message saying so. Protobuf (first byte 0x0A): a `*.xplane.pb` /
 * `*.xspace.pb` name means XSpace; without the hint pb_sniff.h decides
 * between Perfetto and XSpace by content.
 */
#include "load.h"

#include "chrome_range.h"
#include "import_chrome.h"
#include "import_perfetto.h"
#include "import_pickle.h"
#include "import_xplane.h"
#include "pickle.h"
#include "pb_sniff.h"
#include "source.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define SNIFF_BYTES 64

typedef struct importer_vt {
  const char *format;
  void *(*create)(const st_alloc *a, st_builder *b, st_stats *stats);
  void (*destroy)(void *im);
  st_code (*push)(void *im, const uint8_t *data, size_t len, st_error *err);
  st_code (*finish)(void *im, st_error *err);
  int (*has_trace)(const void *im);
  const char *(*metadata_json)(const void *im);
  void (*release)(void *im); /* optional: free the working state after finish */
} importer_vt;

/* ---- Chrome JSON adapter -------------------------------------------------- */
static void *chrome_create(const st_alloc *a, st_builder *b, st_stats *s) {
  return st_chrome_create(a, b, s);
}
static void chrome_destroy(void *im) { st_chrome_destroy(im); }
static st_code chrome_push(void *im, const uint8_t *d, size_t n, st_error *e) {
  return st_chrome_push(im, d, n, e);
}
static st_code chrome_finish(void *im, st_error *e) { return st_chrome_finish(im, e); }
static int chrome_has_trace(const void *im) { return st_chrome_has_trace(im); }
static const char *chrome_meta(const void *im) { return st_chrome_metadata_json(im); }
static void chrome_release(void *im) { st_chrome_release(im); }

static const importer_vt k_chrome = {"chrome-json", chrome_create, chrome_destroy,
                                     chrome_push,   chrome_finish, chrome_has_trace,
                                     chrome_meta,   chrome_release};

/* ---- PyTorch memory snapshots (pickle; issue 34) --------------------------- */
static void *pickle_create(const st_alloc *a, st_builder *b, st_stats *s) {
  return st_pickle_imp_create(a, b, s);
}
static void pickle_destroy(void *im) { st_pickle_imp_destroy(im); }
static st_code pickle_push(void *im, const uint8_t *d, size_t n, st_error *e) {
  return st_pickle_imp_push(im, d, n, e);
}
static st_code pickle_finish(void *im, st_error *e) { return st_pickle_imp_finish(im, e); }
static int pickle_has_trace(const void *im) { return st_pickle_imp_has_trace(im); }
static const char *pickle_meta(const void *im) { return st_pickle_imp_metadata_json(im); }
static void pickle_release(void *im) { st_pickle_imp_release(im); }

static const importer_vt k_pickle = {
    "pytorch-memory-snapshot", pickle_create, pickle_destroy, pickle_push, pickle_finish,
    pickle_has_trace,          pickle_meta,   pickle_release};

/* ---- protobuf adapters: XSpace and Perfetto ------------------------------ */
static void *xplane_create(const st_alloc *a, st_builder *b, st_stats *s) {
  return st_xplane_create(a, b, s);
}
static void xplane_destroy(void *im) { st_xplane_destroy(im); }
static st_code xplane_push(void *im, const uint8_t *d, size_t n, st_error *e) {
  return st_xplane_push(im, d, n, e);
}
static st_code xplane_finish(void *im, st_error *e) { return st_xplane_finish(im, e); }
static int xplane_has_trace(const void *im) { return st_xplane_has_trace(im); }
static const char *xplane_meta(const void *im) { return st_xplane_metadata_json(im); }
static void xplane_release(void *im) { st_xplane_release(im); }

static const importer_vt k_xplane = {"xplane",    xplane_create, xplane_destroy,
                                     xplane_push, xplane_finish, xplane_has_trace,
                                     xplane_meta, xplane_release};

static void *perfetto_create(const st_alloc *a, st_builder *b, st_stats *s) {
  return st_perfetto_create(a, b, s);
}
static void perfetto_destroy(void *im) { st_perfetto_destroy(im); }
static st_code perfetto_push(void *im, const uint8_t *d, size_t n, st_error *e) {
  return st_perfetto_push(im, d, n, e);
}
static st_code perfetto_finish(void *im, st_error *e) { return st_perfetto_finish(im, e); }
static int perfetto_has_trace(const void *im) { return st_perfetto_has_trace(im); }
static const char *perfetto_meta(const void *im) { return st_perfetto_metadata_json(im); }
static void perfetto_release(void *im) { st_perfetto_release(im); }

static const importer_vt k_perfetto = {"perfetto-proto", perfetto_create, perfetto_destroy,
                                       perfetto_push,    perfetto_finish, perfetto_has_trace,
                                       perfetto_meta,    perfetto_release};

struct st_loader {
  st_alloc alloc;
  int hint_xplane;        /* file name ends in .xplane.pb: name the format "xplane" */
  uint64_t staging_limit; /* st_load_desc's */
  st_source *source;
  st_builder *builder;
  st_stats stats;
  uint8_t sniff[SNIFF_BYTES];
  size_t nsniff;
  int decided, finished;
  const importer_vt *vt;
  void *imp;
  st_argsrc *args; /* where each event's args are (argsrc.h); owned until taken */
  uint64_t fed;    /* input bytes pushed or replayed so far (st_loader_apply) */
  uint64_t split;  /* of them replayed */
  int inflated;    /* st_loader_set_inflated: the raw side's outcome */
  st_source_info inflated_info;
  st_code code;
  st_error err;
};

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  if (m > n) return 0;
  for (size_t i = 0; i < m; i++) {
    char a = s[n - m + i], b = suffix[i];
    if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
    if (a != b) return 0;
  }
  return 1;
}

st_loader *st_loader_create(const st_load_desc *desc) {
  st_alloc al = desc ? desc->alloc : (st_alloc){0};
  st_loader *l = st_calloc(&al, 1, sizeof *l);
  if (!l) return NULL;
  l->alloc = al;
  l->stats.format = "unknown";
  const char *name = desc && desc->file_name ? desc->file_name : "";
  l->hint_xplane = ends_with(name, ".xplane.pb") || ends_with(name, ".xspace.pb");
  l->builder =
      desc && desc->strings ? st_builder_create_shared(&al, desc->strings) : st_builder_create(&al);
  if (!l->builder) {
    st_free(&al, l);
    return NULL;
  }
  if (desc && desc->sink) st_builder_set_sink(l->builder, desc->sink);
  l->staging_limit = desc ? desc->staging_limit : 0;
  return l;
}

st_builder *st_loader_builder(st_loader *l) { return l ? l->builder : NULL; }

uint64_t st_loader_events_end(const st_loader *l) {
  return l && l->vt == &k_chrome && l->imp ? st_chrome_events_end(l->imp) : 0;
}

void st_loader_destroy(st_loader *l) {
  if (!l) return;
  if (l->vt && l->imp) l->vt->destroy(l->imp);
  st_source_destroy(l->source);
  st_builder_destroy(l->builder);
  st_argsrc_destroy(l->args);
  st_alloc a = l->alloc;
  st_free(&a, l);
}

const st_stats *st_loader_stats(const st_loader *l) { return l ? &l->stats : NULL; }

const st_argsrc *st_loader_args_source(const st_loader *l) { return l ? l->args : NULL; }

st_argsrc *st_loader_take_args_source(st_loader *l) {
  if (!l || !l->finished) return NULL;
  st_argsrc *as = l->args;
  l->args = NULL;
  return as;
}

const char *st_loader_metadata_json(const st_loader *l) {
  if (!l || !l->vt || !l->imp || !l->vt->metadata_json) return "{}";
  return l->vt->metadata_json(l->imp);
}

static st_code fail(st_loader *l, st_code code, uint64_t offset, const char *msg) {
  if (l->code == ST_OK) {
    st_error_set(&l->err, code, offset, "%s", msg);
    l->code = code;
  }
  return l->code;
}

/* Decides the format from the first decoded bytes. final: no more will come.
 * Returns 1 once decided (or failed), 0 to wait for more bytes. */
static int pick_importer(st_loader *l, int final) {
  const uint8_t *s = l->sniff;
  size_t n = l->nsniff, i = 0;
  static const uint8_t bom[3] = {0xEF, 0xBB, 0xBF};
  if (n < 3 && !final && memcmp(s, bom, n) == 0) return 0;
  if (n >= 3 && memcmp(s, bom, 3) == 0) i = 3;
  while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) i++;
  if (i == n && !final && n < SNIFF_BYTES) return 0;
  /* a verdict other than JSON waits for 4 bytes (zstd/zip magic) */
  if (i < n && s[i] != '{' && s[i] != '[' && n < 4 && !final) return 0;
  if (n == 0) {
    fail(l, ST_ERR_EMPTY, 0,
         l->stats.compressed ? "empty input: no bytes after decompression" : "empty input");
    return 1;
  }
  if (i < n && (s[i] == '{' || s[i] == '[')) {
    l->vt = &k_chrome;
  } else if (i == n && n == SNIFF_BYTES) {
    l->vt = &k_chrome; /* a long run of whitespace: let the JSON reader judge */
  } else if (st_pickle_sniff(s, n)) {
    l->vt = &k_pickle;
  } else if (l->hint_xplane) {
    l->vt = &k_xplane;
  } else if (s[0] == 0x0A) {
    /* the XPlane header fits in the sniff window; wait for it unless final */
    if (n < SNIFF_BYTES && !final) return 0;
    l->vt = st_pb_sniff(s, n) == ST_PB_XSPACE ? &k_xplane : &k_perfetto;
  } else if (n >= 4 && !memcmp(s, "\x28\xB5\x2F\xFD", 4)) {
    fail(l, ST_ERR_FORMAT, 0, "zstd compression is not supported yet");
    return 1;
  } else if (n >= 4 && !memcmp(s, "PK\x03\x04", 4)) {
    fail(l, ST_ERR_FORMAT, 0, "zip archives are not supported; extract the trace first");
    return 1;
  } else if (i == n) {
    fail(l, ST_ERR_FORMAT, n, "not a trace: only whitespace");
    return 1;
  } else {
    char msg[192]; /* the formats tried, each by how it starts */
    snprintf(msg, sizeof msg,
             "not a trace: tried Chrome JSON (expected '{' or '[' (found 0x%02X)), Perfetto and "
             "XPlane protobuf (a first byte 0x0A), gzip, zlib, zstd and zip",
             s[i]);
    fail(l, ST_ERR_FORMAT, i, msg);
    return 1;
  }
  l->stats.format = l->vt->format;
  l->imp = l->vt->create(&l->alloc, l->builder, &l->stats);
  if (l->imp && l->vt == &k_perfetto && l->staging_limit)
    st_perfetto_set_staging_limit(l->imp, l->staging_limit);
  st_args_kind ak = l->vt == &k_xplane     ? ST_ARGS_XPLANE
                    : l->vt == &k_perfetto ? ST_ARGS_PERFETTO
                    : l->vt == &k_pickle   ? ST_ARGS_NONE
                                           : ST_ARGS_JSON;
  l->args = st_argsrc_create(&l->alloc, ak);
  if (!l->imp || !l->args) {
    fail(l, ST_ERR_NOMEM, 0, "out of memory");
    return 1;
  }
  if (ak == ST_ARGS_XPLANE) st_xplane_set_args_source(l->imp, l->args);
  if (ak == ST_ARGS_PERFETTO) st_perfetto_set_args_source(l->imp, l->args);
  return 1;
}

static st_code feed(st_loader *l, const uint8_t *data, size_t len) {
  st_error e;
  memset(&e, 0, sizeof e);
  st_code c = l->vt->push(l->imp, data, len, &e);
  if (c != ST_OK && l->code == ST_OK) {
    l->err = e;
    l->code = c;
  }
  return c;
}

/* The source's sink: decoded bytes. */
static st_code on_decoded(void *ud, const uint8_t *data, size_t len) {
  st_loader *l = ud;
  if (l->code != ST_OK) return l->code;
  if (!l->decided) {
    size_t take = SNIFF_BYTES - l->nsniff < len ? SNIFF_BYTES - l->nsniff : len;
    memcpy(l->sniff + l->nsniff, data, take);
    l->nsniff += take;
    data += take;
    len -= take;
    if (!pick_importer(l, 0)) return ST_OK;
    l->decided = 1;
    if (l->code != ST_OK) return l->code;
    st_code c = feed(l, l->sniff, l->nsniff);
    if (c != ST_OK) return c;
  }
  return len ? feed(l, data, len) : ST_OK;
}

static void sync_source_stats(st_loader *l) {
  const st_source_info *si = l->inflated ? &l->inflated_info : st_source_get_info(l->source);
  if (!si) return;
  l->stats.bytes_in = si->bytes_in;
  l->stats.bytes_decoded = si->bytes_out;
  l->stats.compressed =
      si->compression == ST_COMPRESSION_GZIP || si->compression == ST_COMPRESSION_ZLIB;
}

/* the importer parses what it holds (it may wait for more bytes to retry a
 * cut element): then its replay point is known */
static st_code settle(st_loader *l, int force) {
  if (l->decided && l->vt == &k_chrome && l->code == ST_OK) {
    st_error e;
    memset(&e, 0, sizeof e);
    if (st_chrome_settle(l->imp, force, &e) != ST_OK) {
      l->err = e;
      l->code = e.code;
    }
  }
  return l->code;
}

/* An error of the source (gzip/zlib damage) is taken once the importer has
 * parsed what was decoded before it: an error there came first in the
 * input, and wins. (Else which one is said would depend on whether the
 * importer happened to wait for more bytes: on how the input was pushed.) */
static void source_error(st_loader *l, st_code c, const st_error *e) {
  if (c == ST_OK || l->code != ST_OK) return;
  if (settle(l, 1) != ST_OK) return;
  l->err = *e;
  l->err.code = c;
  l->code = c;
}

st_code st_loader_push(st_loader *l, const void *data, size_t len) {
  if (!l) return ST_ERR_ARG;
  if (l->code != ST_OK || l->finished) return l->code;
  if (!l->source) {
    l->source = st_source_create(&l->alloc, on_decoded, l);
    if (!l->source) return fail(l, ST_ERR_NOMEM, 0, "out of memory");
  }
  st_error e;
  memset(&e, 0, sizeof e);
  l->fed += len;
  st_code c = st_source_push(l->source, data, len, &e);
  sync_source_stats(l);
  source_error(l, c, &e);
  return l->code;
}

st_trace *st_loader_finish(st_loader *l, st_error *err) {
  st_error local;
  if (!err) err = &local;
  memset(err, 0, sizeof *err);
  if (!l) {
    st_error_set(err, ST_ERR_ARG, 0, "no loader");
    return NULL;
  }
  if (l->finished) {
    st_error_set(err, ST_ERR_ARG, 0, "loader already finished");
    return NULL;
  }
  l->finished = 1;
  if (!l->source) l->source = st_source_create(&l->alloc, on_decoded, l);
  if (!l->source) fail(l, ST_ERR_NOMEM, 0, "out of memory");
  if (l->code == ST_OK || l->code == ST_ERR_GZIP || l->code == ST_ERR_JSON ||
      l->code == ST_ERR_LIMIT || l->code == ST_ERR_PROTO || l->code == ST_ERR_TRUNCATED) {
    if (l->code == ST_OK) {
      st_error e;
      memset(&e, 0, sizeof e);
      source_error(l, st_source_finish(l->source, &e), &e);
    }
    sync_source_stats(l);
    const st_source_info *si = l->inflated ? &l->inflated_info : st_source_get_info(l->source);
    if (si && si->trailing_garbage)
      st_stats_warn(&l->stats, "compressed_trailing_garbage", si->trailing_offset);
    /* a stream cut or corrupt part-way still hands over what was decoded */
    if (!l->decided && l->code == ST_OK) {
      pick_importer(l, 1);
      l->decided = 1;
      if (l->code == ST_OK) feed(l, l->sniff, l->nsniff);
    } else if (!l->decided && l->nsniff > 0 && l->code == ST_ERR_GZIP && pick_importer(l, 1)) {
      l->decided = 1;
      if (l->vt) feed(l, l->sniff, l->nsniff);
    }
    if (l->vt && l->imp) {
      st_error e;
      memset(&e, 0, sizeof e);
      st_code c = l->vt->finish(l->imp, &e);
      if (c != ST_OK && l->code == ST_OK) {
        l->err = e;
        l->code = c;
      }
    }
  }
  *err = l->err;
  err->code = l->code;
  if (l->code == ST_ERR_NOMEM || !l->vt || !l->imp || !l->vt->has_trace(l->imp)) return NULL;
  /* the importer's maps and window are not needed to finish the model:
   * freed first, they do not add to the peak */
  if (l->vt->release) l->vt->release(l->imp);
  st_error be;
  memset(&be, 0, sizeof be);
  st_builder *b = l->builder;
  l->builder = NULL; /* consumed by finish, also on failure */
  st_trace *t = st_builder_finish(b, &be);
  if (!t) {
    /* the whole input (up to any damage reported in err) was read: say
     * where, and that it was the model that did not fit */
    int damaged = l->code != ST_OK;
    st_error_set(err, be.code, damaged ? err->offset : l->stats.bytes_decoded,
                 "%s, after reading %s", be.msg,
                 damaged ? "the input up to its damage" : "the whole input");
    return NULL;
  }
  /* flows are chained and bound to events by the builder: report what it made */
  st_flow_info fi;
  st_trace_flow_info(t, &fi);
  l->stats.flows = fi.bound;
  st_stats_warn_n(&l->stats, "unmatched_flow", fi.unmatched_offset, fi.unmatched);
  st_stats_warn_n(&l->stats, "flow_unbound", fi.unbound_offset, fi.unbound);
  return t;
}

/* ---- an import split across workers ---------------------------------------- */

int st_load_splittable(const void *head, size_t n) {
  const uint8_t *s = head;
  if (!s || n < 2 || st_source_sniff(s[0], s[1]) != ST_COMPRESSION_NONE) return 0;
  size_t i = n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3) ? 3 : 0;
  while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) i++;
  return i < n && (s[i] == '{' || s[i] == '[');
}

/* the first 64 decoded bytes of a trial inflate */
typedef struct head64 {
  uint8_t b[64];
  size_t n;
} head64;

static st_code head_sink(void *ud, const uint8_t *p, size_t n) {
  head64 *h = ud;
  size_t take = sizeof h->b - h->n < n ? sizeof h->b - h->n : n;
  memcpy(h->b + h->n, p, take);
  h->n += take;
  return h->n == sizeof h->b ? ST_ERR_LIMIT : ST_OK; /* enough: stop */
}

int st_load_decoded_splittable(const void *raw, size_t n) {
  const uint8_t *r = raw;
  if (!r || n < 2 || st_source_sniff(r[0], r[1]) == ST_COMPRESSION_NONE) return 0;
  head64 h = {{0}, 0};
  st_source *src = st_source_create(NULL, head_sink, &h);
  if (!src) return 0;
  st_error err;
  st_source_push(src, raw, n, &err);
  st_source_destroy(src);
  return h.n > 0 && st_load_splittable(h.b, h.n);
}

/* 1 if the loader stands where result ri may be replayed, right now */
/* 1 if the loader stands where result ri may be replayed from its event at
 * `from` (its start, or one of its events: catch_up), right now */
static int replayable_at(const st_loader *l, const st_range_info *ri, uint64_t from) {
  uint64_t at;
  if (l->code != ST_OK || l->finished || !l->decided || l->vt != &k_chrome) return 0;
  const st_source_info *si = st_source_get_info(l->source);
  if (!si || si->compression != ST_COMPRESSION_NONE) return 0;
  return ri->status != ST_RANGE_NO_START && l->fed == from && st_chrome_replay_point(l->imp, &at) &&
         at == from;
}

static int replayable(const st_loader *l, const st_range_info *ri) {
  return replayable_at(l, ri, ri->start);
}

int st_loader_apply_needs_bytes(st_loader *l, const void *result, size_t rlen) {
  st_range_info ri;
  if (!l || !st_range_info_read(result, rlen, &ri)) return 1;
  /* as st_loader_apply goes: to the start, the result, the rest */
  if (ri.status != ST_RANGE_NO_START && l->fed < ri.start) return 1;
  if (settle(l, 0) != ST_OK) return 0; /* apply returns the error */
  if (replayable(l, &ri)) return ri.stop < ri.next;
  return l->fed < ri.next;
}

uint64_t st_loader_split_bytes(const st_loader *l) { return l ? l->split : 0; }

void st_loader_set_inflated(st_loader *l, const st_source_info *info, st_code code,
                            const st_error *err) {
  if (!l || !info || l->finished) return;
  l->inflated = 1;
  l->inflated_info = *info;
  st_error e;
  memset(&e, 0, sizeof e);
  source_error(l, code, err ? err : &e);
  if (l->source) sync_source_stats(l);
}

/* pushes the task's bytes [l->fed, to) */
static st_code push_range(st_loader *l, const st_range_info *ri, const uint8_t *bytes, size_t blen,
                          uint64_t to) {
  if (l->fed >= to) return l->code;
  if (!bytes || l->fed < ri->base || to - ri->base > blen) {
    st_error_set(&l->err, ST_ERR_ARG, l->fed, "a split load is missing the bytes of a task");
    l->code = ST_ERR_ARG;
    return l->code;
  }
  return st_loader_push(l, bytes + (l->fed - ri->base), (size_t)(to - l->fed));
}

/* between two tries to catch up inside a result, bytes pushed */
#define CATCH_UP_GAP ((uint64_t)64u << 10)

/* Replays result ri from its event at `from` (replayable_at said so): the
 * loader then stands at its stop. */
static st_code replay_from(st_loader *l, const st_range_info *ri, const void *result, size_t rlen,
                           uint64_t from, const uint8_t *bytes, size_t blen) {
  st_error e;
  memset(&e, 0, sizeof e);
  st_code c = st_chrome_replay_from(l->imp, result, rlen, from, bytes, blen, ri->base, &e);
  if (c != ST_OK) {
    if (l->code == ST_OK) {
      l->err = e;
      l->code = c;
    }
    return l->code;
  }
  st_source_skip(l->source, ri->stop - l->fed);
  l->split += ri->stop - l->fed;
  l->fed = ri->stop;
  sync_source_stats(l);
  return ST_OK;
}

/* A result that did not start where the loader stood: push its bytes up to
 * one of its events after another (CATCH_UP_GAP apart) until the importer
 * stands right there, then replay the rest of the result. */
static st_code catch_up(st_loader *l, const st_range_info *ri, const void *result, size_t rlen,
                        const uint8_t *bytes, size_t blen) {
  st_range_parts it;
  uint64_t src, next_try = l->fed;
  st_range_parts_begin(&it, result, rlen);
  while (st_range_parts_next(&it, &src)) {
    if (src < next_try) continue;
    if (push_range(l, ri, bytes, blen, src) != ST_OK || settle(l, 0) != ST_OK) return l->code;
    if (replayable_at(l, ri, src)) return replay_from(l, ri, result, rlen, src, bytes, blen);
    next_try = src + CATCH_UP_GAP;
  }
  return l->code;
}

st_code st_loader_apply(st_loader *l, const void *result, size_t rlen, const void *bytes,
                        size_t blen) {
  st_range_info ri;
  if (!l) return ST_ERR_ARG;
  if (l->code != ST_OK || l->finished) return l->code;
  if (!st_range_info_read(result, rlen, &ri) || l->fed < ri.base)
    return fail(l, ST_ERR_ARG, l->fed, "a split load's task result is malformed or out of order");
  /* up to where the task starts, then its events from the result if the
   * loader stands there; the rest of the task's share as plain bytes */
  if (ri.status != ST_RANGE_NO_START && l->fed < ri.start &&
      push_range(l, &ri, bytes, blen, ri.start) != ST_OK)
    return l->code;
  if (settle(l, 0) != ST_OK) return l->code;
  if (replayable(l, &ri)) {
    if (replay_from(l, &ri, result, rlen, ri.start, bytes, blen) != ST_OK) return l->code;
  } else if (ri.status != ST_RANGE_NO_START && l->fed < ri.next) {
    if (catch_up(l, &ri, result, rlen, bytes, blen) != ST_OK) return l->code;
  }
  uint64_t to = ri.next;
  if (to > ri.size) to = ri.size;
  return push_range(l, &ri, bytes, blen, to);
}

size_t st_load_error_line(const st_error *err, const char *file_name, char *buf, size_t cap) {
  char where[96];
  if (!err) return 0;
  if (err->line)
    snprintf(where, sizeof where, " (at byte %" PRIu64 ", line %u, column %u)", err->offset,
             (unsigned)err->line, (unsigned)err->column);
  else
    snprintf(where, sizeof where, " (at byte %" PRIu64 ")", err->offset);
  const char *msg = err->msg[0] ? err->msg : st_code_name(err->code);
  int n =
      snprintf(buf, cap, "%s%s%s%s", file_name ? file_name : "", file_name ? ": " : "", msg, where);
  return n < 0 ? 0 : (size_t)n;
}
