/* traceset.c: the set of trace files open together (see traceset.h).
 *
 * Contents:
 *   pool       slots, generations, handles; opening and closing a file
 *   lifetime   create / destroy
 *   loads      batch begin / cancel, load begin / push / finish / abort
 *   placement  group names and initial offsets of the files shown
 *   view       the merged view, the caller's hook, batch end with its retries
 *   offsets    set_offset, align by selected events
 *   json       the list of files, the stats and their totals
 */
#include "traceset.h"

#include "stream_stx.h"

#include "json_out.h"

#include <stddef.h> /* max_align_t */
#include <stdio.h>  /* snprintf only */
#include <string.h>

#define GEN_MASK 0x7FFFu /* 15 bits: ids stay below 2^31 */
#define SLOT_MASK 0xFFFFu

typedef struct ts_file {
  st_trace *trace; /* NULL: a free slot */
  uint32_t gen;    /* 1 .. GEN_MASK; bumped when the slot is freed */
  int in_batch;    /* loaded by the batch in progress, not shown yet */
  st_stats stats;
  char *meta; /* metadata JSON */
  char *name;
  char group[ST_TRACESET_GROUP_CAP];
  char *given; /* the group name given (st_traceset_set_group), else NULL */
  st_group_source group_source;
  st_profile_clock clock;
  int64_t offset_ns;
  st_argsrc *args;
  uint64_t seq;      /* load order */
  st_stream *stream; /* streaming mode: its pass's index (NULL: resident) */
  st_trace *summary; /* streaming mode: the summary; trace is it or a window */
} ts_file;

struct st_traceset {
  st_alloc alloc, load_alloc;
  uint32_t cap;
  int unmerged;
  void (*on_close)(void *user, st_trace_handle h);
  void *user;
  ts_file *files;
  unsigned char *data; /* the caller's bytes of each slot (st_traceset_data), cap x stride */
  size_t data_size, data_stride;
  uint32_t *shown, nshown; /* display order (= load order) */
  st_strtab *strings;      /* shared by the files shown (merged sets) */
  st_strtab *batch_strings;
  int batch_open;
  uint32_t batch_loaded;
  uint64_t seq;
  st_trace *merged;  /* owned: the merged view of several files, or NULL */
  st_trace *preview; /* owned: a streaming load's summary so far, shown as the view */
  st_trace *view;    /* the one shown file's model, or merged */
  st_loader *loader;
  st_stream *stream_load;  /* a load in streaming mode (instead of loader) */
  st_trace *index_summary; /* a load from an index file: its summary (stream_load: its stream) */
  int index_verified;
  char *load_name;
  /* scratch, cap entries each, carved from one block (alloc_scratch) */
  void *scratch;
  uint32_t *old, *names;
  st_trace **parts;
  int64_t *offs, *first;
  uint8_t *have;
  st_profile_file *pf;
  st_profile_clock *clocks;
};

/* ---- pool ------------------------------------------------------------------ */

static st_trace_handle handle_of(const st_traceset *s, uint32_t slot) {
  return (st_trace_handle){slot | s->files[slot].gen << ST_TRACESET_SLOT_BITS};
}

uint32_t st_traceset_slot(const st_traceset *s, st_trace_handle h) {
  uint32_t slot = h.id & SLOT_MASK;
  if (!s || !h.id || slot >= s->cap || !s->files[slot].trace ||
      s->files[slot].gen != h.id >> ST_TRACESET_SLOT_BITS)
    return UINT32_MAX;
  return slot;
}

int st_traceset_valid(const st_traceset *s, st_trace_handle h) {
  return st_traceset_slot(s, h) != UINT32_MAX;
}

void *st_traceset_data(const st_traceset *s, st_trace_handle h) {
  uint32_t slot = st_traceset_slot(s, h);
  return slot == UINT32_MAX || !s->data ? NULL : s->data + (size_t)slot * s->data_stride;
}

static char *dup_str(const st_alloc *a, const char *src) {
  size_t n = strlen(src) + 1;
  char *d = st_malloc(a, n);
  if (d) memcpy(d, src, n);
  return d;
}

/* Frees a slot: its model, metadata and args source; its handles go stale. */
static void close_file(st_traceset *s, uint32_t slot) {
  ts_file *f = &s->files[slot];
  if (!f->trace) return;
  if (s->on_close) s->on_close(s->user, handle_of(s, slot));
  if (f->trace != f->summary) st_trace_destroy(f->trace);
  st_trace_destroy(f->summary);
  st_stream_destroy(f->stream); /* after its windows and summary */
  st_free(&s->alloc, f->meta);
  st_free(&s->alloc, f->name);
  st_free(&s->alloc, f->given);
  st_argsrc_destroy(f->args);
  if (s->data) memset(s->data + (size_t)slot * s->data_stride, 0, s->data_size);
  uint32_t gen = (f->gen + 1) & GEN_MASK;
  memset(f, 0, sizeof *f);
  f->gen = gen ? gen : 1;
}

