#!/usr/bin/env python3
"""tools/serve.py [DIR] [--port N] [--site SITE]: serve the viewer and a folder
of traces on 127.0.0.1 as a static host (GitHub Pages, an object store) does,
with HTTP Range, so a trace opened by URL in streaming mode is read only where
the view needs it.

  tools/serve.py ~/profiles/run42 --port 8001
  # prints: serving SITE at http://127.0.0.1:8001/ and DIR at http://127.0.0.1:8001/data/TOKEN/
  # then open http://127.0.0.1:8001/?url=data/TOKEN/rank0.trace.json&stream=1
  # (a profile manifest: ?url=data/TOKEN/profile.json)

SITE (default dist/, built by tools/build) is served at /, DIR at /data/TOKEN/,
where TOKEN is drawn at random for each run: only a page given that address
can name the folder's files. Requests whose Host header is not this server's
(127.0.0.1, localhost or [::1] with its port) are refused with 403.
Standard library only (tools/python/strata/server.py). Ctrl+C stops it.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "python"))
from strata import server  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", nargs="?", help="a folder of traces, served at /data/")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--site", default=os.path.join(HERE, "..", "dist"))
    ap.add_argument("--no-range", action="store_true",
                    help="ignore Range (200 with the whole file), as some servers do: for tests")
    a = ap.parse_args()
    if a.no_range:
        server.Handler.send_head = server.http.server.SimpleHTTPRequestHandler.send_head
    mounts = {"/data/": os.path.abspath(a.dir)} if a.dir else None
    if a.dir and not os.path.isdir(a.dir):
        sys.exit(f"serve.py: {a.dir}: not a folder")
    try:
        s = server.start(os.path.abspath(a.site), port=a.port, mounts=mounts)
    except (OSError, FileNotFoundError) as e:
        sys.exit(f"serve.py: {e}")
    print(f"serving {os.path.abspath(a.site)} at {s.base_url}" + (f" and {a.dir} at {s.mount_urls['/data/']}" if a.dir else ""), flush=True)
    try:
        s.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        s.close()


if __name__ == "__main__":
    main()
