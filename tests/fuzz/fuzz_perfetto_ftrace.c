/* fuzz_perfetto_ftrace.c: libFuzzer target for the Perfetto system-data
 * decoders (core/import/perfetto/perfetto_ftrace.c, perfetto_sched.c, perfetto_system.c,
 * perfetto_android.c and argsrc.c's scheduling details and statsd atoms). The input is the body
 * of an FtraceEventBundle (after a `cpu` field taken from its first byte), so
 * hostile FtraceEvents and compact_sched columns reach the decoders
 * directly; a ProcessTree packet and a second copy of the bundle on another
 * CPU come with it (cross-CPU replay), and the same bytes again as the body
 * of each Android system packet (battery, power rails, statsd atoms, ...). The trace is loaded
 * (chunked at random), drawn, and the details of its events are decoded from the same bytes. Any
 * crash, leak or sanitizer report is a bug. */
#include "../../tools/gen/pb_enc.h"
#include "argsrc.h"
#include "fuzz_util.h"
#include "load.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  /* ProcessTree {processes {pid 10, cmdline "p"}, threads {tid 11, name "t", tgid 10}} */
  static const uint8_t tree[] = {0x0a, 0x05, 0x08, 0x0a, 0x1a, 0x01, 'p',  0x12,
                                 0x07, 0x08, 0x0b, 0x12, 0x01, 't',  0x18, 0x0a};
  enc trace = {0}, pk = {0}, bundle = {0};
  enc_bytes(&pk, 2, tree, sizeof tree);
  enc_bytes(&trace, 1, pk.p, pk.n);
  for (int copy = 0; copy < 2; copy++) {
    bundle.n = pk.n = 0;
    enc_varint(&bundle, 1 << 3);
    enc_varint(&bundle, (uint64_t)(data[0] % 4 + (unsigned)copy));
    enc_raw(&bundle, data + 1, size - 1);
    enc_bytes(&pk, 1, bundle.p, bundle.n);
    enc_bytes(&trace, 1, pk.p, pk.n);
  }
  /* the same bytes as the body of each Android system packet (battery,
   * power rails, packages list, statsd atoms, network packet, entity state
   * residency, network bundle), with a timestamp */
  static const uint32_t android[] = {38, 40, 47, 84, 88, 91, 92};
  for (size_t i = 0; i < sizeof android / sizeof *android; i++) {
    pk.n = 0;
    enc_bytes(&pk, android[i], data + 1, size - 1);
    enc_u(&pk, 8, 1000 + i);
    enc_bytes(&trace, 1, pk.p, pk.n);
  }
  uint32_t seed = fuzz_seed(data, size);
  st_load_desc d;
  memset(&d, 0, sizeof d);
  d.file_name = "fuzz.pftrace";
  st_loader *l = st_loader_create(&d);
  if (l) {
    for (size_t i = 0; i < trace.n;) {
      seed = seed * 1103515245u + 12345u;
      size_t chunk = (seed >> 16) % 512 + 1;
      if (chunk > trace.n - i) chunk = trace.n - i;
      if (st_loader_push(l, trace.p + i, chunk) != ST_OK) break;
      i += chunk;
    }
    st_error err;
    st_trace *t = st_loader_finish(l, &err);
    (void)st_loader_metadata_json(l);
    st_argsrc *as = st_loader_take_args_source(l);
    st_loader_destroy(l);
    if (t) {
      fuzz_draw(t);
      uint32_t nrows, done = 0;
      const st_row *rows = st_trace_rows(t, &nrows);
      for (uint32_t r = 0; r < nrows && done < 256; r++)
        for (uint32_t k = 0; k < rows[r].count && done < 256; k++, done++)
          fuzz_decode_args(as, trace.p, trace.n, rows[r].src[k], st_trace_end_src(t, r, k));
      st_trace_destroy(t);
    }
    for (size_t off = 0; off < trace.n && off < 48; off++)
      fuzz_decode_args(as, trace.p, trace.n, off, UINT64_MAX);
    st_argsrc_destroy(as);
  }
  free(trace.p);
  free(pk.p);
  free(bundle.p);
  return 0;
}
