# Embeds one binary file as a C byte array in a header:
#   static const unsigned char <NAME>[] = {...};  static const size_t <NAME>_len = N;
# Run as: cmake -DIN=<file> -DOUT=<header> -DNAME=<identifier> -P embed_file.cmake
# (native/glyphs_native.c embeds the label font with it, so `strata view`
# needs no font file at run time.)
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR n "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
get_filename_component(src ${IN} NAME)
file(WRITE ${OUT}.tmp
  "/* generated from ${src} by tools/scripts/embed_file.cmake: do not edit */\n"
  "#include <stddef.h>\n"
  "static const unsigned char ${NAME}[] = {${hex}};\n"
  "static const size_t ${NAME}_len = ${n};\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
