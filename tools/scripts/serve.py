#!/usr/bin/env python3
"""tools/scripts/serve.py: serve dist/ on 127.0.0.1 (never on other interfaces).

With --trace FILE the file is also served read-only at /trace/<name> and the
printed URL opens it through the page's ?url= parameter. Standard library
only. Used by tools/run."""
import argparse
import functools
import http.server
import os
import sys
import urllib.parse


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".gz": "application/octet-stream",  # the page inflates; no Content-Encoding
    }
    trace_path = None

    def translate_path(self, path):
        url_path = urllib.parse.urlsplit(path).path
        if self.trace_path and url_path == "/trace/" + urllib.parse.quote(os.path.basename(self.trace_path)):
            return self.trace_path
        return super().translate_path(path)

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, fmt, *args):
        if os.environ.get("STRATA_SERVE_LOG"):
            super().log_message(fmt, *args)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dist", required=True)
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--trace")
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.dist, "index.html")):
        sys.exit(f"serve: {args.dist}/index.html missing: run tools/build")
    Handler.trace_path = os.path.abspath(args.trace) if args.trace else None
    handler = functools.partial(Handler, directory=args.dist)
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler)
    except OSError as e:
        sys.exit(f"serve: cannot listen on 127.0.0.1:{args.port}: {e.strerror} (try --port N)")
    url = f"http://127.0.0.1:{args.port}/"
    if args.trace:
        url += "?url=" + urllib.parse.quote("trace/" + urllib.parse.quote(os.path.basename(args.trace)), safe="")
    print(f"strata: serving {args.dist} at {url}", flush=True)
    print("strata: open that URL in a browser; Ctrl+C stops", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