/* The slots of the batch in progress, in load order; returns how many. */
static uint32_t batch_slots(const st_traceset *s, uint32_t *out) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < s->cap; i++)
    if (s->files[i].trace && s->files[i].in_batch) out[n++] = i;
  for (uint32_t i = 1; i < n; i++) /* insertion sort by load order */
    for (uint32_t j = i; j > 0 && s->files[out[j]].seq < s->files[out[j - 1]].seq; j--) {
      uint32_t t = out[j];
      out[j] = out[j - 1];
      out[j - 1] = t;
    }
  return n;
}

static uint32_t shown_index(const st_traceset *s, uint32_t slot) {
  for (uint32_t k = 0; k < s->nshown; k++)
    if (s->shown[k] == slot) return k;
  return UINT32_MAX;
}

int st_traceset_get(const st_traceset *s, st_trace_handle h, st_traceset_file *out) {
  memset(out, 0, sizeof *out);
  uint32_t slot = st_traceset_slot(s, h);
  if (slot == UINT32_MAX) return 0;
  const ts_file *f = &s->files[slot];
  out->trace = f->trace;
  out->stats = &f->stats;
  out->metadata_json = f->meta;
  out->name = f->name;
  out->group = f->group;
  out->group_source = f->group_source;
  out->clock = f->clock;
  out->offset_ns = f->offset_ns;
  out->args = f->args;
  out->load_order = f->seq;
  out->shown_index = f->in_batch ? UINT32_MAX : shown_index(s, slot);
  return 1;
}

st_code st_traceset_set_load_figures(st_traceset *s, st_trace_handle h, double load_ms,
                                     uint64_t heap_bytes) {
  uint32_t slot = st_traceset_slot(s, h);
  if (slot == UINT32_MAX) return ST_ERR_ARG;
  s->files[slot].stats.load_ms = load_ms;
  s->files[slot].stats.heap_bytes = heap_bytes;
  return ST_OK;
}

uint32_t st_traceset_count(const st_traceset *s) { return s && !s->preview ? s->nshown : 0; }

st_trace_handle st_traceset_at(const st_traceset *s, uint32_t k) {
  if (s && s->preview) return (st_trace_handle){0};
  if (!s || k >= s->nshown) return (st_trace_handle){0};
  return handle_of(s, s->shown[k]);
}

st_trace *st_traceset_view(const st_traceset *s) { return s ? s->view : NULL; }

/* ---- lifetime ---------------------------------------------------------------- */

/* One block for the scratch arrays (the shown list included), in order of
 * alignment (int64 first, then pointers, uint32, bytes: on wasm32 too)
 * so each is aligned. */
static int alloc_scratch(st_traceset *s) {
  size_t wide =
      sizeof(st_trace *) + 2 * sizeof(int64_t) + sizeof(st_profile_file) + sizeof(st_profile_clock);
  size_t each = wide + 3 * sizeof(uint32_t) + 1, bytes;
  if (!st_mul_size(s->cap, each, &bytes)) return 0;
  char *p = st_malloc(&s->alloc, bytes);
  if (!p) return 0;
  s->scratch = p;
  size_t n = s->cap;
  s->clocks = (st_profile_clock *)(void *)p, p += n * sizeof *s->clocks;
  s->offs = (int64_t *)(void *)p, p += n * sizeof *s->offs;
  s->first = (int64_t *)(void *)p, p += n * sizeof *s->first;
  s->pf = (st_profile_file *)(void *)p, p += n * sizeof *s->pf;
  s->parts = (st_trace **)(void *)p, p += n * sizeof *s->parts;
  s->shown = (uint32_t *)(void *)p, p += n * sizeof *s->shown;
  s->old = (uint32_t *)(void *)p, p += n * sizeof *s->old;
  s->names = (uint32_t *)(void *)p, p += n * sizeof *s->names;
  s->have = (uint8_t *)p;
  return 1;
}

st_traceset *st_traceset_create(const st_traceset_desc *desc) {
  st_traceset_desc d;
  memset(&d, 0, sizeof d);
  if (desc) d = *desc;
  if (d.capacity > ST_TRACESET_CAPACITY) return NULL;
  uint32_t cap = d.capacity ? d.capacity : ST_TRACESET_MAX;
  st_traceset *s = st_calloc(&d.alloc, 1, sizeof *s);
  if (!s) return NULL;
  s->alloc = d.alloc;
  s->load_alloc = d.load_alloc.fn ? d.load_alloc : d.alloc;
  s->cap = cap;
  s->unmerged = d.unmerged != 0;
  s->on_close = d.on_close;
  s->user = d.user;
  s->files = st_calloc(&s->alloc, cap, sizeof *s->files);
  if (d.data_size) { /* each slot's bytes aligned for any type */
    size_t align = _Alignof(max_align_t);
    s->data_size = d.data_size;
    s->data_stride =
        d.data_size <= SIZE_MAX - align ? (d.data_size + align - 1) / align * align : 0;
    s->data = s->data_stride ? st_calloc(&s->alloc, cap, s->data_stride) : NULL;
  }
  if (!s->files || (d.data_size && !s->data) || !alloc_scratch(s)) {
    st_traceset_destroy(s);
    return NULL;
  }
  for (uint32_t i = 0; i < cap; i++) s->files[i].gen = 1;
  return s;
}

