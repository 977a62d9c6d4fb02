/* analyze_json.c: the analysis (core/analysis/analyze.h) as JSON, the one
 * writer for `strata analyze --json` and the page's window.strata.analyze().
 * Reads the state analyze.c built (analyze_internal.h); calls nothing of
 * analyze.c's but its public accessors.
 */
#include "analyze.h"
#include "analyze_internal.h"
#include "collectives.h"

#include "json_out.h"
#include "memory.h"

#include <stdio.h> /* snprintf only */
#include <string.h>

/* ==== 7. JSON ============================================================== */

static void key(st_jout *o, const char *k, int first) {
  if (!first) st_jout_put(o, ",", 1);
  st_jout_put(o, "\"", 1);
  st_jout_lit(o, k);
  st_jout_put(o, "\":", 2);
}

static void pct(st_jout *o, int64_t part, int64_t whole) {
  if (whole <= 0)
    st_jout_lit(o, "null");
  else
    st_jout_fixed(o, 100.0 * (double)part / (double)whole, 2);
}

static void times_json(st_jout *o, const st_an_times *t) {
  key(o, "busy_us", 0);
  st_jout_us(o, t->busy_ns);
  key(o, "idle_us", 0);
  st_jout_us(o, t->wall_ns - t->busy_ns);
  key(o, "idle_pct", 0);
  pct(o, t->wall_ns - t->busy_ns, t->wall_ns);
  key(o, "compute_us", 0);
  st_jout_us(o, t->compute_ns);
  key(o, "comm_us", 0);
  st_jout_us(o, t->comm_ns);
  key(o, "memcpy_us", 0);
  st_jout_us(o, t->memcpy_ns);
  key(o, "overlap_pct", 0);
  pct(o, t->overlap_ns, t->comm_ns);
}

static const char *const source_names[] = {"none", "named", "profiler_step", "steps_line"};

static void str_or_empty(st_jout *o, const char *const *v, uint32_t k) {
  const char *s = v && v[k] ? v[k] : "";
  st_jout_str(o, s, strlen(s));
}

