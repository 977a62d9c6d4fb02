#version 300 es
// rect.vert: one instanced quad per st_rect. Positions arrive in CSS px
// relative to the canvas (small floats: the draw list is view-relative) and
// are snapped to device pixels here, with a minimum size of one device pixel
// so that nothing that exists disappears.
layout(location = 0) in vec2 a_corner; // (0,0) (1,0) (0,1) (1,1)
layout(location = 1) in vec4 a_rect;   // x, y, w, h (CSS px)
layout(location = 2) in vec4 a_color;  // RGBA, normalised bytes
layout(location = 3) in uint a_flags;  // ST_RECT_* | density << 8

uniform vec2 u_fb;   // drawing buffer size, device px
uniform float u_dpr; // device px per CSS px

out vec4 v_color;
out vec2 v_local;     // device px from the rect's top-left
flat out vec2 v_dim;  // rect size, device px
flat out uint v_flags;

void main() {
  vec2 p0 = floor(a_rect.xy * u_dpr + 0.5);
  vec2 p1 = floor((a_rect.xy + a_rect.zw) * u_dpr + 0.5);
  p1 = max(p1, p0 + 1.0);
  vec2 p = mix(p0, p1, a_corner);
  v_color = a_color;
  v_local = p - p0;
  v_dim = p1 - p0;
  v_flags = a_flags;
  gl_Position = vec4(p.x / u_fb.x * 2.0 - 1.0, 1.0 - p.y / u_fb.y * 2.0, 0.0, 1.0);
}
