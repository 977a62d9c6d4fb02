/* test_sha256.c: st_sha256 (core/base/sha256.h) against the FIPS 180-4
 * examples (NIST's "SHA256.pdf" and "SHA2_Additional.pdf"): the empty
 * message, "abc", the 448-bit and 896-bit messages and one million 'a';
 * plus the padding boundaries (55, 56, 63, 64, 119, 120 bytes: the length
 * field fits in the last block or spills into one more). */
#include "check.h"
#include "sha256.h"

#include <stdlib.h>

static int hash_is(const void *data, size_t n, const char *hex) {
  uint8_t h[ST_SHA256_SIZE];
  char got[2 * ST_SHA256_SIZE + 1];
  st_sha256(data, n, h);
  for (int i = 0; i < ST_SHA256_SIZE; i++) snprintf(got + 2 * i, 3, "%02x", h[i]);
  if (strcmp(got, hex) == 0) return 1;
  fprintf(stderr, "sha256 of %zu bytes: %s, want %s\n", n, got, hex);
  return 0;
}

static void test_fips_examples(void) {
  CHECK(hash_is(NULL, 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
  CHECK(hash_is("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
  const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  CHECK_EQ_INT(strlen(m448) * 8, 448);
  CHECK(hash_is(m448, strlen(m448),
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
  const char *m896 =
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklm"
      "nopqrlmnopqrsmnopqrstnopqrstu";
  CHECK_EQ_INT(strlen(m896) * 8, 896);
  CHECK(hash_is(m896, strlen(m896),
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"));
}

static void test_million_a(void) {
  size_t n = 1000000;
  char *a = malloc(n);
  CHECK(a != NULL);
  if (!a) return;
  memset(a, 'a', n);
  CHECK(hash_is(a, n, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
  free(a);
}

static void test_padding_boundaries(void) {
  static const struct {
    size_t n;
    const char *hex;
  } cases[] = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
  };
  char a[128];
  memset(a, 'a', sizeof a);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    CHECK(hash_is(a, cases[i].n, cases[i].hex));
}

int main(void) {
  RUN(test_fips_examples);
  RUN(test_million_a);
  RUN(test_padding_boundaries);
  return check_report();
}
