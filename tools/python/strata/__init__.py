"""strata: the strata trace viewer for Python notebooks and the command line.

    pip install strata-*.whl          # tools/build writes it to build/python/
    import strata
    strata.show("trace.json.gz")                 # a file, bytes, several files, a folder
    strata.show("/tmp/tensorboard")              # a JAX/TensorBoard logdir: its latest run
    strata.show(prof)                            # a torch.profiler.profile
    strata.compare("base.json.gz", "new.json.gz")  # two runs, side by side
    strata.analyze(["rank-0.json.gz"])           # `strata analyze --json` (native CLI)
    strata.diff("base.json.gz", "new.json.gz")   # `strata diff A B --json`, with verdicts
    strata.stats("trace.json.gz")                # `strata stats --json`
    python -m strata FILE... [--port N] [--no-browser]
    python -m strata analyze|diff|stats|search ... (the native CLI), view FILE..., mcp

The viewer (the static site and its one-file form strata-viewer.html) is inside
the package (strata/site/). Standard library only; IPython when a cell is shown.
Modules: sources (what can be shown), notebook (the output cell), server (the
127.0.0.1 server), native (the CLI: inside the platform wheel), mcp (the
Model Context Protocol server), __main__ (python -m strata).
"""
import os

from .native import analyze, diff, stats
from .notebook import compare, show

__version__ = "0.1.0"
__all__ = ["show", "compare", "analyze", "diff", "stats", "serve", "served_url", "find_dist", "viewer_html", "__version__"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_served = None  # the strata.serve() server of this process


def find_dist(dist=None):
    """The viewer's site folder: dist=, else $STRATA_DIST, else the one inside the
    package (strata/site), else the repository's dist/ (running from the source tree)."""
    for d in (dist, os.environ.get("STRATA_DIST"), os.path.join(_HERE, "site"),
              os.path.join(_HERE, "..", "..", "..", "dist")):
        if d and os.path.isfile(os.path.join(d, "index.html")):
            return os.path.abspath(d)
    from .native import _in_clone

    raise FileNotFoundError(
        ("strata viewer not found: install the package built by tools/build, " if _in_clone() else
         "strata viewer not found in this package (strata/site/): reinstall the strata wheel, ") +
        "pass dist=DIR or set STRATA_DIST, or use base_url= with a served copy")


def viewer_html(dist=None):
    """The viewer as one self-contained HTML file (no trace inside), as text."""
    path = os.path.join(find_dist(dist), "strata-viewer.html")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        from .native import _in_clone

        if not _in_clone():
            raise FileNotFoundError(f"{path} missing: reinstall the strata wheel, or use base_url= "
                                    "with a served copy") from None
        raise FileNotFoundError(
            f"{path} missing: run tools/build (its native CLI packs the viewer; --wasm-only "
            f"alone does not), or `build/native/strata export --viewer-only -o {path}`; or use "
            "base_url= with a served copy") from None


def serve(port=0, dist=None):
    """Serve the viewer from this process (a daemon thread, 127.0.0.1:port, 0: any
    free port) and make later show()/compare() cells point at it. Returns its URL.
    For a browser on the machine the kernel runs on."""
    global _served
    from .server import start

    if _served is None:
        _served = start(find_dist(dist), port=port, background=True)
    return _served.base_url


def served_url():
    """Where show() finds a served viewer: strata.serve()'s, else $STRATA_URL, else None."""
    if _served is not None:
        return _served.base_url
    return os.environ.get("STRATA_URL") or None
