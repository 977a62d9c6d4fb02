#version 300 es
// glyph.vert: one instanced quad per st_glyph_quad. The quad's top-left is
// snapped to a device pixel; its size is a whole number of device pixels
// already (the atlas cell), so atlas texels map 1:1 to screen pixels.
layout(location = 0) in vec2 a_corner;
layout(location = 1) in vec4 a_rect;  // x, y, w, h (CSS px)
layout(location = 2) in vec4 a_uv;    // u0, v0, u1, v1
layout(location = 3) in vec4 a_color;

uniform vec2 u_fb;
uniform float u_dpr;

out vec2 v_uv;
out vec4 v_color;

void main() {
  vec2 p0 = floor(a_rect.xy * u_dpr + 0.5);
  vec2 size = floor(a_rect.zw * u_dpr + 0.5);
  vec2 p = p0 + size * a_corner;
  v_uv = mix(a_uv.xy, a_uv.zw, a_corner);
  v_color = a_color;
  gl_Position = vec4(p.x / u_fb.x * 2.0 - 1.0, 1.0 - p.y / u_fb.y * 2.0, 0.0, 1.0);
}