void st_traceset_load_abort(st_traceset *s) {
  if (!s) return;
  st_loader_destroy(s->loader);
  st_trace_destroy(s->index_summary);
  st_stream_destroy(s->stream_load); /* after the summary it holds the strings of */
  s->index_summary = NULL;
  s->index_verified = 0;
  st_free(&s->alloc, s->load_name);
  s->loader = NULL;
  s->stream_load = NULL;
  s->load_name = NULL;
}

void st_traceset_destroy(st_traceset *s) {
  if (!s) return;
  st_traceset_load_abort(s);
  st_trace_destroy(s->merged);
  for (uint32_t i = 0; s->files && i < s->cap; i++) close_file(s, i);
  st_strtab_destroy(s->strings);
  st_strtab_destroy(s->batch_strings);
  st_free(&s->alloc, s->files);
  st_free(&s->alloc, s->data);
  st_free(&s->alloc, s->scratch);
  st_alloc al = s->alloc;
  st_free(&al, s);
}

/* ---- loads --------------------------------------------------------------------- */

st_code st_traceset_batch_begin(st_traceset *s) {
  if (!s || s->batch_open) return ST_ERR_ARG;
  if (!s->unmerged) {
    s->batch_strings = st_strtab_create(&s->load_alloc);
    if (!s->batch_strings) return ST_ERR_NOMEM;
  }
  s->batch_open = 1;
  s->batch_loaded = 0;
  return ST_OK;
}

int st_traceset_batch_open(const st_traceset *s) { return s && s->batch_open; }

void st_traceset_batch_cancel(st_traceset *s) {
  if (!s || !s->batch_open) return;
  st_traceset_load_abort(s);
  for (uint32_t i = 0; i < s->cap; i++)
    if (s->files[i].in_batch) close_file(s, i);
  st_strtab_destroy(s->batch_strings);
  s->batch_strings = NULL;
  s->batch_open = 0;
  s->batch_loaded = 0;
}

static st_code begin_name(st_traceset *s, const char *name) {
  if (!s || !s->batch_open) return ST_ERR_ARG;
  st_traceset_load_abort(s);
  s->load_name = dup_str(&s->alloc, name && *name ? name : "trace");
  if (!s->load_name) return ST_ERR_NOMEM;
  for (char *c = s->load_name; *c; c++) /* one line: the name is shown in messages */
    if (*c == '\n' || *c == '\r') *c = ' ';
  return ST_OK;
}

/* A streaming load's desc: the batch's strings, as a loader's. */
static st_stream_desc stream_desc(const st_traceset *s) {
  st_stream_desc d;
  memset(&d, 0, sizeof d);
  d.alloc = s->load_alloc;
  d.file_name = s->load_name;
  d.strings = s->batch_strings;
  return d;
}

st_code st_traceset_load_begin_stream(st_traceset *s, const char *name, uint64_t block_bytes,
                                      uint32_t max_buckets) {
  st_code c = begin_name(s, name);
  if (c != ST_OK) return c;
  st_stream_desc d = stream_desc(s);
  d.block_bytes = block_bytes;
  d.max_buckets = max_buckets;
  s->stream_load = st_stream_create(&d);
  if (!s->stream_load) {
    st_traceset_load_abort(s);
    return ST_ERR_NOMEM;
  }
  return ST_OK;
}

st_code st_traceset_load_begin_index(st_traceset *s, const char *name, const void *stx, size_t len,
                                     st_error *err) {
  st_code c = begin_name(s, name);
  if (c != ST_OK) {
    if (err) st_error_set(err, c, 0, c == ST_ERR_NOMEM ? "out of memory" : "no batch open");
    return c;
  }
  st_stream_desc d = stream_desc(s);
  st_error e;
  memset(&e, 0, sizeof e);
  s->stream_load = st_stream_open_index(&d, stx, len, &s->index_summary, &e);
  if (!s->stream_load) {
    st_traceset_load_abort(s);
    if (err) *err = e;
    return e.code != ST_OK ? e.code : ST_ERR_NOMEM;
  }
  return ST_OK;
}

st_code st_traceset_load_index_verify(st_traceset *s, uint64_t raw_size,
                                      const uint8_t *const *samples, uint32_t n, st_error *err) {
  if (!s || !s->index_summary) {
    if (err) st_error_set(err, ST_ERR_ARG, 0, "no load from an index in progress");
    return ST_ERR_ARG;
  }
  st_code c = st_stream_verify(s->stream_load, s->load_name, raw_size, samples, n, err);
  s->index_verified = c == ST_OK;
  return c;
}

st_code st_traceset_load_begin(st_traceset *s, const char *name) {
  st_code c = begin_name(s, name);
  if (c != ST_OK) return c;
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.alloc = s->load_alloc;
  d.file_name = s->load_name;
  d.strings = s->batch_strings; /* NULL when unmerged: the file's own table */
  s->loader = st_loader_create(&d);
  if (!s->loader) {
    st_traceset_load_abort(s);
    return ST_ERR_NOMEM;
  }
  return ST_OK;
}

