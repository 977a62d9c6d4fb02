/* bench_inflate.c: inflate-only time of a gzip/zlib file, the baseline of
 * the .gz import benchmark (issue 3, item 7: gz import <= 1.15 x (plain
 * import + inflate-only)). Benchmark-only.
 *
 *   bench_inflate FILE.gz
 *
 * Reads FILE in 1 MiB chunks with stdio (as `strata stats` does) and
 * inflates every gzip member (or a zlib stream) into a reused 256 KiB
 * buffer (the loader's ST_SOURCE_OUT_BYTES), discarding the output but
 * summing it so the work cannot be skipped. Prints one JSON object:
 *   {"bytes_in", "bytes_out", "ms", "mb_per_s" (of output), "checksum"}
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define IN_BYTES (1u << 20)
#define OUT_BYTES (256u * 1024u)

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: bench_inflate FILE.gz\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  unsigned char *in = malloc(IN_BYTES), *out = malloc(OUT_BYTES);
  if (!f || !in || !out) {
    fprintf(stderr, "bench_inflate: %s: cannot open\n", argv[1]);
    return 1;
  }
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, 15 + 32) != Z_OK) return 1; /* gzip or zlib */
  double t0 = now_ms();
  unsigned long long bytes_in = 0, bytes_out = 0, sum = 0;
  int done = 0, bad = 0;
  while (!done && !bad) {
    size_t n = fread(in, 1, IN_BYTES, f);
    if (n == 0) break;
    bytes_in += n;
    z.next_in = in;
    z.avail_in = (uInt)n;
    while (z.avail_in > 0) {
      z.next_out = out;
      z.avail_out = OUT_BYTES;
      int rc = inflate(&z, Z_NO_FLUSH);
      size_t got = OUT_BYTES - z.avail_out;
      bytes_out += got;
      if (got) sum += out[0] + out[got - 1];
      if (rc == Z_STREAM_END) {
        /* another gzip member may follow */
        if (z.avail_in == 0) break;
        if (inflateReset(&z) != Z_OK) bad = 1;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        bad = 1;
        break;
      }
    }
  }
  double ms = now_ms() - t0;
  inflateEnd(&z);
  fclose(f);
  free(in);
  free(out);
  if (bad) {
    fprintf(stderr, "bench_inflate: %s: corrupt compressed data\n", argv[1]);
    return 1;
  }
  printf("{\"bytes_in\":%llu,\"bytes_out\":%llu,\"ms\":%.3f,\"mb_per_s\":%.1f,\"checksum\":%llu}\n",
         bytes_in, bytes_out, ms, ms > 0 ? (double)bytes_out / 1e6 / (ms / 1e3) : 0, sum);
  return 0;
}
