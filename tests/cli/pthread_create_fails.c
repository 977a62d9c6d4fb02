/* pthread_create_fails.c: an LD_PRELOAD shim for tests/cli/threads_tests.sh.
 * pthread_create succeeds for the first $STRATA_TEST_THREADS calls (default
 * 0) and fails with EAGAIN after, as on a machine out of threads, so the
 * test can check that `strata --threads N` then reads the file on the
 * threads it got (none: on one thread) with the same result. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  static int made; /* strata creates its threads from one thread */
  const char *allow = getenv("STRATA_TEST_THREADS");
  if (made >= (allow ? atoi(allow) : 0)) return EAGAIN;
  create_fn real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
  if (!real) return EAGAIN;
  made++;
  return real(t, attr, fn, arg);
}