st_code st_traceset_load_push(st_traceset *s, const void *data, size_t len) {
  if (s && s->stream_load) return st_stream_push(s->stream_load, data, len);
  if (!s || !s->loader) return ST_ERR_ARG;
  return st_loader_push(s->loader, data, len);
}

int st_traceset_load_apply_needs_bytes(st_traceset *s, const void *result, size_t rlen) {
  return s && s->loader ? st_loader_apply_needs_bytes(s->loader, result, rlen) : 0;
}

st_code st_traceset_load_apply(st_traceset *s, const void *result, size_t rlen, const void *bytes,
                               size_t blen) {
  if (!s || !s->loader) return ST_ERR_ARG;
  return st_loader_apply(s->loader, result, rlen, bytes, blen);
}

void st_traceset_load_set_inflated(st_traceset *s, const st_source_info *info, st_code code,
                                   const st_error *err) {
  if (s && s->loader) st_loader_set_inflated(s->loader, info, code, err);
}

static uint32_t free_slot(const st_traceset *s) {
  for (uint32_t i = 0; i < s->cap; i++)
    if (!s->files[i].trace) return i;
  return UINT32_MAX;
}

/* The finished load into a free slot; {0} with err on failure. */
static st_trace_handle take_load(st_traceset *s, st_trace *t, st_error *err) {
  uint32_t slot = free_slot(s);
  st_stream *sm = s->stream_load;
  const char *mj = sm ? st_stream_metadata_json(sm) : st_loader_metadata_json(s->loader);
  char *meta = slot != UINT32_MAX ? dup_str(&s->alloc, mj) : NULL;
  if (!meta) {
    st_trace_destroy(t);
    if (slot == UINT32_MAX)
      st_error_set(err, ST_ERR_LIMIT, 0, "too many traces open (%u)", s->cap);
    else
      st_error_set(err, ST_ERR_NOMEM, 0, "out of memory");
    return (st_trace_handle){0};
  }
  ts_file *f = &s->files[slot];
  f->trace = t;
  f->in_batch = 1;
  f->stats = sm ? *st_stream_stats(sm) : *st_loader_stats(s->loader); /* static format name */
  f->meta = meta;
  f->name = s->load_name;
  s->load_name = NULL;
  f->args = sm ? st_stream_take_args_source(sm) : st_loader_take_args_source(s->loader);
  if (sm) { /* the file keeps its index for window loads */
    f->stream = sm;
    f->summary = t;
    s->stream_load = NULL;
  }
  f->seq = ++s->seq;
  st_profile_file pf = {t, f->stats.format, f->meta, f->name};
  st_profile_clock_get(&pf, &f->clock); /* before any merge moves its times */
  s->batch_loaded++;
  return handle_of(s, slot);
}

st_trace_handle st_traceset_load_finish(st_traceset *s, st_error *err) {
  st_error e;
  memset(&e, 0, sizeof e);
  st_trace_handle h = {0};
  if (!s || (!s->loader && !s->stream_load)) {
    st_error_set(&e, ST_ERR_ARG, 0, "no load in progress");
  } else if (s->index_summary && !s->index_verified) {
    st_error_set(&e, ST_ERR_ARG, 0, "the index was not checked against its trace");
    st_traceset_load_abort(s);
  } else {
    st_trace *t = s->index_summary ? s->index_summary
                  : s->stream_load ? st_stream_finish(s->stream_load, &e)
                                   : st_loader_finish(s->loader, &e);
    s->index_summary = NULL; /* taken */
    if (!t && e.code == ST_OK) st_error_set(&e, ST_ERR_FORMAT, 0, "no trace data");
    if (t) {
      st_error damage = e; /* a file damaged part-way: kept, with where it stopped */
      h = take_load(s, t, &e);
      if (h.id) e = damage;
    }
    st_traceset_load_abort(s); /* the loader goes, and the name if not taken */
  }
  if (err) *err = e;
  return h;
}

st_code st_traceset_set_group(st_traceset *s, st_trace_handle h, const char *group) {
  uint32_t slot = st_traceset_slot(s, h);
  if (slot == UINT32_MAX) return ST_ERR_ARG;
  ts_file *f = &s->files[slot];
  char *g = group && *group ? dup_str(&s->alloc, group) : NULL;
  if (group && *group && !g) return ST_ERR_NOMEM;
  for (char *c = g; c && *c; c++) /* one line, as the rule's names */
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = ' ';
  st_free(&s->alloc, f->given);
  f->given = g;
  return ST_OK;
}

/* ---- placement -------------------------------------------------------------------- */

/* File k shown takes the group name it was given, with " #c" if the
 * files before it hold that name already (c - 1 of them). */
