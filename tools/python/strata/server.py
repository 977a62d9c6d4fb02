"""strata.server: serve the viewer (the static site: index.html, JS, CSS,
wasm) on 127.0.0.1 only, never on other interfaces.

Only requests that name this server are answered: a Host header other than
127.0.0.1:PORT, localhost:PORT or [::1]:PORT (what a DNS-rebinding page's
requests carry) gets 403 with a one-line reason, and a line on stderr.
Traces given to it are served read-only at /trace/<token>/<name> (a second
file with the same name at /trace/<token>/<i>/<name>), where <token> is
drawn at random for each server (128 bits): a page that guessed the port
still cannot name a trace. Server.url is the page address that opens them
through the page's ?url= parameter (one ?url= per file: they are shown on
one timeline). Folders mounted under a prefix (tools/serve.py's /data/) are
served at <prefix><token>/ the same way. Files are served with HTTP Range (one range per request:
206 Partial Content), as static hosts do, so the page's streaming mode reads
only the byte ranges a window needs. Used by `python -m strata` (strata/__main__.py), by
strata.serve() in a notebook kernel, and by tools/run. Standard library only.
"""
import functools
import http.server
import os
import re
import secrets
import sys
import threading
import urllib.parse

__all__ = ["Handler", "Server", "start", "allowed_hosts"]


def allowed_hosts(port):
    """The Host header values that name a server on 127.0.0.1:port (lower
    case). A browser leaves the port out for 80, so bare names count there."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    hosts = {f"{n}:{port}" for n in names}
    if port == 80:
        hosts.update(names)
    return hosts


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".gz": "application/octet-stream",  # the page inflates; no Content-Encoding
    }

    def __init__(self, *args, traces=None, mounts=None, **kwargs):
        self.traces = traces or {}  # url path -> file path
        self.mounts = mounts or {}  # url prefix ("/data/<token>/") -> folder served under it
        super().__init__(*args, **kwargs)

    def parse_request(self):
        """The request line and headers, then the Host check: a request that
        does not name this server is answered 403 here, before any method
        (GET, HEAD or another) looks at its path."""
        if not super().parse_request():
            return False
        host = (self.headers.get("Host") or "").strip().lower()
        if host in allowed_hosts(self.server.server_address[1]):
            return True
        shown = host.encode("ascii", "backslashreplace").decode("ascii")[:200] if host else "(none)"
        reason = (f"strata: refused: Host {shown} is not this server "
                  f"(127.0.0.1, localhost or [::1] with port {self.server.server_address[1]})")
        sys.stderr.write(f"{reason}: {self.command} {self.path[:200]!r} from {self.client_address[0]}\n")
        sys.stderr.flush()
        body = (reason + "\n").encode("utf-8")
        self.send_response(403)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.close_connection = True
        super().end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        return False

    def translate_path(self, path):
        url_path = urllib.parse.unquote(urllib.parse.urlsplit(path).path)
        if url_path in self.traces:
            return self.traces[url_path]
        for prefix, folder in self.mounts.items():
            if url_path.startswith(prefix):
                parts = [p for p in url_path[len(prefix):].split("/") if p and p not in (".", "..")]
                return os.path.join(folder, *parts)
        return super().translate_path(path)

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Accept-Ranges", "bytes")
        super().end_headers()

    def copyfile(self, source, outputfile):
        try:
            super().copyfile(source, outputfile)
        except (ConnectionResetError, BrokenPipeError):
            pass  # the client stopped reading (a Range client drops a 200 at once)

    _RANGE = re.compile(r"bytes=(\d*)-(\d*)$")

    def send_head(self):
        """A single byte range ("Range: bytes=a-b", "a-", "-n") of a file:
        206 with Content-Range; unsatisfiable: 416; several ranges, or none:
        the whole file (200), as HTTP allows."""
        m = self._RANGE.match(self.headers.get("Range", "").strip())
        path = self.translate_path(self.path)
        if not m or not os.path.isfile(path) or (not m.group(1) and not m.group(2)):
            return super().send_head()
        try:
            f = open(path, "rb")
        except OSError:
            return super().send_head()
        size = os.fstat(f.fileno()).st_size
        if m.group(1):
            start = int(m.group(1))
            end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
        else:  # the last n bytes
            start, end = max(0, size - int(m.group(2))), size - 1
        if start >= size or end < start:
            f.close()
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        f.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        return _Limited(f, end - start + 1)

    def log_message(self, fmt, *args):
        if os.environ.get("STRATA_SERVE_LOG"):
            super().log_message(fmt, *args)


class _Limited:
    """The first n bytes of a file object (copyfile reads to EOF)."""

    def __init__(self, f, n):
        self.f, self.left = f, n

    def read(self, size=-1):
        if self.left <= 0:
            return b""
        size = self.left if size is None or size < 0 else min(size, self.left)
        data = self.f.read(size)
        self.left -= len(data)
        return data

    def close(self):
        self.f.close()


class Server:
    """A running server: .url (the page, opening the traces given), .base_url
    (the page alone), .token (this run's secret path part), .mount_urls
    ({prefix: its URL with the token}), .close()."""

    def __init__(self, httpd, trace_urls, token, mounts):
        self.httpd = httpd
        self.port = httpd.server_address[1]
        self.token = token
        self.base_url = f"http://127.0.0.1:{self.port}/"
        self.mount_urls = {prefix: self.base_url + prefix.lstrip("/") + token + "/" for prefix in mounts or {}}
        self.url = self.base_url
        if trace_urls:
            self.url += "?" + "&".join("url=" + urllib.parse.quote(u.lstrip("/"), safe="") for u in trace_urls)
        self.thread = None

    def serve_forever(self):
        self.httpd.serve_forever()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def start(site, paths=(), port=8000, background=False, mounts=None):
    """Listen on 127.0.0.1:port (0: any free port) serving the site folder and
    the trace files at paths (and each folder of mounts, {"/data/": dir},
    under its prefix and this run's token). OSError when the port is taken.
    With background, the server runs in a daemon thread and start() returns
    at once."""
    if not os.path.isfile(os.path.join(site, "index.html")):
        raise FileNotFoundError(f"{site}/index.html missing: run tools/build")
    token = secrets.token_urlsafe(16)
    traces, trace_urls = {}, []
    for i, p in enumerate(paths):
        name = urllib.parse.quote(os.path.basename(p))
        u = f"/trace/{token}/{name}"
        if u in traces:
            u = f"/trace/{token}/{i}/{name}"
        traces[u] = os.path.abspath(p)
        trace_urls.append(u)
    tokened = {prefix + token + "/": folder for prefix, folder in (mounts or {}).items()}
    handler = functools.partial(Handler, directory=site, traces=traces, mounts=tokened)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    httpd.daemon_threads = True
    server = Server(httpd, trace_urls, token, mounts)
    if background:
        server.thread = threading.Thread(target=httpd.serve_forever, name="strata-server", daemon=True)
        server.thread.start()
    return server
