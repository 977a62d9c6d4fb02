# Embeds every shaders/*.glsl as a C string constant in one header:
#   shaders/rect.vert.glsl -> static const char st_shader_rect_vert[] = "...";
# Run as: cmake -DOUT=<header> -DSRC_DIR=<shaders dir> -P embed_shaders.cmake
file(GLOB files ${SRC_DIR}/*.glsl)
list(SORT files)
set(out "/* generated from the .glsl files in shaders/ by tools/scripts/embed_shaders.cmake: do not edit */\n")
foreach(f ${files})
  get_filename_component(base ${f} NAME)
  string(REGEX REPLACE "\\.glsl$" "" base "${base}")
  string(REGEX REPLACE "[^A-Za-z0-9]" "_" ident "${base}")
  file(READ ${f} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(APPEND out "static const char st_shader_${ident}[] = {${hex}0x00};\n")
endforeach()
file(WRITE ${OUT}.tmp "${out}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
