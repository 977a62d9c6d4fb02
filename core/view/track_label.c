/* track_label.c: track labels for the gutter (see track_label.h).
 *
 * Duplicates are found once per trace: every labelled track's plain label
 * is hashed, the (section, hash) pairs are sorted, and each run of equal
 * pairs gives its tracks their places 1, 2, ... (their labels then say what
 * tells them apart).
 */
#include "track_label.h"

#include <stdio.h>  /* snprintf only */
#include <stdlib.h> /* qsort */
#include <string.h>

#define MAX_NAME 256 /* bytes of a name shown */

struct st_track_labels {
  st_alloc alloc;
  const st_trace *trace;
  uint32_t *qualify; /* per track: 0, or its 1-based place among the tracks of its
                      * section whose labels would read the same */
};

int st_track_continues(const st_trace *t, uint32_t ti) {
  uint32_t nt;
  const st_track *ts = st_trace_tracks(t, &nt);
  if (!ts || ti == 0 || ti >= nt) return 0;
  const st_track *a = &ts[ti - 1], *b = &ts[ti];
  return a->markers && a->row_count > 0 && b->kind == ST_TRACK_SLICES && !b->overflow &&
         b->process == a->process && b->key == a->key && b->row_count > 0;
}

static size_t clamp_len(int n, size_t cap) {
  if (n < 0 || !cap) return 0;
  return (size_t)n < cap ? (size_t)n : cap - 1;
}

/* The label of track ti; place != 0: with what tells it apart from the
 * others of its section that read the same (a thread's tid; for an
 * importer's synthetic negative key, or other kinds, its place "#2"). */
static size_t format(const st_trace *t, uint32_t ti, uint32_t place, char *buf, size_t cap) {
  const st_track *tr = &st_trace_tracks(t, NULL)[ti];
  size_t len;
  const char *name = st_strtab_get(st_trace_strings(t), tr->name, &len);
  int n = (int)(len > MAX_NAME ? MAX_NAME : len);
  const char *over = tr->overflow ? " (overlaps)" : "";
  long long key = (long long)tr->key;
  int thread = tr->kind == ST_TRACK_SLICES || tr->markers || tr->kind == ST_TRACK_SAMPLES;
  const char *kind = tr->kind == ST_TRACK_ASYNC      ? "async"
                     : tr->kind == ST_TRACK_INSTANTS ? "instants"
                                                     : "counter";
  int r;
  if (!len && tr->kind == ST_TRACK_SAMPLES) /* a thread's CPU samples (unnamed thread) */
    r = snprintf(buf, cap, "tid %lld samples", key);
  else if (!len && thread)
    r = snprintf(buf, cap, "tid %lld%s", key, over); /* the tid is the label: unique */
  else if (!len && tr->kind == ST_TRACK_INSTANTS)
    r = place ? snprintf(buf, cap, "instants #%u", place) : snprintf(buf, cap, "instants");
  else if (!len)
    r = snprintf(buf, cap, "%s %lld", kind, key);
  else if (!place)
    r = snprintf(buf, cap, "%.*s%s", n, name, over);
  else if (thread && key >= 0)
    r = snprintf(buf, cap, "%.*s (tid %lld)%s", n, name, key, over);
  else if (thread)
    r = snprintf(buf, cap, "%.*s (#%u)%s", n, name, place, over);
  else
    r = snprintf(buf, cap, "%.*s (%s #%u)", n, name, kind, place);
  return clamp_len(r, cap);
}

typedef struct label_key {
  uint32_t process;
  uint32_t track;
  uint64_t hash;
} label_key;

static int key_cmp(const void *pa, const void *pb) {
  const label_key *a = pa, *b = pb;
  if (a->process != b->process) return a->process < b->process ? -1 : 1;
  if (a->hash != b->hash) return a->hash < b->hash ? -1 : 1;
  return a->track < b->track ? -1 : a->track > b->track;
}

static uint64_t hash_bytes(const char *s, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
  return h;
}

st_track_labels *st_track_labels_create(const st_alloc *a, const st_trace *t) {
  st_alloc al = a ? *a : (st_alloc){0};
  if (!t) return NULL;
  uint32_t nt;
  const st_track *ts = st_trace_tracks(t, &nt);
  st_track_labels *tl = st_calloc(&al, 1, sizeof *tl);
  label_key *keys = st_calloc(&al, (size_t)nt + 1, sizeof *keys);
  if (tl) tl->qualify = st_calloc(&al, (size_t)nt + 1, sizeof *tl->qualify);
  if (!tl || !keys || !tl->qualify) {
    st_free(&al, keys);
    if (tl) st_free(&al, tl->qualify);
    st_free(&al, tl);
    return NULL;
  }
  tl->alloc = al;
  tl->trace = t;
  /* the labels shown: every track but a continuation (no label) */
  uint32_t nk = 0;
  char buf[MAX_NAME + 64];
  for (uint32_t i = 0; i < nt; i++) {
    if (st_track_continues(t, i)) continue;
    size_t n = format(t, i, 0, buf, sizeof buf);
    keys[nk++] = (label_key){ts[i].process, i, hash_bytes(buf, n)};
  }
  qsort(keys, nk, sizeof *keys, key_cmp);
  /* runs of equal (section, label), in track order: places 1, 2, ... */
  for (uint32_t i = 0, run = 0; i < nk; i++) {
    int prev = i > 0 && keys[i].process == keys[i - 1].process && keys[i].hash == keys[i - 1].hash;
    int next =
        i + 1 < nk && keys[i + 1].process == keys[i].process && keys[i + 1].hash == keys[i].hash;
    run = prev ? run + 1 : 1;
    if (prev || next) tl->qualify[keys[i].track] = run;
  }
  /* an overflow track reads like its base track with "(overlaps)": the same qualifier */
  for (uint32_t i = 1; i < nt; i++)
    if (ts[i].overflow && !tl->qualify[i] && ts[i - 1].key == ts[i].key &&
        ts[i - 1].process == ts[i].process)
      tl->qualify[i] = tl->qualify[i - 1];
  st_free(&al, keys);
  return tl;
}

void st_track_labels_destroy(st_track_labels *tl) {
  if (!tl) return;
  st_alloc a = tl->alloc;
  st_free(&a, tl->qualify);
  st_free(&a, tl);
}

size_t st_track_label(const st_track_labels *tl, uint32_t ti, char *buf, size_t cap) {
  uint32_t nt;
  if (!buf || !cap) return 0;
  buf[0] = 0;
  if (!tl) return 0;
  st_trace_tracks(tl->trace, &nt);
  if (ti >= nt) return 0;
  return format(tl->trace, ti, tl->qualify[ti], buf, cap);
}
