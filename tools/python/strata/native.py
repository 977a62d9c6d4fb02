"""strata.native: the native CLI (`strata analyze|diff|stats ... --json`) from Python.

The CLI is $STRATA_CLI when set, else the one inside the package (the
platform wheel's strata/bin/strata), else `strata` on PATH (a clone's
tools/build writes build/native/strata). Traces that are not files (bytes, a
torch profile) are written to a temporary folder for it. Every JSON answer
carries "schema" ("strata.analyze/1", ...: strata/schemas/). Standard library only.
"""
import json
import os
import shutil
import subprocess
import tempfile

from .sources import resolve

__all__ = ["find_cli", "run_json", "analyze", "diff", "stats", "search"]

_HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLED = os.path.join(_HERE, "bin", "strata")


def _in_clone():
    """True when this package runs from a strata checkout (tools/python/strata)."""
    return os.path.isfile(os.path.join(_HERE, "..", "..", "..", "tools", "build"))


def find_cli():
    """The native strata CLI's path, or FileNotFoundError saying how to get one."""
    cli = os.environ.get("STRATA_CLI")
    if cli:
        if os.path.isfile(cli) and os.access(cli, os.X_OK):
            return cli
        raise FileNotFoundError(f"STRATA_CLI={cli}: not an executable file")
    if os.path.isfile(BUNDLED) and os.access(BUNDLED, os.X_OK):
        return BUNDLED
    cli = shutil.which("strata")
    if cli:
        return cli
    if _in_clone():
        raise FileNotFoundError(
            "this needs the native strata CLI: build it (tools/build writes build/native/strata) "
            "and put it on PATH, or set STRATA_CLI=/path/to/strata")
    raise FileNotFoundError(
        "this needs the native strata CLI, which this strata package does not hold (it is the "
        "py3-none-any wheel): install the platform wheel (strata-*-manylinux_*_x86_64.whl), "
        "or set STRATA_CLI=/path/to/strata, or put a `strata` executable on PATH")


def _paths(files, run, tmp):
    paths = []
    for i, t in enumerate(resolve(files, run=run)):
        if t.path is None:
            p = os.path.join(tmp, f"{i}-{os.path.basename(t.name) or 'trace'}")
            with open(p, "wb") as f:
                f.write(t.data)
            paths.append(p)
        else:
            paths.append(t.path)
    return paths


def run_json(command, args, timeout=None, ok=(0,)):
    """`strata COMMAND *args` (--json among args) -> parsed JSON; RuntimeError
    with the CLI's message on a non-zero exit (other than ok)."""
    cli = find_cli()
    r = subprocess.run([cli, command, *args], capture_output=True, timeout=timeout,
                       stdin=subprocess.DEVNULL)
    if r.returncode not in ok:
        raise RuntimeError(f"strata {command} failed (exit {r.returncode}): "
                           f"{r.stderr.decode('utf-8', 'replace').strip()}")
    return json.loads(r.stdout)


def _with_paths(command, groups, args, run, timeout):
    with tempfile.TemporaryDirectory(prefix=f"strata-{command}-") as tmp:
        paths = [p for g in groups for p in _paths(g, run, tmp)]
        return run_json(command, ["--json", *args, *paths], timeout)


def analyze(files, args=(), run=None, timeout=None):
    """`strata analyze --json` of files (anything strata.show() takes) and args
    (e.g. ["--step-name", "ProfilerStep"]), as parsed JSON (web/guide/figures.md)."""
    return _with_paths("analyze", [files], args, run, timeout)


def stats(files, args=(), run=None, timeout=None):
    """`strata stats --json` of files (one file: its statistics; several: the
    totals and "traces", one object per file), as parsed JSON."""
    return _with_paths("stats", [files], args, run, timeout)


def diff(a, b, args=(), run=None, timeout=None):
    """`strata diff A B --json`: what changed from run a (the baseline) to run b,
    one trace each, with each row's verdict (regression, improvement), as parsed JSON."""
    with tempfile.TemporaryDirectory(prefix="strata-diff-") as tmp:
        pair = []
        for label, x in (("a", a), ("b", b)):
            p = _paths(x, run, tmp)
            if len(p) != 1:
                raise ValueError(f"strata.diff: {label} is {len(p)} files; a run to compare is one trace")
            pair.append(p[0])
        return run_json("diff", [*pair, "--json", *args], timeout, ok=(0, 3))


def search(file, text, args=(), timeout=None):
    """`strata search FILE TEXT --json`: the match count and the first matches."""
    with tempfile.TemporaryDirectory(prefix="strata-search-") as tmp:
        p = _paths(file, None, tmp)
        if len(p) != 1:
            raise ValueError(f"strata.search: {len(p)} files; search takes one trace")
        return run_json("search", [p[0], text, "--json", *args], timeout)
