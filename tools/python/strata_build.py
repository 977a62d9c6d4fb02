"""strata_build: the wheel of the strata Python package, with the standard
library only (a PEP 517 build backend, and a script for tools/build).

    python3 tools/python/strata_build.py [--dist DIR] [--out DIR] [--cli STRATA]

The wheel (py3-none-any) holds strata/*.py, the JSON Schemas of the CLI's
outputs and the MCP tools (strata/schemas/*.json) and the built viewer under
strata/site/ (every file of dist/: index.html, JS, CSS, strata.wasm, and
strata-viewer.html, the viewer packed into one file). With --cli (tools/build
passes build/native/strata-portable), a second wheel beside it, the platform
wheel py3-none-manylinux_2_Y_x86_64: the same plus that native CLI as
strata/bin/strata (mode 755), which strata.analyze/diff/stats and
`python -m strata analyze|diff|stats|mcp` run; its tag is the one
manylinux_check.py finds for the binary (and it refuses one manylinux does
not allow). The viewer comes from
--dist (config setting "dist"), else $STRATA_DIST, else the repository's dist/
(../../dist from here). The version is strata/__init__.py's __version__.
A wheel is a zip: the files, and <name>-<version>.dist-info/ with METADATA,
WHEEL and RECORD (each file's sha256, urlsafe base64 without padding, and
size). Entries are sorted and dated 1980-01-01, so a rebuild is byte-identical.
"""
import base64
import hashlib
import os
import re
import sys
import zipfile

NAME = "strata"
HERE = os.path.dirname(os.path.abspath(__file__))
SUMMARY = "The strata trace viewer in Python notebooks and on the command line"


def version():
    with open(os.path.join(HERE, NAME, "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    if not m:
        raise RuntimeError("strata/__init__.py: no __version__")
    return m.group(1)


def find_site(dist=None):
    for d in (dist, os.environ.get("STRATA_DIST"), os.path.join(HERE, "..", "..", "dist")):
        if d and os.path.isfile(os.path.join(d, "index.html")):
            if not os.path.isfile(os.path.join(d, "strata-viewer.html")):
                raise RuntimeError(f"{d}/strata-viewer.html missing: run tools/build (with the native CLI)")
            return os.path.abspath(d)
    raise RuntimeError("the strata viewer is not built: run tools/build first (it writes dist/), "
                       "or set STRATA_DIST to a built dist/")


def _files(dist):
    """(archive name, path) of everything the package holds."""
    out = []
    pkg = os.path.join(HERE, NAME)
    for f in sorted(os.listdir(pkg)):
        if f.endswith(".py"):
            out.append((f"{NAME}/{f}", os.path.join(pkg, f)))
    schemas = os.path.join(pkg, "schemas")
    for f in sorted(os.listdir(schemas)) if os.path.isdir(schemas) else ():
        if f.endswith(".json"):
            out.append((f"{NAME}/schemas/{f}", os.path.join(schemas, f)))
    for root, dirs, files in os.walk(dist):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            out.append((f"{NAME}/site/" + os.path.relpath(p, dist).replace(os.sep, "/"), p))
    return out


def _metadata(ver):
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {ver}\nSummary: {SUMMARY}\n"
            "Requires-Python: >=3.8\n").encode()


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build(out_dir, dist=None, cli=None):
    """Writes the wheel into out_dir (with cli, the native CLI to bundle: the
    platform wheel); returns its file name."""
    ver = version()
    site = find_site(dist)
    info = f"{NAME}-{ver}.dist-info"
    platform = "any"
    if cli:
        from manylinux_check import tag  # beside this file
        try:
            platform = tag(cli)
        except (ValueError, OSError) as e:
            raise RuntimeError(f"the CLI cannot go into a manylinux wheel: {e}") from None
    wheel_tag = f"py3-none-{platform}"
    wheel_name = f"{NAME}-{ver}-{wheel_tag}.whl"
    entries = []
    for arc, path in _files(site):
        with open(path, "rb") as f:
            entries.append((arc, f.read()))
    if cli:
        with open(cli, "rb") as f:
            entries.append((f"{NAME}/bin/strata", f.read()))
    entries.append((f"{info}/METADATA", _metadata(ver)))
    purelib = "false" if cli else "true"
    entries.append((f"{info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: strata_build\nRoot-Is-Purelib: {purelib}\n"
                                      f"Tag: {wheel_tag}\n".encode()))
    record = "".join(f"{arc},{_digest(data)},{len(data)}\n" for arc, data in entries) + f"{info}/RECORD,,\n"
    entries.append((f"{info}/RECORD", record.encode()))
    os.makedirs(out_dir, exist_ok=True)
    tmp = os.path.join(out_dir, wheel_name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in entries:
            zi = zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0))
            zi.external_attr = (0o100755 if arc == f"{NAME}/bin/strata" else 0o100644) << 16  # regular file
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    os.replace(tmp, os.path.join(out_dir, wheel_name))
    # one wheel of each kind there (pure: *-any.whl; platform: *-manylinux_*.whl)
    for old in os.listdir(out_dir):
        if old != wheel_name and old.startswith(f"{NAME}-") and old.endswith(".whl") and \
                old.endswith("-any.whl") == (platform == "any"):
            os.unlink(os.path.join(out_dir, old))
    return wheel_name


# ---- PEP 517 hooks (pip install tools/python) ----------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return build(wheel_directory, (config_settings or {}).get("dist"))


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dist", help="the built viewer (default: $STRATA_DIST, else the repository's dist/)")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "build", "python"))
    ap.add_argument("--cli", help="also write the platform wheel, with this native CLI inside "
                                  "(build/native/strata-portable)")
    args = ap.parse_args(argv)
    try:
        names = [build(args.out, args.dist)]
        if args.cli:
            names.append(build(args.out, args.dist, args.cli))
    except RuntimeError as e:
        sys.exit(f"strata_build: {e}")
    print(" ".join(os.path.join(args.out, n) for n in names))


if __name__ == "__main__":
    main(sys.argv[1:])
