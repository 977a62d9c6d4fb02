/* replay_main.c: a plain main() for fuzz targets, so they build with any
 * compiler and run under ctest: calls LLVMFuzzerTestOneInput once per file
 * found in the directories given on the command line (and in their direct
 * subdirectories). Prints "N passed, 0 failed"; a bug shows up as a crash
 * or a sanitizer report, never as a soft failure. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = malloc(cap);
  for (;;) {
    if (n == cap) {
      cap *= 2;
      uint8_t *nb = realloc(buf, cap);
      if (!nb) break;
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    if (got == 0) break;
    n += got;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 1;
}

static int run_dir(const char *dir, int depth) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (depth == 0) count += run_dir(path, 1);
    } else if (S_ISREG(st.st_mode)) {
      count += run_file(path);
    }
  }
  closedir(d);
  return count;
}

int main(int argc, char **argv) {
  int count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) continue;
    count += S_ISDIR(st.st_mode) ? run_dir(argv[i], 0) : run_file(argv[i]);
  }
  printf("%d passed, 0 failed\n", count);
  return 0;
}
