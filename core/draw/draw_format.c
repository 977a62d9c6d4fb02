/* draw_format.c: the draw module's words and colours for values (draw.h):
 * a name's colour (a hash to HSL, the same name the same colour in every
 * view), numbers with SI suffixes and units, times on the axis, the axis's
 * round step. Pure functions of their arguments. */
#include "draw_internal.h"

#include "query.h" /* st_format_dur */

#include <math.h>
#include <stdio.h> /* snprintf only */
#include <string.h>

static float hue_to(float p, float q, float t) {
  if (t < 0) t += 1;
  if (t > 1) t -= 1;
  if (t < 1.0f / 6) return p + (q - p) * 6 * t;
  if (t < 0.5f) return q;
  if (t < 2.0f / 3) return p + (q - p) * (2.0f / 3 - t) * 6;
  return p;
}

uint32_t st_color_for_name(const char *s, size_t len) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; s && i < len; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  h ^= h >> 15; /* FNV's low bits are weak for short strings */
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  float hue = (float)(h % 360u) / 360.0f;
  float sat = 0.42f + (float)((h >> 9) % 24u) / 100.0f;    /* 0.42 .. 0.65 */
  float light = 0.56f + (float)((h >> 17) % 14u) / 100.0f; /* 0.56 .. 0.69 */
  float q = light < 0.5f ? light * (1 + sat) : light + sat - light * sat;
  float p = 2 * light - q;
  float r = hue_to(p, q, hue + 1.0f / 3), g = hue_to(p, q, hue), b = hue_to(p, q, hue - 1.0f / 3);
  return rgba((unsigned)(r * 255 + 0.5f), (unsigned)(g * 255 + 0.5f), (unsigned)(b * 255 + 0.5f),
              255);
}

size_t st_format_value(double v, char *buf, size_t cap) {
  if (!buf || !cap) return 0;
  static const struct {
    double scale;
    const char *suffix;
  } si[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  double a = fabs(v);
  int n = -1;
  for (size_t k = 0; k < sizeof si / sizeof si[0] && n < 0; k++) {
    if (!(a >= si[k].scale) || a >= 1e18) continue;
    double x = v / si[k].scale, ax = fabs(x);
    /* three significant digits; 999.5 k rounds up to the next unit's 1.00 */
    if (ax >= 999.5 && k > 0) x /= 1000, ax /= 1000, k--;
    n = snprintf(buf, cap,
                 ax >= 99.95   ? "%.0f %s"
                 : ax >= 9.995 ? "%.1f %s"
                               : "%.2f %s",
                 x, si[k].suffix);
  }
  if (n < 0) n = snprintf(buf, cap, "%.4g", v);
  return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

size_t st_format_quantity(double v, const char *unit, size_t unit_len, char *buf, size_t cap) {
  if (!buf || !cap) return 0;
  if (!unit || !unit_len) return st_format_value(v, buf, cap);
  if (unit_len == 2 && !memcmp(unit, "ns", 2) && isfinite(v)) return st_format_dur(v, buf, cap);
  size_t n = st_format_value(v, buf, cap);
  /* "1.80 M" + "B"; a bare number gets a space: "950 B" */
  int si = n > 0 && buf[n - 1] >= 'A' && buf[n - 1] <= 'z' && n >= 2 && buf[n - 2] == ' ';
  if (!si && n + 1 < cap) buf[n++] = ' ';
  size_t k = unit_len < cap - 1 - n ? unit_len : cap - 1 - n;
  while (k < unit_len && k > 0 && ((unsigned char)unit[k] & 0xC0) == 0x80) k--; /* whole UTF-8 */
  memcpy(buf + n, unit, k);
  buf[n + k] = 0;
  return n + k;
}

double st_axis_tick_step(double ns_per_px, double min_px) {
  double raw = ns_per_px * min_px;
  if (!(raw > 0) || !isfinite(raw)) return 1;
  double p = pow(10.0, floor(log10(raw)));
  static const double mult[] = {1, 2, 5, 10};
  for (int i = 0; i < 4; i++)
    if (mult[i] * p >= raw * (1 - 1e-9)) return mult[i] * p;
  return 10 * p;
}

size_t st_format_time(double t_ns, double step_ns, char *buf, size_t cap) {
  if (!buf || !cap) return 0;
  if (!isfinite(t_ns)) t_ns = 0;
  if (!(step_ns > 0) || !isfinite(step_ns)) step_ns = 1;
  /* snap to the step so 2.9999999 prints as 3 */
  double snapped = round(t_ns / step_ns) * step_ns;
  if (fabs(snapped - t_ns) < step_ns * 1e-6) t_ns = snapped;
  if (fabs(t_ns) < step_ns * 1e-6) {
    int n = snprintf(buf, cap, "0");
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
  }
  double m = fabs(t_ns) > step_ns ? fabs(t_ns) : step_ns;
  double unit;
  const char *name;
  if (m >= 1e9)
    unit = 1e9, name = "s";
  else if (m >= 1e6)
    unit = 1e6, name = "ms";
  else if (m >= 1e3)
    unit = 1e3, name = "us";
  else
    unit = 1, name = "ns";
  int dec = (int)ceil(-log10(step_ns / unit) - 1e-9);
  if (dec < 0) dec = 0;
  if (dec > 9) dec = 9;
  char num[64];
  snprintf(num, sizeof num, "%.*f", dec, t_ns / unit);
  if (dec > 0) { /* trim trailing zeros: 3.20 -> 3.2, 3.00 -> 3 */
    size_t n = strlen(num);
    while (n > 1 && num[n - 1] == '0') num[--n] = 0;
    if (n > 1 && num[n - 1] == '.') num[--n] = 0;
  }
  if (!strcmp(num, "-0")) strcpy(num, "0");
  int n = snprintf(buf, cap, "%s %s", num, name);
  if (n < 0) return 0;
  return (size_t)n < cap ? (size_t)n : cap - 1;
}
