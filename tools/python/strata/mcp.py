"""strata.mcp: strata as a Model Context Protocol server (`python -m strata mcp`,
`strata mcp`), so an assistant can open profiles, ask what is slow, compare two
runs and hand the user a link to the place in the timeline that shows it.

Transport: stdio, JSON-RPC 2.0, one message per line; stdout carries the
protocol only, logs go to stderr. Both eras of MCP:
  2026-07-28 (stateless): a request whose params._meta names its
      "io.modelcontextprotocol/protocolVersion" (and clientCapabilities) is
      served without a handshake; server/discover, tools/list, tools/call;
      results carry "resultType": "complete" and the server's identity in
      _meta; another modern version: -32022 with data.supported; the
      handshake-era methods (initialize, ping): -32601.
  2025-11-25 (and 2025-06-18, 2025-03-26, 2024-11-05, each answered in its
      own version): initialize, ping, tools/list, tools/call, and the
      notifications notifications/initialized and notifications/cancelled,
      which need no answer. The official TypeScript SDK's stable client
      (1.x) speaks this era.
The tools (their input and result schemas are
strata/schemas/strata.mcp-1.schema.json, the tools' inputSchema and
outputSchema):

  open             files, folders (a TensorBoard/JAX logdir, a folder of traces) or a
                   manifest (`strata manifest`) -> a trace id for the other tools
  stats            what the files hold (`strata stats --json`)
  analyze          steps, devices (busy, idle, compute, communication, overlap), idle
                   gaps and what the host did meanwhile, stragglers, top ops
  diff             two runs compared per name, with verdicts (regression, improvement)
  search           events whose name contains a text (or their args)
  events_in_range  the events meeting a time range, longest first
  top_ops          the ops by self time, with p50 / p90 / p99

Every tool runs the native CLI (strata.native) in a child process, so a trace
that crashes or hangs it (a timeout) is a tool error, never the server's end.
Times are microseconds from the start of the trace they belong to (as
`strata analyze` gives them). Results are bounded: every list is
{"count": all there are, "items": the first `limit` (default 20, at most
1000)}, and a result whose JSON passes 200,000 characters has its longest
lists cut further ("truncated": true). Every finding carries "link": "url"
(the page, served on 127.0.0.1 by this process from the package's viewer,
opening the files, with the view state in its hash: #t=START,END in the
page's microseconds, &sel=ROW:INDEX the event selected, &cmp=side), "hash",
"view" (the `strata view` command line opening the same place in the native
window) and "python_view" (`python -m strata view ...`: the page in the
browser). Standard library only.
"""
import json
import os
import shlex
import subprocess
import sys
import threading

from . import __version__, find_dist
from .native import find_cli
from .sources import resolve

__all__ = ["main", "Session", "PROTOCOL_VERSION"]

PROTOCOL_VERSION = "2025-11-25"  # the handshake era's latest (initialize)
SUPPORTED_VERSIONS = (PROTOCOL_VERSION, "2025-06-18", "2025-03-26", "2024-11-05")
MODERN_VERSIONS = ("2026-07-28",)  # stateless: the version in each request's _meta
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_SERVER = "io.modelcontextprotocol/serverInfo"
UNSUPPORTED_VERSION = -32022
DEFAULT_LIMIT = 20
MAX_LIMIT = 1000
MAX_RESULT_CHARS = 200_000
MAX_TRACES = 64  # sets kept open by one session
TIMEOUT_S = float(os.environ.get("STRATA_MCP_TIMEOUT", "600"))
SCHEMA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas", "strata.mcp-1.schema.json")

# JSON-RPC error codes
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603


class ToolError(Exception):
    """A tool call that cannot be answered: the result says why (isError)."""


class RpcError(Exception):
    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code, self.data = code, data


def log(msg):
    sys.stderr.write(f"strata mcp: {msg}\n")
    sys.stderr.flush()


# ---- the schemas ---------------------------------------------------------------------

