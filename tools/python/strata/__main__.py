"""python -m strata FILE... [--port N] [--no-browser]: serve the bundled
viewer on 127.0.0.1 and open FILE... in it (a file, several files, a folder or
a TensorBoard/JAX logdir, as strata.show() takes them). Prints the URL and
opens it in the default browser unless --no-browser. Ctrl+C stops.

    python -m strata view FILE... [--hash '#t=START_US,END_US&sel=ROW:INDEX'] [...]
        the same, the page opening at that view state (a finding's link)
    python -m strata analyze|diff|stats|search|... ARGS
        the native CLI (the one inside the platform wheel; strata.native)
    python -m strata mcp
        the Model Context Protocol server on stdin/stdout (strata.mcp)"""
import argparse
import sys
import webbrowser

from . import find_dist
from .server import start
from .sources import resolve


# `python -m strata COMMAND ...` run by the native CLI as they are
NATIVE_COMMANDS = ("analyze", "diff", "stats", "search", "window", "flame", "args", "export",
                   "manifest", "index", "bench")


def _native(argv):
    import subprocess

    from .native import find_cli

    try:
        cli = find_cli()
    except FileNotFoundError as e:
        sys.exit(f"strata: {e}")
    return subprocess.run([cli, *argv]).returncode


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in NATIVE_COMMANDS:
        return _native(argv)
    if argv and argv[0] == "mcp":
        from .mcp import main as mcp_main

        return mcp_main(argv[1:])
    if argv and argv[0] == "view":  # the page, in the browser (the native window is not in the wheel)
        argv = argv[1:]
    ap = argparse.ArgumentParser(prog="python -m strata", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", metavar="FILE", help="trace files, folders or logdirs (none: the demo)")
    ap.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000; 0: any free port)")
    ap.add_argument("--run", help="the profile run of a logdir (default: its latest)")
    ap.add_argument("--no-browser", action="store_true", help="print the URL only")
    ap.add_argument("--dist", help="serve this built site instead of the bundled one")
    ap.add_argument("--hash", default="", help="the view state to open at (a link's #t=...&sel=...)")
    args = ap.parse_args(argv)
    try:
        site = find_dist(args.dist)
        traces = resolve(args.files, run=args.run) if args.files else []
    except (OSError, ValueError, TypeError) as e:
        sys.exit(f"strata: {e}")
    try:
        server = start(site, [t.path for t in traces], port=args.port)
    except OSError as e:
        sys.exit(f"strata: cannot listen on 127.0.0.1:{args.port}: {e.strerror or e} (try --port N)")
    url = server.url + ("#" + args.hash.lstrip("#") if args.hash.lstrip("#") else "")
    print(f"strata: serving {site} at {url}", flush=True)
    print("strata: open that URL in a browser; Ctrl+C stops", flush=True)
    if not args.no_browser:
        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
