#version 300 es
// rect.frag: flat fill, plus the per-flag cues: merged LOD blocks are
// hatched and lighter (denser blocks show more colour), unfinished slices
// fade out towards their right end, dimmed ones are faint, selected ones get
// an outline.
precision highp float;

in vec4 v_color;
in vec2 v_local;
flat in vec2 v_dim;
flat in uint v_flags;

uniform float u_dpr;

out vec4 o_color;

const uint MERGED = 1u;
const uint SELECTED = 2u;
const uint DIMMED = 4u;
const uint UNFINISHED = 8u;

void main() {
  vec4 c = v_color;
  if ((v_flags & MERGED) != 0u) {
    float density = float((v_flags >> 8) & 255u) / 255.0;
    float period = max(4.0, floor(5.0 * u_dpr));
    bool stripe = mod(gl_FragCoord.x + gl_FragCoord.y, period) < period * 0.5;
    vec3 light = mix(c.rgb, vec3(1.0), 0.5 - 0.3 * density);
    c.rgb = stripe ? c.rgb * 0.9 : light;
    c.a *= 0.55 + 0.45 * density;
  }
  if ((v_flags & UNFINISHED) != 0u) {
    float fade = 24.0 * u_dpr;
    float r = v_dim.x - v_local.x;
    if (v_dim.x > 2.0 * fade) c.a *= mix(0.3, 1.0, clamp(r / fade, 0.0, 1.0));
  }
  if ((v_flags & DIMMED) != 0u) c.a *= 0.3;
  if ((v_flags & SELECTED) != 0u) {
    float e = min(min(v_local.x, v_dim.x - v_local.x), min(v_local.y, v_dim.y - v_local.y));
    float bw = max(1.0, floor(1.5 * u_dpr));
    if (e < bw) c = vec4(0.05, 0.05, 0.08, 1.0);
    else if (e < 2.0 * bw) c = vec4(1.0, 1.0, 1.0, 1.0);
  }
  o_color = c;
}