def _inline(node, defs, depth=0):
    """node with every {"$ref": "#/$defs/X"} replaced by defs[X] (tools/list
    schemas must stand alone)."""
    if depth > 32:
        raise ValueError("schema: $ref too deep")
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(defs[ref[8:]], defs, depth + 1)
        return {k: _inline(v, defs, depth + 1) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, defs, depth + 1) for v in node]
    return node


def load_tools():
    """[{name, title, description, inputSchema, outputSchema, annotations}] from the schema file."""
    with open(SCHEMA_FILE, encoding="utf-8") as f:
        doc = json.load(f)
    defs = doc["$defs"]
    tools = []
    for t in doc["x-tools"]:
        tools.append({
            "name": t["name"],
            "title": t["title"],
            "description": t["description"],
            "inputSchema": _inline(defs[t["input"]], defs),
            "outputSchema": _inline(defs[t["output"]], defs),
            "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
                            "openWorldHint": False},
        })
    return tools


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool}


def validate(value, schema, where="arguments"):
    """The first way value breaks schema (the subset the tools' inputs use:
    type, properties, required, additionalProperties false, items, minItems,
    maxItems, minimum, maximum, minLength, maxLength, enum), or None."""
    t = schema.get("type")
    if t == "integer":
        if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, float) and value.is_integer())):
            return f"{where}: an integer expected"
    elif t == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value in (float("inf"), float("-inf")):
            return f"{where}: a number expected"
    elif t in _TYPES and not isinstance(value, _TYPES[t]):
        return f"{where}: {'an' if t[0] in 'aeiou' else 'a'} {t} expected"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where}: one of {', '.join(json.dumps(e) for e in schema['enum'])}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{where}: at least {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{where}: at most {schema['maximum']}"
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            return f"{where}: at least {schema['minLength']} characters"
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return f"{where}: at most {schema['maxLength']} characters"
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            return f"{where}: at least {schema['minItems']} items"
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return f"{where}: at most {schema['maxItems']} items"
        for i, v in enumerate(value):
            e = validate(v, schema.get("items", {}), f"{where}[{i}]")
            if e:
                return e
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in value:
                return f"{where}: '{k}' is required"
        for k, v in value.items():
            if k in props:
                e = validate(v, props[k], f"{where}.{k}")
                if e:
                    return e
            elif schema.get("additionalProperties") is False:
                return f"{where}: unknown argument '{k}' (known: {', '.join(props)})"
    return None


# ---- a set of traces opened, and links into it ------------------------------------

def _fmt_us(x):
    """A time as the page writes it in its hash (web/embed.js fmtUs: at most 3 decimals)."""
    s = f"{x:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


class TraceSet:
    """Files opened together (one timeline, as the page and `strata stats A B` place them)."""

    def __init__(self, tid, paths, stats):
        self.id, self.paths, self.stats = tid, paths, stats
        per_file = stats.get("traces") if len(paths) > 1 else [dict(stats, offset_us=0, file=paths[0])]
        self.files = per_file
        self._server = None
        self._lock = threading.Lock()

    def origin_us(self, k):
        """Trace k's t = 0 on the page's timeline (its first timestamp, moved by its offset)."""
        f = self.files[k]
        return (f.get("ts_min_us") or 0) + (f.get("offset_us") or 0)

    def page_url(self):
        with self._lock:
            if self._server is None:
                try:
                    from .server import start

                    self._server = start(find_dist(), self.paths, port=0, background=True)
                except (OSError, ValueError) as e:
                    log(f"no page for links: {e}")
                    self._server = False
            return self._server.url if self._server else None

    def link(self, k=0, t0=None, t1=None, sel=None, pad=True):
        """Trace k's times t0..t1 (us from its start; None: all of it), sel (row, index)."""
        f = self.files[k]
        if t0 is None:
            t0, t1 = 0.0, (f.get("ts_max_us") or 0) - (f.get("ts_min_us") or 0)
        if t1 <= t0:
            t1 = t0 + 1.0
        if pad:  # a tenth either side, so the finding shows with what is around it
            d = (t1 - t0) * 0.1
            t0, t1 = t0 - d, t1 + d
        o = self.origin_us(k)
        h = f"#t={_fmt_us(o + t0)},{_fmt_us(o + t1)}"
        if sel is not None and len(self.paths) == 1:
            h += f"&sel={sel[0]}:{sel[1]}"
        return make_link(self.page_url(), self.paths, h)

    def close(self):
        if self._server:
            self._server.close()


def make_link(page, paths, h):
    files = " ".join(shlex.quote(p) for p in paths)
    return {
        "url": (page + h) if page else None,
        "hash": h,
        "view": f"strata view {files} --hash {shlex.quote(h)}",
        "python_view": f"python -m strata view {files} --hash {shlex.quote(h)}",
    }


def bounded(items, limit):
    return {"count": len(items), "items": items[:limit]}


def _shrink(result):
    """Cuts the longest {"count","items"} lists of result until its JSON fits."""
    while True:
        text = json.dumps(result, ensure_ascii=False)
        if len(text) <= MAX_RESULT_CHARS:
            return result
        lists = []

        def walk(node):
            if isinstance(node, dict):
                if isinstance(node.get("items"), list) and "count" in node:
                    lists.append(node)
                for v in node.values():
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)
        walk(result)
        lists = [x for x in lists if x["items"]]
        if not lists:
            raise ToolError("the answer is too large even with every list cut")
        big = max(lists, key=lambda x: len(json.dumps(x["items"], ensure_ascii=False)))
        big["items"] = big["items"][:len(big["items"]) // 2]
        result["truncated"] = True


# ---- the tools ------------------------------------------------------------------------

class Session:
    """One client's state: the sets it opened, the CLI's answers."""

    def __init__(self):
        self.sets = {}  # trace id -> TraceSet
        self.pairs = {}  # (a, b) -> TraceSet: the page of two runs compared
        self.next_id = 1
        self.cli = None

    def _cli(self):
        if self.cli is None:
            try:
                self.cli = find_cli()
            except FileNotFoundError as e:
                raise ToolError(str(e)) from None
        return self.cli

    def _run(self, command, args, ok=(0,)):
        try:
            r = subprocess.run([self._cli(), command, *args], capture_output=True, timeout=TIMEOUT_S,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise ToolError(f"strata {command} took more than {TIMEOUT_S:g} s; stopped") from None
        except OSError as e:
            raise ToolError(f"cannot run the strata CLI: {e}") from None
        if r.returncode not in ok:
            lines = r.stderr.decode("utf-8", "replace").strip().splitlines()
            said = [x for x in lines if x.startswith("strata: ")] or lines  # the CLI's one line
            raise ToolError((said[0] if said else f"strata {command}: exit {r.returncode}")
                            if r.returncode > 0 else f"strata {command} died (signal {-r.returncode})")
        try:
            return json.loads(r.stdout)
        except ValueError:
            raise ToolError(f"strata {command}: its output is not JSON") from None

    def _set(self, tid):
        s = self.sets.get(tid)
        if s is None:
            known = ", ".join(self.sets) or "none yet"
            raise ToolError(f"unknown trace {tid!r} (open files first: open returns a trace id; open: {known})")
        return s

    @staticmethod
    def _limit(args):
        return min(int(args.get("limit", DEFAULT_LIMIT)), MAX_LIMIT)

    def _file(self, s, args):
        k = int(args.get("file", 0))
        if k >= len(s.paths):
            raise ToolError(f"file {k}: trace {s.id} has {len(s.paths)} file(s) (0 to {len(s.paths) - 1})")
        return k

    # open --------------------------------------------------------------------------
    def open(self, args):
        paths = []
        for p in args["paths"]:
            p = os.path.expanduser(p)
            if os.path.isfile(p) and _is_manifest(p):
                paths.extend(_manifest_files(p))
                continue
            try:
                found = [t.path for t in resolve(p, run=args.get("run"))]
                # a folder's manifest lists its files: not a trace itself
                paths.extend(f for f in found if len(found) == 1 or not _is_manifest(f))
            except (OSError, ValueError, TypeError) as e:
                raise ToolError(str(e)) from None
        if not paths:
            raise ToolError("no trace file found in what was given")
        if len(paths) > 256:
            raise ToolError(f"{len(paths)} files: at most 256 open together")
        stats = self._run("stats", ["--json", *paths])
        if len(self.sets) >= MAX_TRACES:  # the oldest goes
            old = next(iter(self.sets))
            self.sets.pop(old).close()
        tid = f"t{self.next_id}"
        self.next_id += 1
        s = TraceSet(tid, paths, stats)
        self.sets[tid] = s
        files = [{"file": p, "format": f.get("format"), "events": f.get("events"),
                  "group": f.get("group", os.path.basename(p)),
                  "duration_us": (f.get("ts_max_us") or 0) - (f.get("ts_min_us") or 0),
                  "offset_us": f.get("offset_us", 0), "link": s.link(k, pad=False)}
                 for k, (p, f) in enumerate(zip(paths, s.files))]
        return {"schema": "strata.mcp.open/1", "trace": tid, "events": stats.get("events", 0),
                "files": bounded(files, self._limit(args)), "link": s.link(0, pad=False)}

    # stats -------------------------------------------------------------------------
    def stats(self, args):
        s = self._set(args["trace"])
        st = {k: v for k, v in s.stats.items() if k != "traces"}
        files = [dict({k: v for k, v in f.items()}, link=s.link(i, pad=False)) for i, f in enumerate(s.files)]
        return {"schema": "strata.mcp.stats/1", "trace": s.id, "stats": st,
                "files": bounded(files, self._limit(args)), "link": s.link(0, pad=False)}

    # analyze, top_ops ----------------------------------------------------------------
    def _analyze_args(self, args, ops, gaps):
        a = ["--json", "--ops", str(ops), "--gaps", str(gaps)]
        if "step_name" in args:
            a += ["--step-name", args["step_name"]]
        if "step" in args:
            a += ["--step", str(int(args["step"]))]
        elif "from_us" in args or "to_us" in args:
            if "from_us" not in args or "to_us" not in args:
                raise ToolError("from_us and to_us go together")
            a += ["--from", _fmt_us(args["from_us"]), "--to", _fmt_us(args["to_us"])]
        return a

    def _op_links(self, s, ops, n_links=10):
        """Each op's link: its first instance selected (searched, at most n_links of
        them: a search loads the trace), else the whole trace."""
        for i, op in enumerate(ops):
            hit = self._find_event(s, op["name"]) if i < n_links else None
            op["link"] = s.link(hit[0], hit[1], hit[2], sel=hit[3]) if hit else s.link(0, pad=False)

    def _find_event(self, s, name):
        for k, p in enumerate(s.paths[:4]):
            try:
                r = self._run("search", [p, name, "--json", "--limit", "200"])
            except ToolError:
                continue
            for h in r.get("first", []):
                if h["name"] == name:
                    t0 = h["start_ns"] / 1000
                    return k, t0, t0 + h["dur_ns"] / 1000, (h["row"], h["index"])
        return None

    def analyze(self, args):
        s = self._set(args["trace"])
        lim = self._limit(args)
        a = self._run("analyze", [*self._analyze_args(args, lim, min(lim, 100000)), *s.paths])
        for st in a.get("steps", []):
            st["link"] = s.link(st["trace"], st["start_us"], st["end_us"])
        for p in a.get("per_step", []):
            p["link"] = s.link(p["trace"], p["start_us"], p["start_us"] + p["wall_us"])
        for d in a.get("devices", []):
            d["link"] = s.link(d["trace"], pad=False)
        for g in a.get("idle_gaps", []):
            g["host"] = bounded(g.get("host", []), 5)
            g["link"] = s.link(g["trace"], g["start_us"], g["end_us"])
        for x in a.get("stragglers", []):
            x["link"] = s.link(x["trace"], pad=False)
        for r in a.get("ranks", []):
            r["link"] = s.link(r["trace"], pad=False)
        ops = a.get("ops", [])
        self._op_links(s, ops[:lim])
        out = {"schema": "strata.mcp.analyze/1", "trace": s.id, "traces": bounded(a.get("traces", []), lim)}
        for key in ("devices", "steps", "per_step", "idle_gaps", "stragglers", "ranks", "memory"):
            out[key] = bounded(a.get(key, []), lim)
        out["ops"] = {"count": a.get("op_names", len(ops)), "items": ops[:lim]}
        return out

    def top_ops(self, args):
        s = self._set(args["trace"])
        lim = self._limit(args)
        a = self._run("analyze", [*self._analyze_args(args, lim, 1), *s.paths])
        ops = a.get("ops", [])[:lim]
        self._op_links(s, ops)
        return {"schema": "strata.mcp.top_ops/1", "trace": s.id, "order": "self time, largest first",
                "ops": {"count": a.get("op_names", len(ops)), "items": ops}}

    # diff -----------------------------------------------------------------------------
    def _one(self, ref, label):
        if ref in self.sets:
            s = self.sets[ref]
            if len(s.paths) != 1:
                raise ToolError(f"{label}: trace {ref} is {len(s.paths)} files; a run to compare is one trace")
            return s.paths[0]
        p = os.path.expanduser(ref)
        if not os.path.isfile(p):
            raise ToolError(f"{label}: {ref!r} is neither an open trace id nor a file")
        return os.path.abspath(p)

    def diff(self, args):
        a, b = self._one(args["a"], "a"), self._one(args["b"], "b")
        lim = self._limit(args)
        extra = ["--by", args.get("by", "name")]
        if "step" in args:
            extra += ["--step", str(int(args["step"]))]
        d = self._run("diff", [a, b, "--json", *extra], ok=(0, 3))
        page = self._pair_page(a, b)  # links: the two runs side by side
        rows = d.get("rows", [])
        link = make_link(page, [a, b], "#cmp=side")
        for r in rows[:lim]:
            r["link"] = link
        regressions = [r["name"] for r in rows if r.get("regression")]
        improvements = [r["name"] for r in rows if r.get("improvement")]
        return {"schema": "strata.mcp.diff/1", "a": a, "b": b, "by": d.get("by"),
                "headline": d.get("headline"), "alignment": d.get("alignment"),
                "counts": {k: d.get(k) for k in ("regressions", "improvements", "only_a", "only_b",
                                                  "not_enough_data")},
                "regressions": bounded(regressions, lim), "improvements": bounded(improvements, lim),
                "rows": bounded(rows, lim), "link": link}

    def _pair_page(self, a, b):
        if (a, b) not in self.pairs:
            if len(self.pairs) >= MAX_TRACES:
                self.pairs.pop(next(iter(self.pairs))).close()
            self.pairs[(a, b)] = TraceSet(None, [a, b], {"traces": [{}, {}]})
        return self.pairs[(a, b)].page_url()

    # search, events_in_range ----------------------------------------------------------
    def search(self, args):
        s = self._set(args["trace"])
        k, lim = self._file(s, args), self._limit(args)
        extra = ["--args"] if args.get("args") else []
        r = self._run("search", [s.paths[k], args["text"], "--json", "--limit", str(lim), *extra])
        items = [{"name": h["name"], "file": k, "start_us": h["start_ns"] / 1000, "dur_us": h["dur_ns"] / 1000,
                  "row": h["row"], "index": h["index"],
                  "link": s.link(k, h["start_ns"] / 1000, (h["start_ns"] + h["dur_ns"]) / 1000,
                                 sel=(h["row"], h["index"]))}
                 for h in r.get("first", [])]
        return {"schema": "strata.mcp.search/1", "trace": s.id, "text": args["text"],
                "args": bool(args.get("args")), "order": "time",
                "matches": {"count": r.get("matches", len(items)), "items": items}}

    def events_in_range(self, args):
        s = self._set(args["trace"])
        k, lim = self._file(s, args), self._limit(args)
        t0, t1 = float(args["from_us"]), float(args["to_us"])
        if t1 < t0:
            raise ToolError("to_us is before from_us")
        base = s.files[k].get("ts_min_us") or 0
        r = self._run("window", [s.paths[k], "--from", _fmt_us(base + t0), "--to", _fmt_us(base + t1),
                                 "--json", "--events", "--resident"])
        ev = sorted(r.get("list", []), key=lambda e: (-e[4], e[3]))  # [pid, key, kind, start_ns, dur_ns, name, src]
        items = []
        for pid, key, kind, start, dur, name, _src in ev[:lim]:
            rel = start / 1000 - base
            items.append({"name": name, "pid": pid, "tid": key, "kind": kind, "start_us": rel,
                          "dur_us": dur / 1000, "link": s.link(k, rel, rel + dur / 1000)})
        return {"schema": "strata.mcp.events_in_range/1", "trace": s.id, "file": k, "from_us": t0,
                "to_us": t1, "order": "longest first", "events": {"count": len(ev), "items": items},
                "link": s.link(k, t0, t1, pad=False)}

    def close(self):
        for s in [*self.sets.values(), *self.pairs.values()]:
            s.close()


def _is_manifest(path):
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        return False
    return head.lstrip().startswith(b'{"strata_manifest"')


def _manifest_files(path):
    try:
        with open(path, encoding="utf-8") as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        raise ToolError(f"{path}: not a readable manifest ({e})") from None
    base = os.path.dirname(os.path.abspath(path))
    out = []
    for f in m.get("files", []):
        p = f.get("path") if isinstance(f, dict) else None
        if not isinstance(p, str) or f.get("error") or p.startswith("/") or ".." in p.split("/"):
            continue
        out.append(os.path.join(base, *p.split("/")))
    if not out:
        raise ToolError(f"{path}: the manifest lists no readable file")
    return out


TOOLS = ("open", "stats", "analyze", "diff", "search", "events_in_range", "top_ops")


# ---- JSON-RPC over stdio ------------------------------------------------------------------

class Server:
    def __init__(self, out):
        self.out = out
        self.session = Session()
        self.tools = load_tools()
        self.inputs = {t["name"]: t["inputSchema"] for t in self.tools}
        self.version = PROTOCOL_VERSION

    def send(self, msg):
        self.out.write(json.dumps(msg, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.out.flush()

    def handle_line(self, line):
        try:
            msg = json.loads(line)
        except ValueError:
            return self.send({"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": "Parse error"}})
        if not isinstance(msg, dict):
            return self.send({"jsonrpc": "2.0", "id": None,
                              "error": {"code": INVALID_REQUEST, "message": "Invalid Request: one JSON object per line"}})
        mid = msg.get("id")
        has_id = "id" in msg and (isinstance(mid, str) or (isinstance(mid, int) and not isinstance(mid, bool)))
        method = msg.get("method")
        if msg.get("jsonrpc") != "2.0" or not isinstance(method, str):
            if "method" not in msg and ("result" in msg or "error" in msg):
                return None  # a response to nothing we asked: ignored
            return self.send({"jsonrpc": "2.0", "id": mid if has_id else None,
                              "error": {"code": INVALID_REQUEST, "message": "Invalid Request"}})
        if not has_id:
            if "id" in msg:
                return self.send({"jsonrpc": "2.0", "id": None,
                                  "error": {"code": INVALID_REQUEST, "message": "Invalid Request: id must be a string or an integer"}})
            return None  # a notification: initialized, cancelled, ... need no answer
        params = msg.get("params", {})
        try:
            if params is None:
                params = {}
            if not isinstance(params, dict):
                raise RpcError(INVALID_PARAMS, "params must be an object")
            meta = params.get("_meta")
            if isinstance(meta, dict) and META_VERSION in meta:
                result = self.dispatch_modern(method, params, meta)
            else:
                result = self.dispatch(method, params)
        except RpcError as e:
            err = {"code": e.code, "message": str(e)}
            if e.data is not None:
                err["data"] = e.data
            return self.send({"jsonrpc": "2.0", "id": mid, "error": err})
        except Exception as e:  # a bug of ours: said, and the server goes on
            log(f"internal error in {method}: {type(e).__name__}: {e}")
            return self.send({"jsonrpc": "2.0", "id": mid,
                              "error": {"code": INTERNAL_ERROR, "message": f"internal error: {type(e).__name__}: {e}"}})
        return self.send({"jsonrpc": "2.0", "id": mid, "result": result})

    SERVER_INFO = {"name": "strata", "title": "strata trace viewer", "version": __version__}
    INSTRUCTIONS = ("Open trace files (open: files, a folder, a TensorBoard/JAX logdir or a "
                    "strata manifest) to get a trace id, then ask stats, analyze, top_ops, "
                    "search, events_in_range, or diff two runs. Times are microseconds from "
                    "each trace's start. Every finding has a link: give the user its url (the "
                    "timeline at that place) or its view command.")

    def discover(self):
        return {"supportedVersions": list(MODERN_VERSIONS), "capabilities": {"tools": {"listChanged": False}},
                "instructions": self.INSTRUCTIONS, "ttlMs": 0, "cacheScope": "private"}

    def dispatch_modern(self, method, params, meta):
        """A 2026-07-28 request: its version and client capabilities in _meta, no handshake."""
        asked = meta.get(META_VERSION)
        if asked not in MODERN_VERSIONS:
            raise RpcError(UNSUPPORTED_VERSION, f"Unsupported protocol version: {asked!r}",
                           {"supported": list(MODERN_VERSIONS), "requested": asked})
        if not isinstance(meta.get(META_CAPS, {}), dict):
            raise RpcError(INVALID_PARAMS, f"_meta.{META_CAPS} must be an object")
        if method == "server/discover":
            result = self.discover()
        elif method == "tools/list":
            result = {"tools": self.tools, "ttlMs": 0, "cacheScope": "private"}
        elif method == "tools/call":
            result = self.call(params)
        else:  # initialize, ping, ...: gone from the stateless revision
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        result["resultType"] = "complete"
        result["_meta"] = {META_SERVER: self.SERVER_INFO}
        return result

    def dispatch(self, method, params):
        if method == "server/discover":  # a dual-era client's probe, without _meta
            return dict(self.discover(), resultType="complete", _meta={META_SERVER: self.SERVER_INFO})
        if method == "initialize":
            asked = params.get("protocolVersion")
            self.version = asked if asked in SUPPORTED_VERSIONS else PROTOCOL_VERSION
            return {"protocolVersion": self.version,
                    "capabilities": {"tools": {"listChanged": False}},
                    "serverInfo": self.SERVER_INFO, "instructions": self.INSTRUCTIONS}
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": self.tools}
        if method == "tools/call":
            return self.call(params)
        raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")

    def call(self, params):
        name, args = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str) or name not in TOOLS:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {name!r} (tools: {', '.join(TOOLS)})")
        if args is None:
            args = {}
        err = validate(args, self.inputs[name])
        if err:  # input errors are the tool's (MCP 2025-11-25): the model can correct them
            return _error_result(f"invalid arguments: {err}")
        try:
            result = _shrink(getattr(self.session, name)(args))
        except ToolError as e:
            return _error_result(str(e))
        return {"content": [{"type": "text", "text": json.dumps(result, ensure_ascii=False)}],
                "structuredContent": result, "isError": False}

    def serve(self, inp):
        while True:
            line = inp.readline()
            if not line:
                break  # stdin closed: the client is gone
            line = line.decode("utf-8", "replace").strip() if isinstance(line, bytes) else line.strip()
            if line:
                self.handle_line(line)
        self.session.close()


def _error_result(message):
    return {"content": [{"type": "text", "text": message}], "isError": True}


def main(argv=()):
    import argparse

    ap = argparse.ArgumentParser(prog="python -m strata mcp", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.parse_args(argv)
    out = sys.stdout
    sys.stdout = sys.stderr  # anything else printed goes to the log, never into the protocol
    server = Server(out)
    log(f"ready (MCP {MODERN_VERSIONS[0]} and {PROTOCOL_VERSION}, {len(server.tools)} tools, CLI: "
        f"{_cli_or_reason()})")
    try:
        server.serve(sys.stdin.buffer)
    except KeyboardInterrupt:
        pass
    except BrokenPipeError:
        pass
    return 0


def _cli_or_reason():
    try:
        return find_cli()
    except FileNotFoundError as e:
        return f"none ({e})"
