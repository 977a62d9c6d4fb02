# tools/scripts/env.sh: shared settings for tools/scripts/setup, build, run, test (sourced).
# STRATA_CACHE      where SDL2/zlib for wasm are cached (default ~/.cache/strata)
# STRATA_WASM_PORTS 1 = use Emscripten ports (upstream emsdk) instead of the cache;
#                   automatic when EMSDK is set (emsdk_env.sh sets it)
strata_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STRATA_CACHE=${STRATA_CACHE:-$HOME/.cache/strata}
strata_sdl_version=2.26.5
strata_zlib_version=1.2.13
STRATA_WASM_DEPS_DIR="$STRATA_CACHE/wasm-deps-sdl$strata_sdl_version-zlib$strata_zlib_version"
if [ -z "${STRATA_WASM_PORTS:-}" ]; then
  if [ -n "${EMSDK:-}" ]; then STRATA_WASM_PORTS=1; else STRATA_WASM_PORTS=0; fi
fi
# Debian's emscripten needs Debian's node modules (acorn) on NODE_PATH.
export NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs
export STRATA_CACHE STRATA_WASM_PORTS STRATA_WASM_DEPS_DIR
