"""manylinux_check: the manylinux tag an x86_64 Linux executable qualifies for,
by auditwheel's rules (auditwheel itself is not installable here: no package
index), read with binutils' readelf.

    python3 tools/python/manylinux_check.py BINARY     # prints the tag, or exits 1 saying why

The rules (PEP 600, auditwheel's policy for manylinux_2_x): the binary may
need (DT_NEEDED) only libraries of the allowed list below, which every
manylinux distribution has (a trace tool needs libc and libm; zlib is not
on the list, so the wheel's CLI links it in: CMakeLists.txt strata-portable);
its glibc symbol versions (GLIBC_x.y, readelf -V) set the tag: manylinux_2_y
for the highest, i.e. it runs on any distribution with glibc >= 2.y. Other
versioned needs (GLIBCXX_, CXXABI_, GCC_) are refused (the CLI is C: it has
none). Used by strata_build.py for the platform wheel's tag and by
tests/browser/pywheel.test.mjs.
"""
import re
import subprocess
import sys

# auditwheel's policy.json, manylinux_2_x (x86_64), "lib_whitelist"
ALLOWED = frozenset((
    "libgcc_s.so.1", "libstdc++.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libc.so.6",
    "libnsl.so.1", "libutil.so.1", "libpthread.so.0", "libresolv.so.2", "libX11.so.6",
    "libXext.so.6", "libXrender.so.1", "libICE.so.6", "libSM.so.6", "libGL.so.1",
    "libgobject-2.0.so.0", "libgthread-2.0.so.0", "libglib-2.0.so.0",
))
# the dynamic loader (PT_INTERP) is not a DT_NEEDED entry of an executable, but may be one
LOADER = "ld-linux-x86-64.so.2"


def _readelf(args, binary):
    r = subprocess.run(["readelf", "-W", *args, binary], capture_output=True, text=True)
    if r.returncode != 0:
        raise ValueError(f"{binary}: readelf {' '.join(args)} failed: {r.stderr.strip()}")
    return r.stdout


def inspect(binary):
    """{"machine", "needed": [...], "glibc": (2, y) or None, "other_versions": [...]}"""
    header = _readelf(["-h"], binary)
    m = re.search(r"Machine:\s+(.+)", header)
    machine = m.group(1).strip() if m else "?"
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", _readelf(["-d"], binary))
    versions = _readelf(["-V"], binary)
    # the version needs section (.gnu.version_r): "Name: GLIBC_2.34  Flags: ..."
    need_part = versions.split(".gnu.version_r", 1)[1] if ".gnu.version_r" in versions else ""
    names = set(re.findall(r"Name:\s+(\S+)\s+Flags", need_part))
    glibc = [tuple(int(x) for x in n[6:].split(".")) for n in names if re.fullmatch(r"GLIBC_\d+(\.\d+)+", n)]
    other = sorted(n for n in names if not n.startswith("GLIBC_"))
    return {"machine": machine, "needed": needed, "glibc": max(glibc) if glibc else None,
            "other_versions": other}


def tag(binary):
    """The manylinux tag of binary (manylinux_2_y_x86_64); ValueError saying why not."""
    info = inspect(binary)
    if "X86-64" not in info["machine"]:
        raise ValueError(f"{binary}: machine {info['machine']!r}, not x86_64")
    bad = [n for n in info["needed"] if n not in ALLOWED and n != LOADER]
    if bad:
        raise ValueError(f"{binary}: needs {', '.join(bad)}: not a library manylinux allows "
                         f"(allowed: {', '.join(sorted(ALLOWED))})")
    if info["other_versions"]:
        raise ValueError(f"{binary}: needs symbol versions {', '.join(info['other_versions'])} "
                         "(only GLIBC_ ones are checked)")
    major, minor = (info["glibc"] or (2, 5))[:2]
    if major != 2:
        raise ValueError(f"{binary}: glibc {major}.{minor}?")
    return f"manylinux_2_{max(minor, 5)}_x86_64"


def main(argv):
    if len(argv) != 1:
        sys.exit("usage: manylinux_check.py BINARY")
    try:
        print(tag(argv[0]))
    except ValueError as e:
        sys.exit(f"manylinux_check: {e}")


if __name__ == "__main__":
    main(sys.argv[1:])
