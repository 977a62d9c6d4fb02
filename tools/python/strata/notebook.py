"""strata.notebook: the viewer in a notebook output cell (show, compare).

The cell holds an <iframe> with the viewer (?embed=1) and a little script
that hands it the traces by postMessage ({strata: {buffers: [{buffer, name}],
compare?}}, after the viewer says it is ready or answers 'PING' with
'PONG'; web/embed.js). The trace never leaves the machine: its bytes are in
the output cell (base64, gzip'd unless compressed already, so the notebook
grows by about that much) and go from the notebook page to the frame inside
the browser.

Where the frame's viewer comes from (never embedded in the cell):
  served     base_url=, else the server strata.serve() started in this kernel,
             else $STRATA_URL (e.g. a `python -m strata --no-browser` left
             running): the frame points at that address; the traces are
             posted to that origin only.
  otherwise  the packed one-file viewer (strata-viewer.html, inside the
             package) is copied next to the notebook (the kernel's working
             directory, or viewer_dir=) once, and the notebook server's
             /files/ route serves it. That folder must be inside the Jupyter
             root, which it is when the kernel runs in the notebook's folder
             (Jupyter's default). Why one file and not the site: /files/
             answers with `Content-Security-Policy: sandbox allow-scripts`,
             so the page runs in an opaque origin where module scripts and the
             .wasm fetch (both CORS requests) fail; a self-contained file
             needs no further request.
IPython is imported only when a cell is displayed.
"""
import base64
import gzip
import html
import json
import os
import re
import uuid

from .sources import resolve

__all__ = ["show", "compare", "render"]


def _packed(trace):
    data = trace.read()
    compressed = data[:2] == b"\x1f\x8b" or (len(data) > 1 and data[0] == 0x78 and (data[0] << 8 | data[1]) % 31 == 0)
    if not compressed:
        data = gzip.compress(data, 6)
    return base64.b64encode(data).decode("ascii")


def _js(value):
    return json.dumps(value).replace("</", "<\\/").replace("<!--", "<\\!--")


def _write_viewer(text, viewer_dir):
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


def render(traces, base_url=None, height=600, title=None, compare=None, viewer_text=None, viewer_dir=None):
    """The cell's HTML for traces (strata.sources.Trace list). base_url: the
    served viewer; else viewer_text (the packed viewer) is written to viewer_dir."""
    b64s = [_packed(t) for t in traces]
    names = [t.name for t in traces]
    title = title or ", ".join(names)
    fid = "strata-" + uuid.uuid4().hex[:12]
    if base_url:
        src = base_url.split("#")[0].split("?")[0].rstrip("/") + "/?embed=1"
        m = re.match(r"^(https?://[^/]+)", src)
        target = m.group(1) if m else "*"
        viewer_file = None
    else:
        viewer_file = os.path.basename(_write_viewer(viewer_text, viewer_dir or os.getcwd()))
        src, target = None, "*"  # /files/ pages run in an opaque origin ("null")
    return f"""<div class="strata-view">
<iframe id="{fid}" {'src="' + html.escape(src) + '" ' if src else ''}title="strata: {html.escape(title)}"
  style="width:100%;height:{int(height)}px;border:1px solid #d0d3da;border-radius:4px" allow="fullscreen"></iframe>
<script>
(function () {{
  var f = document.getElementById({_js(fid)});
  var b64s = {_js(b64s)}, names = {_js(names)}, target = {_js(target)}, viewerFile = {_js(viewer_file)}, cmp = {_js(compare)};
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
    var msg = bufs.length === 1 ? {{ strata: {{ buffer: bufs[0], name: names[0] }} }}
      : {{ strata: {{ buffers: bufs.map(function (b, i) {{ return {{ buffer: b, name: names[i] }}; }}) }} }};
    if (cmp) msg.strata.compare = cmp;
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


def _display(out, display):
    try:
        from IPython.display import HTML, display as ipy_display
    except ImportError:
        raise ImportError("strata.show/compare draw into a notebook cell and need IPython (a Jupyter kernel); "
                          "outside notebooks run `python -m strata FILE...`") from None

    obj = HTML(out)
    if not display:
        return obj
    ipy_display(obj)  # returns None: a last-line show() is not shown twice
    return None


def _viewer(base_url, dist):
    from . import served_url, viewer_html

    base_url = base_url or served_url()
    return base_url, (None if base_url else viewer_html(dist))


def show(x, base_url=None, height=600, name=None, run=None, dist=None, viewer_dir=None, display=True):
    """Show x in the strata viewer inside the output cell: a trace file, a list
    of files (one timeline, each file under its own header), a folder, bytes,
    a TensorBoard/JAX logdir (its latest profile run, or run=), or a
    torch.profiler.profile (strata.sources has the rules). height: the frame's
    pixels; base_url: a served viewer (see the module doc); name: the title of
    a single trace. display=False returns the IPython HTML object instead."""
    traces = resolve(x, run=run, name=name)
    base_url, text = _viewer(base_url, dist)
    title = name if name and len(traces) > 1 else None
    return _display(render(traces, base_url, height, title, None, text, viewer_dir), display)


def compare(a, b, base_url=None, height=600, layout="side", names=None, run=None, dist=None, viewer_dir=None,
            display=True):
    """Compare two runs: a the baseline, b the candidate, each one trace (a file,
    bytes, a logdir or a run folder of one file, a torch profile), shown as the
    page's compare shows them (window.strata.compare: b aligned on a at the
    first step both have) in layout 'side' (two panes, zoom and pan together)
    or 'stacked'. names=(name_a, name_b) renames them."""
    if layout not in ("side", "stacked"):
        raise ValueError("strata.compare: layout is 'side' or 'stacked'")
    pair = []
    for label, x in (("a", a), ("b", b)):
        ts = resolve(x, run=run)
        if len(ts) != 1:
            raise ValueError(f"strata.compare: {label} is {len(ts)} files; a run to compare is one trace "
                             f"(pick one, e.g. rank 0: {ts[0].path or ts[0].name})")
        pair.append(ts[0])
    if names:
        pair[0].name, pair[1].name = names
    base_url, text = _viewer(base_url, dist)
    return _display(render(pair, base_url, height, None, layout, text, viewer_dir), display)