static void place_given(st_traceset *s, uint32_t k) {
  ts_file *f = &s->files[s->shown[k]];
  if (!f->given) return;
  enum { CAP = ST_TRACESET_GROUP_CAP };
  unsigned c = 1;
  for (uint32_t j = 0; j < k; j++) c += strcmp(s->files[s->shown[j]].group, f->given) == 0;
  char tail[16] = "";
  if (c > 1) snprintf(tail, sizeof tail, " #%u", c);
  size_t n = strlen(f->given), t = strlen(tail);
  if (n + t >= CAP) /* cut on a character boundary */
    for (n = CAP - 1 - t; n && ((unsigned char)f->given[n] & 0xC0) == 0x80; n--) {
    }
  memcpy(f->group, f->given, n);
  memcpy(f->group + n, tail, t + 1);
}

/* Names the groups of the files shown (unique) and sets their initial
 * offsets from their clocks (profile.h). Without memory for the names
 * each file gets its own group name (maybe not unique). */
static void place(st_traceset *s) {
  uint32_t n = s->nshown;
  for (uint32_t k = 0; k < n; k++) {
    ts_file *f = &s->files[s->shown[k]];
    s->pf[k] = (st_profile_file){f->trace, f->stats.format, f->meta, f->name};
    s->clocks[k] = f->clock;
  }
  enum { CAP = ST_TRACESET_GROUP_CAP };
  size_t bytes;
  char *names = st_mul_size(n, CAP, &bytes) ? st_malloc(&s->alloc, bytes + 1) : NULL;
  int named = names && st_profile_group_names(&s->alloc, s->pf, n, names, CAP) == ST_OK;
  for (uint32_t k = 0; k < n; k++) {
    ts_file *f = &s->files[s->shown[k]];
    st_profile_group_name(&s->pf[k], named ? NULL : f->group, named ? 0 : CAP, &f->group_source);
    if (named) memcpy(f->group, names + (size_t)k * CAP, CAP);
    f->group[CAP - 1] = 0;
  }
  st_free(&s->alloc, names);
  for (uint32_t k = 0; k < n; k++) place_given(s, k);
  if (st_profile_initial_offsets(s->clocks, n, s->offs) != ST_OK)
    memset(s->offs, 0, (size_t)n * sizeof *s->offs);
  for (uint32_t k = 0; k < n; k++) s->files[s->shown[k]].offset_ns = s->offs[k];
}

/* ---- view -------------------------------------------------------------------------- */

/* "5,000,000" */
static void fmt_count(char *buf, size_t cap, uint64_t v) {
  char digits[32];
  int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), o = 0;
  for (int i = 0; i < n && (size_t)o + 2 < cap; i++) {
    if (i && (n - i) % 3 == 0) buf[o++] = ',';
    buf[o++] = digits[i];
  }
  buf[o] = 0;
}

/* "612 MB", "1.51 GB", "9.6 MB", "512 bytes" */
static void fmt_bytes(char *buf, size_t cap, uint64_t v) {
  if (v >= 1000000000u)
    snprintf(buf, cap, "%.2f GB", (double)v / 1e9);
  else if (v >= 100000000u)
    snprintf(buf, cap, "%.0f MB", (double)v / 1e6);
  else if (v >= 1000000u)
    snprintf(buf, cap, "%.1f MB", (double)v / 1e6);
  else if (v >= 1000u)
    snprintf(buf, cap, "%.1f kB", (double)v / 1e3);
  else
    snprintf(buf, cap, "%llu bytes", (unsigned long long)v);
}

/* How far a file's load had got: "after its 5,000,000 events, 612 MB read"
 * (the whole file was read: a byte offset would say nothing). */
static void load_extent(const ts_file *f, char *buf, size_t cap) {
  char ev[32], by[32];
  fmt_count(ev, sizeof ev, f->stats.events);
  fmt_bytes(by, sizeof by, f->stats.bytes_in);
  snprintf(buf, cap, "after its %s events, %s read", ev, by);
}

static void drop_set_view(st_traceset *s) {
  st_trace_destroy(s->merged);
  st_trace_destroy(s->preview);
  s->merged = NULL;
  s->preview = NULL;
  s->view = NULL;
}

/* The view of the files shown: one as itself, several merged under their
 * group names at their offsets, then the caller's part. 0 on failure with
 * why[] saying which stage failed for which file(s). */
static int build_view(st_traceset *s, const st_traceset_end_desc *d, char *why, size_t cap) {
  uint32_t n = s->nshown;
  if (!n || s->unmerged) return 1;
  st_error err;
  memset(&err, 0, sizeof err);
  st_trace *view = s->files[s->shown[0]].trace;
  if (n > 1) {
    for (uint32_t k = 0; k < n; k++) {
      ts_file *f = &s->files[s->shown[k]];
      s->parts[k] = f->trace;
      s->names[k] = st_strtab_intern(s->strings, f->group, strlen(f->group));
      if (s->names[k] == ST_STR_NONE) s->names[k] = ST_STR_EMPTY;
      s->offs[k] = f->offset_ns;
    }
    view = s->merged = st_trace_merge(&s->alloc, s->parts, s->names, s->offs, n, &err);
    if (view) /* normalised */
      for (uint32_t k = 0; k < n; k++)
        s->files[s->shown[k]].offset_ns = st_trace_parts(view, NULL)[k].offset_ns;
  }
  s->view = view;
  st_code c = view ? ST_OK : (err.code != ST_OK ? err.code : ST_ERR_NOMEM);
  if (view && d && d->build_view) c = d->build_view(d->ud, s, view, &err);
  if (c == ST_OK) return 1;
  if (err.code == ST_OK || !err.msg[0]) st_error_set(&err, c, 0, "out of memory");
  if (n == 1) {
    char ext[96];
    load_extent(&s->files[s->shown[0]], ext, sizeof ext);
    snprintf(why, cap, "%s for %s (%s)", err.msg, s->files[s->shown[0]].name, ext);
  } else {
    snprintf(why, cap, "%s of %u files together", err.msg, n);
  }
  drop_set_view(s);
  return 0;
}

