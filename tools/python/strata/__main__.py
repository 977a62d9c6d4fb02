"""python -m strata FILE... [--port N] [--no-browser]: serve the bundled
viewer on 127.0.0.1 and open FILE... in it (a file, several files, a folder or
a TensorBoard/JAX logdir, as strata.show() takes them). Prints the URL and
opens it in the default browser unless --no-browser. Ctrl+C stops."""
import argparse
import sys
import webbrowser

from . import find_dist
from .server import start
from .sources import resolve


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m strata", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", metavar="FILE", help="trace files, folders or logdirs (none: the demo)")
    ap.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000; 0: any free port)")
    ap.add_argument("--run", help="the profile run of a logdir (default: its latest)")
    ap.add_argument("--no-browser", action="store_true", help="print the URL only")
    ap.add_argument("--dist", help="serve this built site instead of the bundled one")
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
    print(f"strata: serving {site} at {server.url}", flush=True)
    print("strata: open that URL in a browser; Ctrl+C stops", flush=True)
    if not args.no_browser:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
