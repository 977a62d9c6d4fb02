"""strata_notebook: show a trace in a Jupyter notebook with the strata viewer.

    import sys; sys.path.insert(0, "/path/to/strata/tools")
    import strata_notebook
    strata_notebook.show("trace.json.gz")                       # viewer from the local dist/
    strata_notebook.show(data, base_url="https://you.github.io/strata/")  # a hosted copy
    strata_notebook.show(["rank-0.json.gz", "rank-1.json.gz"])  # several files, one timeline

The output cell holds an <iframe> with the viewer (?embed=1) and a little
script that hands it the trace by postMessage ({strata: {buffer, name}},
after the viewer says it is ready or answers 'PING' with 'PONG'). The trace
never leaves the machine: its bytes are in the output cell (base64, gzip'd
unless compressed already, so the notebook grows by about that much) and go
from the notebook page to the frame in the browser.

Where the viewer comes from:
  base_url=URL   a hosted copy (e.g. your GitHub Pages copy); the trace is
                 posted to that origin only.
  otherwise      the local build: dist/strata-viewer.html (dist/ from dist=,
                 $STRATA_DIST, or the repository this file lives in), the
                 viewer packed into ONE file by tools/build (`strata export
                 --viewer-only`, core/report: the builder of the page's
                 "Save HTML"), is copied next to the notebook (the
                 kernel's working directory, or viewer_dir=) and served by
                 the notebook server's /files/ route. The rule: that folder
                 must be inside the Jupyter root, which it is when the kernel
                 runs in the notebook's folder (Jupyter's default).
                 Why one file and not a copy of dist/: /files/ answers with
                 `Content-Security-Policy: sandbox allow-scripts`, so the
                 page runs in an opaque origin where module scripts and the
                 .wasm fetch (both CORS requests) fail; a self-contained file
                 needs no further request.

Standard library and IPython only. This file builds no HTML page itself:
the packed viewer comes from the build (core/report/report.h has its layout).
"""
import base64
import gzip
import html
import json
import os
import re
import uuid

__all__ = ["show", "viewer_html", "find_dist"]

_HERE = os.path.dirname(os.path.abspath(__file__))


def find_dist(dist=None):
    """dist=, else $STRATA_DIST, else <repo>/dist next to this file's tools/."""
    for d in (dist, os.environ.get("STRATA_DIST"), os.path.join(_HERE, "..", "..", "dist")):
        if d and os.path.isfile(os.path.join(d, "index.html")):
            return os.path.abspath(d)
    raise FileNotFoundError(
        "strata viewer not found: build it (tools/build), pass dist=DIR or set STRATA_DIST, "
        "or use base_url= with a hosted copy")


def viewer_html(dist=None):
    """The viewer as one self-contained HTML file (no trace inside), as text:
    dist/strata-viewer.html, which tools/build writes."""
    path = os.path.join(find_dist(dist), "strata-viewer.html")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise FileNotFoundError(
            f"{path} missing: run tools/build (its native CLI packs the viewer; --wasm-only "
            f"alone does not), or `build/native/strata export --viewer-only -o {path}`; or use "
            "base_url= with a hosted copy") from None


def _write_viewer(dist, viewer_dir):
    text = viewer_html(dist)
    path = os.path.join(viewer_dir, "strata-viewer.html")
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return path
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def _packed(trace):
    if isinstance(trace, (bytes, bytearray, memoryview)):
        data, name = bytes(trace), "trace"
    else:
        path = os.fspath(trace)
        with open(path, "rb") as f:
            data = f.read()
        name = os.path.basename(path)
    compressed = data[:2] == b"\x1f\x8b" or (len(data) > 1 and data[0] == 0x78 and (data[0] << 8 | data[1]) % 31 == 0)
    if not compressed:
        data = gzip.compress(data, 6)
    return base64.b64encode(data).decode("ascii"), name


def _js(value):
    return json.dumps(value).replace("</", "<\\/").replace("<!--", "<\\!--")


