"""strata.server: serve the viewer (the static site: index.html, JS, CSS,
wasm) on 127.0.0.1 only, never on other interfaces.

Traces given to it are served read-only at /trace/<name> (a second file with
the same name at /trace/<i>/<name>), and url() is the page address that opens
them through the page's ?url= parameter (one ?url= per file: they are shown
on one timeline). Used by `python -m strata` (strata/__main__.py), by
strata.serve() in a notebook kernel, and by tools/run. Standard library only.
"""
import functools
import http.server
import os
import threading
import urllib.parse

__all__ = ["Handler", "Server", "start"]


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".gz": "application/octet-stream",  # the page inflates; no Content-Encoding
    }

    def __init__(self, *args, traces=None, **kwargs):
        self.traces = traces or {}  # url path -> file path
        super().__init__(*args, **kwargs)

    def translate_path(self, path):
        url_path = urllib.parse.urlsplit(path).path
        if url_path in self.traces:
            return self.traces[url_path]
        return super().translate_path(path)

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, fmt, *args):
        if os.environ.get("STRATA_SERVE_LOG"):
            super().log_message(fmt, *args)


class Server:
    """A running server: .url (the page, opening the traces given), .base_url
    (the page alone), .close()."""

    def __init__(self, httpd, trace_urls):
        self.httpd = httpd
        self.port = httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/"
        self.url = self.base_url
        if trace_urls:
            self.url += "?" + "&".join("url=" + urllib.parse.quote(u.lstrip("/"), safe="") for u in trace_urls)
        self.thread = None

    def serve_forever(self):
        self.httpd.serve_forever()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def start(site, paths=(), port=8000, background=False):
    """Listen on 127.0.0.1:port (0: any free port) serving the site folder and
    the trace files at paths. OSError when the port is taken. With background,
    the server runs in a daemon thread and start() returns at once."""
    if not os.path.isfile(os.path.join(site, "index.html")):
        raise FileNotFoundError(f"{site}/index.html missing: run tools/build")
    traces, trace_urls = {}, []
    for i, p in enumerate(paths):
        name = urllib.parse.quote(os.path.basename(p))
        u = f"/trace/{name}"
        if u in traces:
            u = f"/trace/{i}/{name}"
        traces[u] = os.path.abspath(p)
        trace_urls.append(u)
    handler = functools.partial(Handler, directory=site, traces=traces)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    httpd.daemon_threads = True
    server = Server(httpd, trace_urls)
    if background:
        server.thread = threading.Thread(target=httpd.serve_forever, name="strata-server", daemon=True)
        server.thread.start()
    return server