size_t st_analysis_json(const st_analysis *an, const st_analysis_json_opts *jo, char *buf,
                        size_t cap) {
  st_jout o = {.buf = buf, .cap = cap};
  if (!an) {
    st_jout_lit(&o, "null");
    return st_jout_end(&o);
  }
  const char *const *files = jo ? jo->files : NULL, *const *groups = jo ? jo->groups : NULL;
  const int64_t *shift = jo ? jo->shift_ns : NULL;
#define OWN(k, t) ((t) - (shift ? shift[k] : 0)) /* a time of trace k, in its own ns */
  st_jout_lit(&o, "{\"schema\":\"strata.analyze/1\",\"traces\":[");
  for (uint32_t k = 0; k < an->n; k++) {
    uint32_t nd = 0;
    for (uint32_t d = 0; d < an->ndevices; d++) nd += an->devices[d].trace == k;
    st_jout_lit(&o, k ? ",{" : "{");
    key(&o, "file", 1);
    str_or_empty(&o, files, k);
    key(&o, "group", 0);
    str_or_empty(&o, groups, k);
    key(&o, "steps_from", 0);
    st_jout_str(&o, source_names[an->source[k]], strlen(source_names[an->source[k]]));
    key(&o, "steps", 0);
    st_jout_u64(&o, an->step_count[k]);
    key(&o, "devices", 0);
    st_jout_u64(&o, nd);
    st_jout_lit(&o, "}");
  }
  st_jout_lit(&o, "],\"steps\":[");
  for (uint32_t j = 0; j < an->nsteps; j++) {
    const st_an_step *s = &an->steps[j];
    st_jout_lit(&o, j ? ",{" : "{");
    key(&o, "trace", 1);
    st_jout_u64(&o, s->trace);
    key(&o, "step", 0);
    st_jout_i64(&o, s->number);
    key(&o, "start_us", 0);
    st_jout_us(&o, OWN(s->trace, s->t0_ns));
    key(&o, "end_us", 0);
    st_jout_us(&o, OWN(s->trace, s->t1_ns));
    key(&o, "wall_us", 0);
    st_jout_us(&o, s->t1_ns - s->t0_ns);
    key(&o, "host_us", 0);
    st_jout_us(&o, s->host_ns);
    st_jout_lit(&o, "}");
  }
  st_jout_lit(&o, "],\"devices\":[");
  for (uint32_t d = 0; d < an->ndevices; d++) {
    const st_an_device *v = &an->devices[d];
    st_jout_lit(&o, d ? ",{" : "{");
    key(&o, "trace", 1);
    st_jout_u64(&o, v->trace);
    key(&o, "name", 0);
    st_jout_str(&o, v->name, strlen(v->name));
    key(&o, "steps", 0);
    st_jout_u64(&o, v->step_count);
    key(&o, "range_us", 0);
    st_jout_us(&o, v->total.wall_ns);
    key(&o, "step_us", 0);
    st_jout_us(&o, v->step_ns);
    key(&o, "step_p50_us", 0);
    st_jout_us(&o, v->step_p50_ns);
    key(&o, "step_p90_us", 0);
    st_jout_us(&o, v->step_p90_ns);
    key(&o, "utilization_pct", 0);
    pct(&o, v->total.busy_ns, v->total.wall_ns);
    times_json(&o, &v->total);
    key(&o, "steps_with_work", 0);
    st_jout_u64(&o, v->steps_with_work);
    key(&o, "idle_split", 0);
    st_jout_lit(&o, "{");
    key(&o, "host_wait_us", 1);
    st_jout_us(&o, v->host_wait_ns);
    key(&o, "kernel_wait_us", 0);
    st_jout_us(&o, v->kernel_wait_ns);
    key(&o, "other_us", 0);
    st_jout_us(&o, v->other_wait_ns);
    st_jout_lit(&o, "}");
    key(&o, "idle_causes", 0);
    st_jout_put(&o, "[", 1);
    for (uint32_t c = 0; c < v->causes; c++) {
      const st_an_cause *x = &an->causes[v->first_cause + c];
      const st_trace *t = an->traces[v->trace];
      const st_row *rows = st_trace_rows(t, NULL);
      st_jout_lit(&o, c ? ",{" : "{");
      key(&o, "what", 1);
      if (x->what == ST_CAUSE_SLICE) {
        size_t l;
        const char *nm =
            st_strtab_get(st_trace_strings(t), rows[x->ref.row].name[x->ref.index], &l);
        st_jout_str(&o, nm, l);
      } else {
        st_jout_lit(&o,
                    x->what == ST_CAUSE_OTHER ? "\"other host activity\"" : "\"nothing recorded\"");
      }
      key(&o, "us", 0);
      st_jout_us(&o, x->ns);
      key(&o, "pct", 0);
      pct(&o, x->ns, v->total.wall_ns - v->total.busy_ns);
      key(&o, "kind", 0);
      st_jout_lit(&o, x->what == ST_CAUSE_SLICE   ? "\"slice\""
                      : x->what == ST_CAUSE_OTHER ? "\"other\""
                                                  : "\"none\"");
      key(&o, "in", 0);
      if (x->has_parent) {
        size_t l;
        const char *nm =
            st_strtab_get(st_trace_strings(t), rows[x->parent.row].name[x->parent.index], &l);
        st_jout_str(&o, nm, l);
      } else {
        st_jout_lit(&o, "null");
      }
      key(&o, "gaps", 0);
      st_jout_u64(&o, x->gaps);
      key(&o, "gap_start_us", 0);
      st_jout_us(&o, OWN(v->trace, x->gap_t0_ns));
      key(&o, "gap_end_us", 0);
      st_jout_us(&o, OWN(v->trace, x->gap_t1_ns));
      if (jo && jo->cause_gaps) {
        key(&o, "gap_list", 0);
        st_jout_lit(&o, "[");
        for (uint32_t g = 0; g < x->gaps; g++) {
          const st_an_span *sp = &an->cgaps[x->first_gap + g];
          st_jout_lit(&o, g ? ",[" : "[");
          st_jout_us(&o, OWN(v->trace, sp->t0_ns));
          st_jout_lit(&o, ",");
          st_jout_us(&o, OWN(v->trace, sp->t1_ns));
          st_jout_lit(&o, "]");
        }
        st_jout_lit(&o, "]");
      }
      st_jout_lit(&o, "}");
    }
    st_jout_put(&o, "]", 1);
    st_jout_lit(&o, "}");
  }
  st_jout_lit(&o, "],\"per_step\":[");
  int first = 1;
  for (uint32_t d = 0; d < an->ndevices; d++) {
    const st_an_device *v = &an->devices[d];
    for (uint32_t j = 0; j < v->step_count; j++) {
      const st_an_cell *c = &an->cells[v->first_cell + j];
      st_jout_lit(&o, first ? "{" : ",{");
      first = 0;
      key(&o, "trace", 1);
      st_jout_u64(&o, v->trace);
      key(&o, "device", 0);
      st_jout_u64(&o, d);
      key(&o, "step", 0);
      st_jout_i64(&o, an->steps[v->first_step + j].number);
      key(&o, "start_us", 0);
      st_jout_us(&o, OWN(v->trace, c->t0_ns));
      key(&o, "wall_us", 0);
      st_jout_us(&o, c->t.wall_ns);
      times_json(&o, &c->t);
      if (jo && jo->coll) {
        const st_coll_step_rank *w =
            st_coll_step_find(jo->coll, v->trace, an->steps[v->first_step + j].number);
        key(&o, "waited_us", 0);
        st_jout_us(&o, w ? w->waited_ns : 0);
        key(&o, "caused_us", 0);
        st_jout_us(&o, w ? w->caused_ns : 0);
      }
      st_jout_lit(&o, "}");
    }
  }
  st_jout_lit(&o, "],\"idle_gaps\":[");
  for (uint32_t g = 0; g < an->ngaps; g++) {
    const st_an_gap *p = &an->gaps[g];
    const st_an_device *v = &an->devices[p->device];
    const st_trace *t = an->traces[v->trace];
    st_jout_lit(&o, g ? ",{" : "{");
    key(&o, "trace", 1);
    st_jout_u64(&o, v->trace);
    key(&o, "device", 0);
    st_jout_u64(&o, p->device);
    key(&o, "start_us", 0);
    st_jout_us(&o, OWN(v->trace, p->t0_ns));
    key(&o, "end_us", 0);
    st_jout_us(&o, OWN(v->trace, p->t1_ns));
    key(&o, "dur_us", 0);
    st_jout_us(&o, p->t1_ns - p->t0_ns);
    key(&o, "host", 0);
    st_jout_put(&o, "[", 1);
    for (uint32_t h = 0; h < p->host_count; h++) {
      const st_row *r = &st_trace_rows(t, NULL)[p->host[h].ref.row];
      uint32_t i = p->host[h].ref.index;
      size_t l;
      const char *nm = st_strtab_get(st_trace_strings(t), r->name[i], &l);
      st_jout_lit(&o, h ? ",{" : "{");
      key(&o, "name", 1);
      st_jout_str(&o, nm, l);
      key(&o, "start_us", 0);
      st_jout_us(&o, OWN(v->trace, r->start[i]));
      key(&o, "dur_us", 0);
      st_jout_us(&o, r->dur[i]);
      key(&o, "overlap_us", 0);
      st_jout_us(&o, p->host[h].overlap_ns);
      st_jout_lit(&o, "}");
    }
    st_jout_lit(&o, "]}");
  }
  st_jout_lit(&o, "],\"ranks\":[");
  first = 1;
  for (uint32_t k = 0; an->rank_scale > 0 && k < an->n; k++) {
    const st_an_rank *r = &an->ranks[k];
    if (!r->has_value) continue;
    st_jout_lit(&o, first ? "{" : ",{");
    first = 0;
    key(&o, "trace", 1);
    st_jout_u64(&o, k);
    key(&o, "value_us", 0);
    st_jout_fixed(&o, r->value_ns / 1000.0, 3);
    key(&o, "score", 0);
    st_jout_fixed(&o, r->score, 3);
    key(&o, "straggler", 0);
    st_jout_lit(&o, r->straggler ? "true" : "false");
    st_jout_lit(&o, "}");
  }
  st_jout_lit(&o, "],\"stragglers\":[");
  first = 1;
  for (uint32_t k = 0; an->rank_scale > 0 && k < an->n; k++) {
    const st_an_rank *r = &an->ranks[k];
    if (!r->straggler) continue;
    st_jout_lit(&o, first ? "{" : ",{");
    first = 0;
    key(&o, "trace", 1);
    st_jout_u64(&o, k);
    key(&o, "metric", 0);
    st_jout_lit(&o, "\"compute_us_per_step\"");
    key(&o, "value", 0);
    st_jout_fixed(&o, r->value_ns / 1000.0, 3);
    key(&o, "median", 0);
    st_jout_fixed(&o, an->rank_median / 1000.0, 3);
    key(&o, "score", 0);
    st_jout_fixed(&o, r->score, 3);
    st_jout_lit(&o, "}");
  }
  st_jout_lit(&o, "],\"memory\":");
  st_memory_json(&o, an->mem, an->traces, shift);
  st_jout_lit(&o, ",\"memory_counters\":[");
  first = 1;
  for (uint32_t k = 0; k < an->n; k++) {
    const st_trace *t = an->traces[k];
    uint32_t nc, nt, np;
    const st_counter *cs = st_trace_counters(t, &nc);
    const st_track *tracks = st_trace_tracks(t, &nt);
    const st_process *ps = st_trace_processes(t, &np);
    const st_strtab *strs = st_trace_strings(t);
    for (uint32_t i = 0; i < nc; i++) {
      size_t l, pl;
      if (cs[i].track >= nt || !cs[i].count) continue;
      const char *nm = st_strtab_get(strs, tracks[cs[i].track].name, &l);
      if (!has_ci(nm, l, "mem")) continue;
      const char *pn = st_strtab_get(strs, ps[tracks[cs[i].track].process].name, &pl);
      st_jout_lit(&o, first ? "{" : ",{");
      first = 0;
      key(&o, "trace", 1);
      st_jout_u64(&o, k);
      key(&o, "process", 0);
      st_jout_str(&o, pn, pl);
      key(&o, "name", 0);
      st_jout_str(&o, nm, l);
      key(&o, "peak", 0);
      st_jout_sig(&o, cs[i].max, 9);
      st_jout_lit(&o, "}");
    }
  }
  st_jout_lit(&o, "],\"ops\":[");
  uint32_t nops;
  const st_opstat *ops = st_opstats_rows(an->ops, &nops);
  first = 1;
  for (uint32_t i = 0; i < nops; i++) {
    if (!ops[i].top) continue;
    st_jout_lit(&o, first ? "{" : ",{");
    first = 0;
    st_opstat_json_fields(&o, &ops[i]);
    key(&o, "kind", 0);
    const char *kn = st_op_kind_name((st_op_kind)ops[i].kind);
    st_jout_str(&o, kn, strlen(kn));
    st_jout_lit(&o, "}");
  }
  static const struct {
    const char *key;
    uint8_t kind;
  } tables[] = {
      {"kernels", ST_KIND_KERNEL}, {"host_ops", ST_KIND_HOST}, {"runtime", ST_KIND_RUNTIME}};
  for (size_t tb = 0; tb < sizeof tables / sizeof tables[0]; tb++) {
    st_jout_lit(&o, "],\"");
    st_jout_lit(&o, tables[tb].key);
    st_jout_lit(&o, "\":[");
    first = 1;
    uint32_t shown = 0;
    for (uint32_t i = 0; i < nops && shown < an->top_ops; i++) {
      if (ops[i].kind != tables[tb].kind) continue;
      const st_an_op_extra *x = &an->op_extra[i];
      shown++;
      st_jout_lit(&o, first ? "{" : ",{");
      first = 0;
      st_opstat_json_fields(&o, &ops[i]);
      if (tables[tb].kind == ST_KIND_KERNEL) {
        key(&o, "launched_by", 0);
        if (x->launched_by)
          st_jout_str(&o, x->launched_by, x->launched_by_len);
        else
          st_jout_lit(&o, "null");
      }
      if (tables[tb].kind == ST_KIND_RUNTIME) {
        key(&o, "blocked_us", 0);
        st_jout_us(&o, x->blocked_ns);
        key(&o, "blocked_pct", 0);
        if (ops[i].total_ns > 0 && x->devices)
          st_jout_fixed(&o, 100.0 * (double)x->blocked_ns / ((double)ops[i].total_ns * x->devices),
                        2);
        else
          st_jout_lit(&o, "null");
      }
      st_jout_lit(&o, "}");
    }
  }
  st_jout_lit(&o, "],\"op_names\":");
  st_jout_u64(&o, st_opstats_names(an->ops));
  st_jout_lit(&o, "}");
#undef OWN
  return st_jout_end(&o);
}
