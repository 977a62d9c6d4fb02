/* test_importer_memory.c: what the Perfetto and XPlane importers hold once
 * the model is built. The loader frees their working state (input buffers,
 * inflate buffer, maps, tracks, threads, plane tables) before the builder
 * finishes the model, so after a load the heap is the model, the args
 * source and a few small structs: checked with a counting allocator on a
 * Perfetto system trace in compressed_packets and on an XSpace of one big
 * plane, both encoded in memory (pb_enc.h). */
#include "check.h"
#include "load.h"
#include "pb_enc.h"
#include "test_util.h"

#include <stdlib.h>

typedef struct heap {
  size_t cur, peak;
} heap;

static void *counting(void *ud, void *ptr, size_t size) {
  heap *h = ud;
  size_t old = 0;
  char *base = ptr ? (char *)ptr - 16 : NULL;
  if (base) memcpy(&old, base, sizeof old);
  if (size == 0) {
    free(base);
    h->cur -= old;
    return NULL;
  }
  char *nb = realloc(base, size + 16);
  if (!nb) return NULL;
  memcpy(nb, &size, sizeof size);
  h->cur = h->cur - old + size;
  if (h->cur > h->peak) h->peak = h->cur;
  return nb + 16;
}

/* Loads data in 64 KiB pushes; returns the heap bytes beyond the model and
 * the args source once loaded (the loader and importer shells, stats,
 * metadata), and the events, the model's bytes and the load's peak. */
static size_t held_beyond_model(const enc *data, const char *name, uint64_t *events,
                                size_t *model_out, size_t *peak_out) {
  heap h = {0, 0};
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.alloc = (st_alloc){counting, &h};
  d.file_name = name;
  st_loader *l = st_loader_create(&d);
  for (size_t i = 0; i < data->n; i += 65536)
    st_loader_push(l, data->p + i, data->n - i < 65536 ? data->n - i : 65536);
  st_error err;
  st_trace *t = st_loader_finish(l, &err);
  CHECK(t != NULL && err.code == ST_OK);
  *events = st_trace_event_count(t);
  size_t model = st_trace_bytes(t) + st_argsrc_bytes(st_loader_args_source(l));
  size_t held = h.cur > model ? h.cur - model : 0;
  printf("%s: %llu events, model + args source %zu bytes, %zu more held, peak %zu\n", name,
         (unsigned long long)*events, model, held, h.peak);
  *model_out = model;
  *peak_out = h.peak;
  st_trace_destroy(t);
  st_loader_destroy(l);
  CHECK_EQ_INT(h.cur, 0);
  return held;
}

/* ---- Perfetto: sched_switch bundles inside compressed_packets ------------------ */
static void ev_switch(enc *b, uint64_t ts, uint32_t prev, uint32_t next) {
  char comm[16];
  enc s = {0}, e = {0};
  snprintf(comm, sizeof comm, "t%u", prev);
  enc_str(&s, 1, comm);
  enc_u(&s, 2, prev);
  enc_u(&s, 3, 120);
  enc_i(&s, 4, 1);
  snprintf(comm, sizeof comm, "t%u", next);
  enc_str(&s, 5, comm);
  enc_u(&s, 6, next);
  enc_u(&s, 7, 120);
  enc_u(&e, 1, ts);
  enc_u(&e, 2, prev);
  enc_msg(&e, 4, &s);
  enc_msg(b, 2, &e);
  enc_free(&s);
  enc_free(&e);
}

static void test_perfetto(void) {
  enum { CPUS = 4, BUNDLES = 40, PER = 500, BLOBS = 8 };
  enc trace = {0}, blob = {0};
  uint64_t ts = 1000000;
  for (int k = 0; k < BUNDLES; k++) {
    for (uint32_t cpu = 0; cpu < CPUS; cpu++) {
      enc b = {0}, pk = {0}, evs = {0};
      for (int i = 0; i < PER; i++)
        ev_switch(&evs, ts + (uint64_t)i * 1000 + cpu, 100 + cpu * 50 + (uint32_t)(i % 50),
                  100 + cpu * 50 + (uint32_t)((i + 1) % 50));
      enc_u(&b, 1, cpu);
      enc_raw(&b, evs.p, evs.n);
      enc_msg(&pk, 1, &b);
      enc_u(&pk, 10, 5);
      enc_msg(&blob, 1, &pk); /* a Trace of packets, deflated below */
      enc_free(&b);
      enc_free(&pk);
      enc_free(&evs);
    }
    ts += (uint64_t)PER * 1000;
    if ((k + 1) % (BUNDLES / BLOBS) == 0) {
      size_t zn;
      unsigned char *z = tu_deflate(blob.p, blob.n, 15, &zn);
      enc pk = {0};
      enc_bytes(&pk, 50, z, zn);
      enc_msg(&trace, 1, &pk);
      enc_free(&pk);
      free(z);
      enc_reset(&blob);
    }
  }
  uint64_t events;
  size_t model, peak;
  size_t held = held_beyond_model(&trace, "system.pftrace", &events, &model, &peak);
  CHECK(events > (uint64_t)CPUS * BUNDLES * PER);
  /* without the release: the inflate buffer, the packet stream's buffer,
   * threads, tracks and maps (~580 KB) */
  CHECK(held < 32 * 1024);
  /* the replay of the staged records runs without the input buffers and
   * the runs' table: the peak stays within 5% of the model (9% with them) */
  CHECK(peak < model + model / 20);
  enc_free(&trace);
  enc_free(&blob);
}

/* ---- XPlane: one plane of 30000 events of 1000 kinds on 3 lines ------------------- */
static void test_xplane(void) {
  enc space = {0}, plane = {0};
  enc_str(&plane, 2, "/device:GPU:0");
  for (int ln = 0; ln < 3; ln++) {
    enc l = {0}, evs = {0};
    for (int i = 0; i < 10000; i++) {
      enc e = {0};
      enc_u(&e, 1, (uint64_t)(1 + i % 1000));
      enc_i(&e, 2, (int64_t)i * 2000000);
      enc_i(&e, 3, 1000000);
      enc_msg(&evs, 4, &e);
      enc_free(&e);
    }
    enc_i(&l, 1, ln + 1);
    enc_str(&l, 2, ln == 0 ? "Stream #1" : ln == 1 ? "Stream #2" : "Stream #3");
    enc_i(&l, 3, 1000);
    enc_raw(&l, evs.p, evs.n);
    enc_msg(&plane, 3, &l);
    enc_free(&l);
    enc_free(&evs);
  }
  for (int id = 1; id <= 1000; id++) {
    char name[32];
    snprintf(name, sizeof name, "fusion.%d", id);
    enc entry = {0}, m = {0};
    enc_u(&m, 1, (uint64_t)id);
    enc_str(&m, 2, name);
    enc_u(&entry, 1, (uint64_t)id);
    enc_msg(&entry, 2, &m);
    enc_msg(&plane, 4, &entry);
    enc_free(&entry);
    enc_free(&m);
  }
  enc_msg(&space, 1, &plane);
  uint64_t events;
  size_t model, peak;
  size_t held = held_beyond_model(&space, "gpu.xplane.pb", &events, &model, &peak);
  CHECK_EQ_INT(events, 30000);
  /* without the release: the plane's metadata tables and maps (~78 KB) */
  CHECK(held < 32 * 1024);
  enc_free(&space);
  enc_free(&plane);
}

int main(void) {
  RUN(test_perfetto);
  RUN(test_xplane);
  return check_report();
}