/* Appends "<file>: not shown: <why> (<extent>)\n" to the report. */
static void note_dropped(st_traceset_report *r, const ts_file *f, const char *why) {
  size_t len = strlen(r->dropped_text);
  char ext[96];
  load_extent(f, ext, sizeof ext);
  snprintf(r->dropped_text + len, sizeof r->dropped_text - len, "%s: not shown: %s (%s)\n", f->name,
           why, ext);
  r->dropped++;
}

/* Not even the first file's view: the batch goes, the files shown before
 * (old[0, nold), their strings) come back with their view, or are closed
 * if it cannot be built either. */
static void restore(st_traceset *s, const st_traceset_end_desc *d, st_strtab *old_strings,
                    uint32_t nold, st_traceset_report *r) {
  for (uint32_t k = 0; k < s->nshown; k++) close_file(s, s->shown[k]);
  st_strtab_destroy(s->strings);
  s->strings = old_strings;
  memcpy(s->shown, s->old, (size_t)nold * sizeof *s->shown);
  s->nshown = nold;
  char scratch[sizeof r->error];
  r->restored = build_view(s, d, scratch, sizeof scratch);
  if (!r->restored) {
    for (uint32_t k = 0; k < s->nshown; k++) close_file(s, s->shown[k]);
    s->nshown = 0;
    st_strtab_destroy(s->strings);
    s->strings = NULL;
  }
  r->dropped = 0; /* the error says it: nothing of the batch is shown */
  r->dropped_text[0] = 0;
}

uint32_t st_traceset_batch_end(st_traceset *s, const st_traceset_end_desc *d,
                               st_traceset_report *rep) {
  st_traceset_report local;
  st_traceset_report *r = rep ? rep : &local;
  memset(r, 0, sizeof *r);
  if (!s || !s->batch_open) return 0;
  st_traceset_load_abort(s);
  s->batch_open = 0;
  r->loaded = s->batch_loaded;
  if (s->preview) { /* a streaming load's preview goes (its strings are the batch's) */
    if (d && d->drop_view) d->drop_view(d->ud);
    drop_set_view(s);
    if (!s->batch_loaded) { /* the files shown before are shown again */
      char why[sizeof r->error];
      if (!build_view(s, d, why, sizeof why)) {
        for (uint32_t k = 0; k < s->nshown; k++) close_file(s, s->shown[k]);
        s->nshown = 0;
      }
    }
  }
  if (!s->batch_loaded) { /* nothing loaded: what is shown stays */
    st_strtab_destroy(s->batch_strings);
    s->batch_strings = NULL;
    return 0;
  }
  /* The batch replaces the files shown. Their view goes first (the caller's
   * part points into it, and the memory is the new view's); their models
   * stay until the new view is built, to come back if it cannot be. */
  if (s->view && d && d->drop_view) d->drop_view(d->ud);
  drop_set_view(s);
  uint32_t nold = s->nshown;
  memcpy(s->old, s->shown, (size_t)nold * sizeof *s->old);
  st_strtab *old_strings = s->strings;
  s->strings = s->batch_strings;
  s->batch_strings = NULL;
  s->nshown = batch_slots(s, s->shown);
  place(s);
  int built;
  while (!(built = build_view(s, d, r->error, sizeof r->error)) && s->nshown > 1) {
    /* the view of them all does not fit: the last file is left out */
    uint32_t last = s->shown[--s->nshown];
    note_dropped(r, &s->files[last], r->error);
    close_file(s, last);
    place(s); /* group names unique among those left (and their clocks) */
  }
  if (!built) {
    restore(s, d, old_strings, nold, r);
    return 0;
  }
  r->error[0] = 0;
  for (uint32_t k = 0; k < nold; k++) close_file(s, s->old[k]);
  st_strtab_destroy(old_strings);
  for (uint32_t k = 0; k < s->nshown; k++) s->files[s->shown[k]].in_batch = 0;
  r->shown = s->nshown;
  return s->nshown;
}

/* ---- streaming mode -------------------------------------------------------------------- */

int st_traceset_previewing(const st_traceset *s) { return s && s->preview; }

