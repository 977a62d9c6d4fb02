/* fuzz_op_cost.c: libFuzzer target for the FLOPs and bytes of an op from its
 * args (core/analysis/efficiency.h st_op_cost_from_args): untrusted JSON of
 * any shape. The input's first byte picks the op name (every name with a
 * formula, and a name without one, which still reads XLA stats); the rest
 * is the args text. A cost must be finite and not negative. Any crash or
 * sanitizer report is a bug. */
#include "efficiency.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const names[] = {"aten::mm",
                                      "aten::addmm",
                                      "aten::bmm",
                                      "aten::baddbmm",
                                      "aten::matmul",
                                      "aten::linear",
                                      "aten::conv2d",
                                      "aten::convolution",
                                      "aten::_convolution",
                                      "aten::scaled_dot_product_attention",
                                      "aten::_scaled_dot_product_flash_attention",
                                      "aten::_scaled_dot_product_efficient_attention",
                                      "aten::_flash_attention_forward",
                                      "aten::_efficient_attention_forward",
                                      "aten::_scaled_dot_product_flash_attention_backward",
                                      "fusion.1"};
  if (!size) return 0;
  const char *name = names[data[0] % (sizeof names / sizeof names[0])];
  char *args = malloc(size); /* exactly the bytes: reads past them are caught */
  if (!args) return 0;
  memcpy(args, data + 1, size - 1);
  st_op_cost c;
  if (st_op_cost_from_args(name, strlen(name), args, size - 1, &c) &&
      (!(c.flops >= 0) || !(c.bytes >= 0) || !(c.model_flops >= 0) || !isfinite(c.flops) ||
       !isfinite(c.bytes) || !isfinite(c.model_flops) || c.dtype >= ST_DT_COUNT))
    abort();
  free(args);
  return 0;
}
