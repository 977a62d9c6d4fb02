"""strata.native: the native CLI (`strata analyze --json`) from Python.

The CLI is $STRATA_CLI when set, else `strata` on PATH (tools/build writes it
to build/native/strata). Traces that are not files (bytes, a torch profile)
are written to a temporary folder for it. Standard library only.
"""
import json
import os
import shutil
import subprocess
import tempfile

from .sources import resolve

__all__ = ["find_cli", "analyze"]


def find_cli():
    """The native strata CLI's path, or FileNotFoundError saying how to get one."""
    cli = os.environ.get("STRATA_CLI")
    if cli:
        if os.path.isfile(cli) and os.access(cli, os.X_OK):
            return cli
        raise FileNotFoundError(f"STRATA_CLI={cli}: not an executable file")
    cli = shutil.which("strata")
    if cli:
        return cli
    raise FileNotFoundError(
        "strata.analyze needs the native strata CLI: build it (tools/build writes build/native/strata) "
        "and put it on PATH, or set STRATA_CLI=/path/to/strata")


def analyze(files, args=(), run=None, timeout=None):
    """`strata analyze --json` of files (anything strata.show() takes) and args
    (e.g. ["--step-name", "ProfilerStep"]), as parsed JSON (README: "Answers")."""
    cli = find_cli()
    traces = resolve(files, run=run)
    with tempfile.TemporaryDirectory(prefix="strata-analyze-") as tmp:
        paths = []
        for i, t in enumerate(traces):
            if t.path is None:
                p = os.path.join(tmp, f"{i}-{os.path.basename(t.name) or 'trace'}")
                with open(p, "wb") as f:
                    f.write(t.data)
                paths.append(p)
            else:
                paths.append(t.path)
        r = subprocess.run([cli, "analyze", "--json", *args, *paths], capture_output=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"strata analyze failed (exit {r.returncode}): "
                           f"{r.stderr.decode('utf-8', 'replace').strip()}")
    return json.loads(r.stdout)
