/* app_efficiency.c: how well the hardware is used, in the page (issue 33,
 * core/analysis/efficiency.h over the kept analysis of app_analyze.c). Args
 * are read by the platform (the page's Blob reads), so it is a dialogue:
 *   st_app_eff_wanted: the events of the analysis whose args may give a
 *     cost, [{"h", "src", "name"}] in the analysis's order;
 *   st_app_op_cost(name, args): one event's cost, [flops, model_flops,
 *     bytes, dtype, source, estimate] (efficiency.h st_op_cost) or "null";
 *   st_app_eff_json(costs, n, peaks): the efficiency's JSON as `strata
 *     analyze --json` writes it ("efficiency"), costs 6 doubles each, in the
 *     order of the wanted list (which must still be that of the analysis).
 */
#include "app_internal.h"

#include <string.h>

#include "efficiency.h"

typedef struct wanted_arg {
  const st_eff_want *w;
  uint32_t n;
  const st_analysis *an;
  const st_app *app;
} wanted_arg;

static void write_wanted(st_jout *o, st_app *app, const void *arg) {
  (void)app;
  const wanted_arg *a = arg;
  st_jout_lit(o, "[");
  for (uint32_t i = 0; i < a->n; i++) {
    const st_trace *t = st_analysis_trace(a->an, a->w[i].trace);
    const st_row *r = &st_trace_rows(t, NULL)[a->w[i].row];
    size_t l;
    const char *nm = st_strtab_get(st_trace_strings(t), r->name[a->w[i].index], &l);
    st_jout_lit(o, i ? ",{\"h\":" : "{\"h\":");
    st_jout_u64(o, st_app_part(a->app, a->w[i].trace).id);
    st_jout_lit(o, ",\"src\":");
    st_jout_u64(o, r->src[a->w[i].index]);
    st_jout_lit(o, ",\"name\":");
    st_jout_str(o, nm, l);
    st_jout_lit(o, "}");
  }
  st_jout_lit(o, "]");
}

const char *st_app_eff_wanted(st_app *app) {
  if (!app->an.result) return "null";
  st_eff_want *w = NULL;
  uint32_t n = 0;
  if (st_eff_wanted(&app->alloc, app->an.result, &w, &n) != ST_OK) return "null";
  wanted_arg a = {w, n, app->an.result, app};
  const char *out = st_app_json(app, &app->text, write_wanted, &a, "null");
  st_free(&app->alloc, w);
  return out;
}

static void write_cost(st_jout *o, st_app *app, const void *arg) {
  (void)app;
  const st_op_cost *c = arg;
  double v[6] = {c->flops, c->model_flops, c->bytes, c->dtype, c->source, c->estimate};
  for (int i = 0; i < 6; i++) {
    st_jout_lit(o, i ? "," : "[");
    st_jout_sig(o, v[i], 17);
  }
  st_jout_lit(o, "]");
}

const char *st_app_op_cost(st_app *app, const char *name, const char *args) {
  st_op_cost c;
  if (!name || !args || !st_op_cost_from_args(name, strlen(name), args, strlen(args), &c))
    return "null";
  return st_app_json(app, &app->small, write_cost, &c, "null");
}

static void write_eff(st_jout *o, st_app *app, const void *arg) {
  (void)app;
  st_efficiency_json(arg, o);
}

const char *st_app_eff_json(st_app *app, const double *costs, uint32_t n, double peak_tflops,
                            double peak_gbps) {
  if (!app->an.result || (n && !costs)) return "null";
  st_eff_want *w = NULL;
  uint32_t nw = 0;
  if (st_eff_wanted(&app->alloc, app->an.result, &w, &nw) != ST_OK) return "null";
  st_op_cost *c = nw ? st_calloc(&app->alloc, nw, sizeof *c) : NULL;
  uint32_t nt = st_analysis_traces(app->an.result);
  const char *meta[ST_APP_MAX_TRACES];
  const char *out = "null";
  if (nw != n || (nw && !c) || nt > ST_APP_MAX_TRACES) goto done;
  for (uint32_t i = 0; i < n; i++) {
    const double *x = costs + (size_t)i * 6;
    int ok = x[0] >= 0 && x[1] >= 0 && x[2] >= 0 && x[3] >= 0 && x[3] < ST_DT_COUNT && x[4] >= 0 &&
             x[4] <= ST_COST_XLA;
    if (!ok) continue; /* left without a cost */
    c[i] = (st_op_cost){x[0], x[1], x[2], (uint8_t)x[3], (uint8_t)x[4], (uint8_t)(x[5] != 0)};
  }
  for (uint32_t k = 0; k < nt; k++) {
    st_traceset_file f;
    meta[k] = st_traceset_get(app->set, st_app_part(app, k), &f) ? f.metadata_json : NULL;
  }
  st_eff_opts o = {.peak_tflops = peak_tflops > 0 ? peak_tflops : 0,
                   .peak_gbps = peak_gbps > 0 ? peak_gbps : 0};
  st_error err;
  st_efficiency *e = st_efficiency_build(&app->alloc, app->an.result, w, c, n, meta, &o, &err);
  if (e) out = st_app_json(app, &app->text, write_eff, e, "null");
  st_efficiency_destroy(e);
done:
  st_free(&app->alloc, c);
  st_free(&app->alloc, w);
  return out;
}
