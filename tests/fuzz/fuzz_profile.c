/* fuzz_profile.c: libFuzzer target for many traces as one profile and two
 * runs compared (core/set/profile.h, core/analysis/diff.h). The input is loaded as a
 * trace (its first byte picks the name hint: JSON, XSpace or Perfetto) and
 * its two halves as two more; then
 *   - group names, clocks and offsets from each load's metadata, and from
 *     the raw input used as metadata text and as a file name (hostile JSON
 *     meets the metadata scanners directly);
 *   - the default compare alignment of every pair, steps 0..3;
 *   - the diff of every pair by name and by category, sorted by every
 *     column, each row's events listed on both sides, the JSON written.
 * Any crash, leak or sanitizer report is a bug. */
#include "diff.h"
#include "load.h"
#include "profile.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct one {
  st_trace *t;
  char *meta; /* copy of the metadata JSON */
  const char *format;
} one;

static one load(const char *name, const uint8_t *data, size_t size) {
  one o = {NULL, NULL, NULL};
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.file_name = name;
  st_loader *l = st_loader_create(&d);
  if (!l) return o;
  st_loader_push(l, data, size);
  st_error err;
  o.t = st_loader_finish(l, &err);
  const char *m = st_loader_metadata_json(l);
  o.meta = malloc(strlen(m) + 1);
  if (o.meta) memcpy(o.meta, m, strlen(m) + 1);
  o.format = st_loader_stats(l)->format; /* a static string */
  st_loader_destroy(l);
  return o;
}

static void diff_pair(const st_trace *a, const st_trace *b) {
  for (int by = 0; by < 2; by++) {
    st_diff_opts o;
    memset(&o, 0, sizeof o);
    o.by = (st_diff_by)by;
    if (by) { /* a window of each: the middle half */
      o.range_a = o.range_b = 1;
      o.a_t1_ns = st_trace_duration_ns(a) / 4 * 3;
      o.a_t0_ns = o.a_t1_ns / 3;
      o.b_t1_ns = st_trace_duration_ns(b) / 4 * 3;
      o.b_t0_ns = o.b_t1_ns / 3;
    }
    st_error err;
    st_diff *d = st_diff_build(NULL, a, b, &o, &err);
    if (!d) continue;
    for (int c = 0; c < ST_DIFF_COL_COUNT_; c++) st_diff_sort(d, (st_diff_col)c, c & 1);
    uint32_t n;
    st_diff_rows(d, &n);
    for (uint32_t r = 0; r < n && r < 16; r++)
      for (int side = 0; side < 2; side++) {
        st_diff_iter it;
        st_event_ref ref;
        st_diff_events_begin(d, r, (st_diff_side)side, &it);
        while (st_diff_events_next(&it, &ref)) {
        }
      }
    size_t need = st_diff_json(d, 0, NULL, 0);
    char *buf = malloc(need + 1);
    if (buf) {
      st_diff_json(d, 0, buf, need + 1);
      free(buf);
    }
    char small[64];
    st_diff_json(d, 3, small, sizeof small);
    st_diff_destroy(d);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  static const char *const names[] = {"rank-0.pt.trace.json", "host.xplane.pb", "t.perfetto-trace"};
  const char *name = names[data[0] % 3]; /* '{' and '[' pick JSON; 0x0A XSpace */
  one tr[3];
  tr[0] = load(name, data, size);
  tr[1] = load(name, data, size / 2);
  tr[2] = load(name, data + size / 2, size - size / 2);

  /* the raw input as metadata text and as a file name */
  char *raw = malloc(size + 1);
  if (raw) {
    memcpy(raw, data, size);
    raw[size] = 0;
  }
  st_profile_file files[4];
  for (int i = 0; i < 3; i++) files[i] = (st_profile_file){tr[i].t, tr[i].format, tr[i].meta, name};
  files[3] = (st_profile_file){tr[0].t, "xplane", raw, raw};
  st_profile_clock clocks[4];
  int64_t offsets[4];
  char gname[64], names_out[4 * 64];
  for (int i = 0; i < 4; i++) {
    st_profile_group_name(&files[i], gname, sizeof gname, NULL);
    st_profile_clock_get(&files[i], &clocks[i]);
  }
  st_profile_group_names(NULL, files, 4, names_out, 64);
  st_profile_initial_offsets(clocks, 4, offsets);

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      if (!tr[i].t || !tr[j].t) continue;
      st_profile_alignment al;
      st_profile_compare_offset(NULL, tr[i].t, tr[j].t, &al);
      int64_t off;
      st_profile_align_events(tr[i].t, al.ref_a, tr[j].t, al.ref_b, &off);
      if (i <= j) diff_pair(tr[i].t, tr[j].t);
    }
  for (int i = 0; i < 3; i++)
    for (int64_t s = 0; s < 4 && tr[i].t; s++) {
      st_event_ref r;
      int64_t t0, t1;
      st_profile_find_step(tr[i].t, s, &r, &t0, &t1);
    }
  for (int i = 0; i < 3; i++) {
    st_trace_destroy(tr[i].t);
    free(tr[i].meta);
  }
  free(raw);
  return 0;
}