st_code st_traceset_preview(st_traceset *s, const st_traceset_end_desc *d, st_error *err) {
  st_error e;
  memset(&e, 0, sizeof e);
  if (!s || !s->stream_load) {
    if (err) st_error_set(err, ST_ERR_ARG, 0, "no streaming load in progress");
    return ST_ERR_ARG;
  }
  st_trace *t = st_stream_snapshot(s->stream_load, &e);
  if (!t) {
    if (err) *err = e;
    return e.code != ST_OK ? e.code : ST_ERR_NOMEM;
  }
  if (s->view && d && d->drop_view) d->drop_view(d->ud);
  drop_set_view(s); /* the files shown stay, out of view until batch_end */
  s->preview = s->view = t;
  st_code c = d && d->build_view ? d->build_view(d->ud, s, t, &e) : ST_OK;
  if (c == ST_OK) return ST_OK;
  drop_set_view(s); /* the preview does not fit: what was shown comes back */
  char why[320];
  build_view(s, d, why, sizeof why);
  if (err) {
    *err = e;
    if (e.code == ST_OK) st_error_set(err, c, 0, "out of memory");
  }
  return c;
}

st_stream *st_traceset_loading_stream(const st_traceset *s) { return s ? s->stream_load : NULL; }

st_stream *st_traceset_stream(const st_traceset *s, st_trace_handle h) {
  uint32_t slot = st_traceset_slot(s, h);
  return slot == UINT32_MAX ? NULL : s->files[slot].stream;
}

const st_trace *st_traceset_summary(const st_traceset *s, st_trace_handle h) {
  uint32_t slot = st_traceset_slot(s, h);
  return slot == UINT32_MAX ? NULL : s->files[slot].summary;
}

int st_traceset_showing_window(const st_traceset *s, st_trace_handle h) {
  uint32_t slot = st_traceset_slot(s, h);
  return slot != UINT32_MAX && s->files[slot].summary &&
         s->files[slot].trace != s->files[slot].summary;
}

st_code st_traceset_show_model(st_traceset *s, st_trace_handle h, st_trace *window,
                               const st_traceset_end_desc *d, st_error *err) {
  uint32_t slot = st_traceset_slot(s, h);
  ts_file *f = slot == UINT32_MAX ? NULL : &s->files[slot];
  if (!f || !f->summary || f->in_batch || s->batch_open || s->unmerged) {
    st_trace_destroy(window);
    if (err) st_error_set(err, ST_ERR_ARG, 0, "not a file shown in streaming mode");
    return ST_ERR_ARG;
  }
  st_trace *next = window ? window : f->summary, *prev = f->trace;
  if (next == prev) return ST_OK;
  if (s->view && d && d->drop_view) d->drop_view(d->ud);
  drop_set_view(s);
  f->trace = next;
  char why[320];
  if (build_view(s, d, why, sizeof why)) {
    if (prev != f->summary) st_trace_destroy(prev);
    return ST_OK;
  }
  /* the window's view did not fit: back to what was shown */
  f->trace = prev;
  st_trace_destroy(window);
  if (err) st_error_set(err, ST_ERR_NOMEM, 0, "%s", why);
  char again[320];
  if (!build_view(s, d, again, sizeof again) && f->summary != prev) {
    st_trace_destroy(prev); /* even that: the summary, which fit before */
    f->trace = f->summary;
    build_view(s, d, again, sizeof again);
  }
  return ST_ERR_NOMEM;
}

/* ---- offsets ------------------------------------------------------------------------ */

/* Moves the parts to s->offs[0, nshown) (normalised) and keeps the offsets
 * the merged trace settled on. */
static st_code move_parts(st_traceset *s, int64_t *deltas) {
  st_code c = st_trace_merge_set_offsets(s->merged, s->offs, deltas);
  if (c != ST_OK) return c;
  const st_trace_part *parts = st_trace_parts(s->merged, NULL);
  for (uint32_t k = 0; k < s->nshown; k++) s->files[s->shown[k]].offset_ns = parts[k].offset_ns;
  return ST_OK;
}

st_code st_traceset_set_offset(st_traceset *s, st_trace_handle h, int64_t offset_ns,
                               int64_t *deltas) {
  uint32_t slot = st_traceset_slot(s, h);
  if (slot == UINT32_MAX || !s->merged) return ST_ERR_ARG;
  uint32_t k = shown_index(s, slot);
  if (k == UINT32_MAX) return ST_ERR_ARG;
  for (uint32_t i = 0; i < s->nshown; i++) s->offs[i] = s->files[s->shown[i]].offset_ns;
  s->offs[k] = offset_ns;
  return move_parts(s, deltas);
}

int st_traceset_align_events(st_traceset *s, const st_sel_span *sp, uint32_t ns, int64_t *deltas) {
  if (!s || !s->merged || (!sp && ns)) return 0;
  uint32_t n = s->nshown, nrows, count = 0, ref = UINT32_MAX;
  const st_row *rows = st_trace_rows(s->merged, &nrows);
  memset(s->have, 0, n);
  /* each file's earliest selected event; the first file with one is the reference */
  for (uint32_t i = 0; i < ns; i++) {
    uint32_t k = st_trace_part_of_row(s->merged, sp[i].row);
    if (k >= n || sp[i].lo >= rows[sp[i].row].count) continue;
    int64_t t = rows[sp[i].row].start[sp[i].lo];
    if (!s->have[k] || t < s->first[k]) s->first[k] = t;
    if (!s->have[k]) count++;
    s->have[k] = 1;
  }
  for (uint32_t k = 0; k < n && ref == UINT32_MAX; k++)
    if (s->have[k]) ref = k;
  if (count < 2) return 0;
  for (uint32_t k = 0; k < n; k++) {
    s->offs[k] = s->files[s->shown[k]].offset_ns;
    if (s->have[k]) s->offs[k] = st_sat_add(s->offs[k], st_sat_sub(s->first[ref], s->first[k]));
  }
  return move_parts(s, deltas) == ST_OK ? (int)count : 0;
}

