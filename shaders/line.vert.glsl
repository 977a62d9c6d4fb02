#version 300 es
// line.vert: one instanced quad per st_line, extruded across the segment by
// its width. Horizontal and vertical lines (grid, separators) are snapped so
// that they cover whole device pixels and stay crisp.
layout(location = 0) in vec2 a_corner;
layout(location = 1) in vec4 a_seg;   // x0, y0, x1, y1 (CSS px)
layout(location = 2) in float a_width; // CSS px
layout(location = 3) in vec4 a_color;

uniform vec2 u_fb;
uniform float u_dpr;

out vec4 v_color;

void main() {
  vec2 a = a_seg.xy * u_dpr;
  vec2 b = a_seg.zw * u_dpr;
  float w = max(1.0, floor(a_width * u_dpr + 0.5));
  vec2 p;
  if (a.y == b.y) {
    // horizontal: rows [y0, y0 + w)
    float y0 = floor(a.y - w * 0.5 + 0.5);
    float xa = floor(min(a.x, b.x) + 0.5), xb = max(floor(max(a.x, b.x) + 0.5), xa + 1.0);
    p = vec2(mix(xa, xb, a_corner.x), y0 + w * a_corner.y);
  } else if (a.x == b.x) {
    float x0 = floor(a.x - w * 0.5 + 0.5);
    float ya = floor(min(a.y, b.y) + 0.5), yb = max(floor(max(a.y, b.y) + 0.5), ya + 1.0);
    p = vec2(x0 + w * a_corner.x, mix(ya, yb, a_corner.y));
  } else {
    vec2 d = normalize(b - a);
    vec2 n = vec2(-d.y, d.x);
    p = mix(a, b, a_corner.x) + n * (a_corner.y - 0.5) * w;
  }
  v_color = a_color;
  gl_Position = vec4(p.x / u_fb.x * 2.0 - 1.0, 1.0 - p.y / u_fb.y * 2.0, 0.0, 1.0);
}
