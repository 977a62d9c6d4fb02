#version 300 es
// glyph.frag: the atlas holds coverage in R; the quad's colour tints it.
precision highp float;

in vec2 v_uv;
in vec4 v_color;

uniform sampler2D u_atlas;

out vec4 o_color;

void main() {
  float a = texture(u_atlas, v_uv).r;
  o_color = vec4(v_color.rgb, v_color.a * a);
}