def show(trace, base_url=None, height=600, name=None, dist=None, viewer_dir=None, display=True):
    """Show TRACE (a path or bytes, or a list of them: several files merged on
    one timeline, each under its own group) in the strata viewer inside the
    output cell.

    base_url: a hosted copy of strata (e.g. "https://you.github.io/strata/");
    without it dist/strata-viewer.html (the viewer in one file, from
    tools/build) is copied next to the notebook (see the module doc). display=False returns the IPython HTML
    object instead of displaying it."""
    from IPython.display import HTML, display as ipy_display

    many = isinstance(trace, (list, tuple))
    packed = [_packed(t) for t in (trace if many else [trace])]
    if not packed:
        raise ValueError("strata_notebook.show: no trace given")
    b64s = [p[0] for p in packed]
    names = [p[1] for p in packed]
    if name and not many:
        names = [name]
    name = name or ", ".join(names)
    fid = "strata-" + uuid.uuid4().hex[:12]
    if base_url:
        src = base_url.rstrip("/") + "/?embed=1"
        m = re.match(r"^(https?://[^/]+)", src)
        target = m.group(1) if m else "*"
        viewer_file = None
    else:
        viewer_file = os.path.basename(_write_viewer(dist, viewer_dir or os.getcwd()))
        src, target = None, "*"  # /files/ pages run in an opaque origin ("null")
    out = f"""<div class="strata-view">
<iframe id="{fid}" {'src="' + html.escape(src) + '" ' if src else ''}title="strata: {html.escape(name)}"
  style="width:100%;height:{int(height)}px;border:1px solid #d0d3da;border-radius:4px" allow="fullscreen"></iframe>
<script>
(function () {{
  var f = document.getElementById({_js(fid)});
  var b64s = {_js(b64s)}, names = {_js(names)}, many = {_js(many)}, target = {_js(target)}, viewerFile = {_js(viewer_file)};
  if (!f) return;
  if (viewerFile) {{
    // The notebook's folder under the server's /files/ route: the page is
    // /notebooks/<dir>/<nb>.ipynb (classic, Notebook 7) or /lab/tree/<dir>/<nb>.ipynb (Lab).
    var p = location.pathname, m = /^(.*?)\\/(notebooks|lab\\/tree|doc\\/tree|tree)\\/(.*)$/.exec(p);
    var dir = m ? m[1] + "/files/" + m[3].replace(/[^\\/]*$/, "") : "";
    f.src = dir + encodeURIComponent(viewerFile) + "?embed=1";
  }}
  var sent = false;
  function send() {{
    if (sent) return;
    sent = true;
    var bufs = b64s.map(function (b64) {{
      var bin = atob(b64), u8 = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
      return u8.buffer;
    }});
    var msg = many ? {{ strata: {{ buffers: bufs.map(function (b, i) {{ return {{ buffer: b, name: names[i] }}; }}) }} }}
                   : {{ strata: {{ buffer: bufs[0], name: names[0] }} }};
    f.contentWindow.postMessage(msg, target, bufs);
  }}
  window.addEventListener("message", function (e) {{
    if (e.source !== f.contentWindow) return;
    var d = e.data;
    if (d === "PONG" || (d && d.strata && d.strata.event === "ready")) send();
    if (d && d.strata && d.strata.event === "loaded") f.setAttribute("data-strata-loaded", JSON.stringify(d.strata.stats));
    if (d && d.strata && d.strata.event === "error") f.setAttribute("data-strata-error", String(d.strata.message));
  }});
  var tries = 0, timer = setInterval(function () {{
    if (sent || ++tries > 600) return clearInterval(timer);
    try {{ f.contentWindow.postMessage("PING", target); }} catch (err) {{}}
  }}, 100);
}})();
</script>
</div>"""
    obj = HTML(out)
    if not display:
        return obj
    ipy_display(obj)  # returns None: a last-line show() is not shown twice
    return None
