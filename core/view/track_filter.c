/* track_filter.c: empty processes, the track filter and stable track ids
 * (see track_filter.h). Each is one pass over the processes and tracks:
 * O(tracks + rows) for emptiness, O(tracks x label) for the filter.
 */
#include "track_filter.h"

#include "ascii_ci.h"

#include <stdio.h> /* snprintf only */

/* ---- empty processes ---------------------------------------------------- */

static int track_has_events(const st_trace *t, const st_track *tr) {
  if (tr->kind == ST_TRACK_COUNTER) {
    uint32_t nc;
    const st_counter *cs = st_trace_counters(t, &nc);
    return tr->counter < nc && cs[tr->counter].count > 0;
  }
  uint32_t nr;
  const st_row *rows = st_trace_rows(t, &nr);
  for (uint32_t r = 0; r < tr->row_count; r++)
    if (tr->first_row + r < nr && rows[tr->first_row + r].count) return 1;
  return 0;
}

uint32_t st_process_empty_flags(const st_trace *t, uint8_t *empty) {
  uint32_t np, nt, n = 0;
  const st_process *ps = st_trace_processes(t, &np);
  const st_track *ts = st_trace_tracks(t, &nt);
  for (uint32_t p = 0; p < np; p++) {
    int any = 0;
    for (uint32_t k = 0; k < ps[p].track_count && !any; k++) {
      uint32_t ti = ps[p].first_track + k;
      any = ti < nt && track_has_events(t, &ts[ti]);
    }
    empty[p] = !any;
    n += !any;
  }
  return n;
}

/* ---- the filter ------------------------------------------------------------ */

static int id_matches(const st_trace *t, uint32_t id, const char *text, size_t len) {
  size_t n;
  const char *s = st_strtab_get(st_trace_strings(t), id, &n);
  return s && st_contains_ci(s, n, text, len);
}

uint32_t st_track_filter_keep(const st_trace *t, const st_track_labels *tl, const char *text,
                              size_t len, uint8_t *keep, uint8_t *named) {
  uint32_t np, nt, nparts, kept = 0;
  const st_process *ps = st_trace_processes(t, &np);
  st_trace_tracks(t, &nt);
  const st_trace_part *parts = st_trace_parts(t, &nparts);
  char label[320];
  for (uint32_t p = 0; p < np; p++) {
    uint32_t part = st_trace_part_of_process(t, p);
    int all = !len || id_matches(t, ps[p].name, text, len) ||
              (part < nparts && id_matches(t, parts[part].name, text, len));
    named[p] = (uint8_t)all;
    int head = 0; /* the labelled track this one continues */
    for (uint32_t k = 0; k < ps[p].track_count; k++) {
      uint32_t ti = ps[p].first_track + k;
      if (ti >= nt) break;
      if (k > 0 && st_track_continues(t, ti)) {
        keep[ti] = (uint8_t)head;
        continue;
      }
      size_t n = all ? 0 : st_track_label(tl, ti, label, sizeof label);
      head = all || st_contains_ci(label, n, text, len);
      keep[ti] = (uint8_t)head;
      kept += (uint32_t)head;
    }
  }
  return kept;
}

/* ---- stable ids --------------------------------------------------------------- */

size_t st_track_id(const st_trace *t, uint32_t ti, char *buf, size_t cap) {
  uint32_t np, nt;
  const st_process *ps = st_trace_processes(t, &np);
  const st_track *ts = st_trace_tracks(t, &nt);
  if (buf && cap) buf[0] = 0;
  if (!buf || !cap || ti >= nt || ts[ti].process >= np) return 0;
  const st_process *p = &ps[ts[ti].process];
  uint32_t part = st_trace_part_of_process(t, ts[ti].process);
  int m = snprintf(buf, cap, "%u.%lld.%u", part == UINT32_MAX ? 0u : part, (long long)p->pid,
                   ti - p->first_track);
  if (m < 0 || (size_t)m >= cap) {
    buf[0] = 0;
    return 0;
  }
  return (size_t)m;
}

/* Reads a decimal number (a '-' first if neg_ok) at s[*i] that fits an int64. */
static int read_num(const char *s, size_t len, size_t *i, int neg_ok, int64_t *out) {
  int neg = 0;
  if (neg_ok && *i < len && s[*i] == '-') neg = 1, (*i)++;
  size_t start = *i;
  int64_t v = 0;
  while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
    int d = s[(*i)++] - '0';
    if (v > (INT64_MAX - d) / 10) return 0; /* too long for an int64 */
    v = v * 10 + d;
  }
  if (*i == start) return 0;
  *out = neg ? -v : v;
  return 1;
}

uint32_t st_track_by_id(const st_trace *t, const char *id, size_t len) {
  int64_t part, pid, k;
  size_t i = 0;
  if (!id || !read_num(id, len, &i, 0, &part) || i >= len || id[i++] != '.' ||
      !read_num(id, len, &i, 1, &pid) || i >= len || id[i++] != '.' ||
      !read_num(id, len, &i, 0, &k) || i != len)
    return UINT32_MAX;
  uint32_t np, nt;
  const st_process *ps = st_trace_processes(t, &np);
  st_trace_tracks(t, &nt);
  for (uint32_t p = 0; p < np; p++) {
    uint32_t pp = st_trace_part_of_process(t, p);
    if ((pp == UINT32_MAX ? 0 : (int64_t)pp) != part || ps[p].pid != pid) continue;
    if (k >= (int64_t)ps[p].track_count || ps[p].first_track + (uint64_t)k >= nt) return UINT32_MAX;
    return ps[p].first_track + (uint32_t)k;
  }
  return UINT32_MAX;
}
