# pack_viewer.cmake: writes DIST/strata-viewer.html, the viewer packed into
# one file with no trace inside (what tools/python/strata/notebook.py copies
# next to a notebook), with the native CLI's `strata export --viewer-only`:
# core/report's builder, the one the page's "Save HTML" runs too.
# Run by the wasm build's `dist` target after dist/ is assembled:
#   cmake -DCLI=<build/native/strata> -DDIST=<dist> -P pack_viewer.cmake
# Without a built CLI (tools/build --wasm-only on a fresh tree, the GitHub
# Pages workflow) it says so and writes nothing: the site does not need it.
if(CLI AND EXISTS "${CLI}")
  execute_process(COMMAND "${CLI}" export --viewer-only --dist "${DIST}" -o "${DIST}/strata-viewer.html"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "strata export --viewer-only failed (${rc})")
  endif()
else()
  message(STATUS "dist/strata-viewer.html not written: no native CLI at '${CLI}' "
                 "(tools/build without --wasm-only builds it; only the notebook helper needs the file)")
endif()