/* ---- json ---------------------------------------------------------------------------- */

size_t st_traceset_list_json(const st_traceset *s, char *buf, size_t cap) {
  st_jout o = {.buf = buf, .cap = cap};
  st_jout_lit(&o, "[");
  for (uint32_t k = 0; k < st_traceset_count(s); k++) { /* none while a preview is shown */
    const ts_file *f = &s->files[s->shown[k]];
    const char *fmt = f->stats.format ? f->stats.format : "unknown";
    st_jout_lit(&o, k ? ",{\"handle\":" : "{\"handle\":");
    st_jout_u64(&o, handle_of(s, s->shown[k]).id);
    st_jout_lit(&o, ",\"name\":");
    st_jout_str(&o, f->name, strlen(f->name));
    st_jout_lit(&o, ",\"group\":");
    st_jout_str(&o, f->group, strlen(f->group));
    st_jout_lit(&o, ",\"events\":");
    st_jout_u64(&o, f->stats.events);
    st_jout_lit(&o, ",\"offset_us\":");
    st_jout_sig(&o, (double)f->offset_ns / 1000.0, 17);
    st_jout_lit(&o, ",\"format\":");
    st_jout_str(&o, fmt, strlen(fmt));
    st_jout_lit(&o, "}");
  }
  st_jout_lit(&o, "]");
  return st_jout_end(&o);
}

static void add_stats(st_stats *sum, const st_stats *s, int first) {
  if (first)
    sum->format = s->format;
  else if (!sum->format || !s->format || strcmp(sum->format, s->format) != 0)
    sum->format = "mixed";
  sum->compressed |= s->compressed;
  sum->bytes_in += s->bytes_in;
  sum->bytes_decoded += s->bytes_decoded;
  sum->events += s->events;
  for (int i = 0; i < 129; i++) sum->phases[i] += s->phases[i];
  sum->phases_other += s->phases_other;
  sum->slices += s->slices;
  sum->instants += s->instants;
  sum->counter_samples += s->counter_samples;
  sum->async_slices += s->async_slices;
  sum->flows += s->flows;
  sum->samples += s->samples;
  sum->stack_frames += s->stack_frames;
  sum->processes += s->processes;
  sum->threads += s->threads;
  if (s->has_ts) {
    if (!sum->has_ts || s->ts_min_ns < sum->ts_min_ns) sum->ts_min_ns = s->ts_min_ns;
    if (!sum->has_ts || s->ts_max_ns > sum->ts_max_ns) sum->ts_max_ns = s->ts_max_ns;
    sum->has_ts = 1;
  }
  for (uint32_t w = 0; w < s->warning_count; w++)
    st_stats_warn_n(sum, s->warnings[w].kind, s->warnings[w].first_offset, s->warnings[w].count);
  sum->load_ms += s->load_ms;
  if (s->heap_bytes > sum->heap_bytes) sum->heap_bytes = s->heap_bytes;
}

void st_traceset_totals(const st_traceset *s, st_stats *out) {
  memset(out, 0, sizeof *out);
  out->format = "unknown";
  for (uint32_t k = 0; s && k < s->nshown; k++) add_stats(out, &s->files[s->shown[k]].stats, !k);
}

/* Appends st_stats_json's text of st (without its closing brace if open). */
static void put_stats(st_jout *o, const st_stats *st, int open) {
  size_t room = o->len < o->cap ? o->cap - o->len : 0;
  size_t need = st_stats_json(st, room ? o->buf + o->len : NULL, room);
  o->len += open && need ? need - 1 : need;
}

size_t st_traceset_stats_json(const st_traceset *s, double load_ms, uint64_t heap_bytes, char *buf,
                              size_t cap) {
  st_jout o = {.buf = buf, .cap = cap};
  uint32_t n = st_traceset_count(s);
  st_stats head;
  if (n == 1)
    head = s->files[s->shown[0]].stats;
  else
    st_traceset_totals(s, &head);
  head.load_ms = load_ms;
  head.heap_bytes = heap_bytes;
  if (!n) {
    st_jout_lit(&o, "null");
  } else if (n == 1) {
    put_stats(&o, &head, 0);
  } else { /* the totals, and each file's own */
    put_stats(&o, &head, 1);
    st_jout_lit(&o, ",\"traces\":[");
    for (uint32_t k = 0; k < n; k++) {
      if (k) st_jout_lit(&o, ",");
      put_stats(&o, &s->files[s->shown[k]].stats, 0);
    }
    st_jout_lit(&o, "]}");
  }
  return st_jout_end(&o);
}
