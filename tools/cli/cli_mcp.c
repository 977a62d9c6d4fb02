/* cli_mcp.c: `strata mcp`: the Model Context Protocol server on stdin/stdout.
 *
 * The server is the Python package's (tools/python/strata/mcp.py, standard
 * library only): a thin protocol layer that runs this CLI for every answer,
 * in a child process, so a trace that crashes or hangs it is a tool error
 * and never the server's end. This command replaces itself (execvp) with
 * `python3 -m strata mcp ARGS...`, STRATA_CLI set to this executable and
 * PYTHONPATH to the package beside it: the clone's tools/python (this is
 * build/native/strata) or the installed package (this is the platform
 * wheel's strata/bin/strata). Exit 1 with one line when neither is found
 * or python3 cannot be run.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* dir/rel/strata/mcp.py exists: dir/rel (the folder to put on PYTHONPATH) into out. */
static int package_at(const char *dir, const char *rel, char *out, size_t cap) {
  char probe[PATH_MAX + 64];
  int n = snprintf(probe, sizeof probe, "%s/%s/strata/mcp.py", dir, rel);
  if (n < 0 || (size_t)n >= sizeof probe || access(probe, R_OK) != 0) return 0;
  n = snprintf(out, cap, "%s/%s", dir, rel);
  return n > 0 && (size_t)n < cap;
}

int strata_cmd_mcp(int argc, char **argv) {
  char exe[PATH_MAX], pkg[PATH_MAX + 32], path[2 * PATH_MAX + 64];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    fprintf(stderr, "strata: mcp: cannot find this executable (/proc/self/exe)\n");
    return 1;
  }
  exe[n] = 0;
  char dir[PATH_MAX];
  memcpy(dir, exe, (size_t)n + 1);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  /* build/native/strata -> tools/python; <site-packages>/strata/bin/strata -> <site-packages> */
  if (!package_at(dir, "../../tools/python", pkg, sizeof pkg) &&
      !package_at(dir, "../..", pkg, sizeof pkg)) {
    fprintf(stderr,
            "strata: mcp: the strata Python package is not beside this executable (%s); "
            "run `python -m strata mcp` where it is installed\n",
            exe);
    return 1;
  }
  const char *old = getenv("PYTHONPATH");
  snprintf(path, sizeof path, "%s%s%s", pkg, old && *old ? ":" : "", old && *old ? old : "");
  if (setenv("PYTHONPATH", path, 1) != 0 || setenv("STRATA_CLI", exe, 1) != 0) {
    fprintf(stderr, "strata: mcp: out of memory\n");
    return 1;
  }
  char **args = calloc((size_t)argc + 3, sizeof *args);
  if (!args) {
    fprintf(stderr, "strata: mcp: out of memory\n");
    return 1;
  }
  args[0] = "python3";
  args[1] = "-m";
  args[2] = "strata";
  for (int i = 1; i < argc; i++) args[i + 2] = argv[i]; /* "mcp" ARGS... */
  execvp("python3", args);
  fprintf(stderr, "strata: mcp: cannot run python3 (the server is Python's): ");
  perror(NULL);
  free(args);
  return 1;
}
