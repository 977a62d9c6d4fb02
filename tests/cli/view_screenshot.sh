#!/usr/bin/env bash
# view_screenshot.sh STRATA
# `strata view` under Xvfb: draws a generated trace (3 processes, nested
# slices of many names) with --screenshot at 1280x720 and --frame-json, then
# checks the PNG against the frame's own draw list, decoding it with
# python's zlib (stdlib only):
#   - slices: at sample points inside the opaque rects (away from text and
#     lines), the pixel is the colour of the topmost rect there, at the
#     rect's position (so a blank, shifted or upside-down image fails), and
#     at least 6 distinct slice colours are seen;
#   - labels: every glyph quad in the label gutter has ink (pixels far from
#     the colour under it), at least 20 of them;
#   - the image is the window's size, and the checker itself rejects a blank
#     image and the image flipped upside down (so it can fail).
# Also: two files merged on one timeline draw both files' group headers;
# --hash opens at a link's view with its event selected; a
# file that cannot be read, or no display for a window, exits 1 with one
# line. Skipped (exit 77, ctest
# SKIP_RETURN_CODE) only if Xvfb is missing. One private X server for the
# script (view_check.private_display: -displayfd, stopped and waited for at the end).
set -u
strata=${1:?usage: view_screenshot.sh STRATA}
if ! command -v Xvfb >/dev/null 2>&1; then
  echo "SKIP: Xvfb is not installed (Debian: xvfb); strata view needs a display"
  exit 77
fi
export STRATA_BIN=$strata STRATA_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
exec python3 - <<'PY'
import json, os, struct, subprocess, sys, tempfile, zlib

strata = os.environ["STRATA_BIN"]
root = os.environ["STRATA_ROOT"]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(root, "tests", "cli"))
from view_check import finish, lsan_not_fatal, own_leaks, private_display, report

lsan_not_fatal()
xenv = private_display()
tmp = tempfile.mkdtemp(prefix="strata-view-")


# ---- a trace with something to see --------------------------------------------
def make_trace(path, pid_base, names):
    ev = []
    for p in range(3):
        pid = pid_base + p
        ev.append({"ph": "M", "name": "process_name", "pid": pid, "args": {"name": "proc %d" % pid}})
        for t in range(2):
            tid = 10 * p + t + 1
            ev.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                       "args": {"name": "worker %d" % tid}})
            ts = 0
            for k in range(6):
                name = names[(p * 7 + t * 3 + k) % len(names)]
                ev.append({"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": 900})
                ev.append({"ph": "X", "name": names[(k + 5) % len(names)], "pid": pid, "tid": tid,
                           "ts": ts + 100, "dur": 500})
                ts += 1000
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)


NAMES = ["forward", "backward", "optimizer.step", "allreduce", "dataloader", "matmul",
         "softmax", "layernorm", "attention", "embedding", "loss", "checkpoint"]
trace = os.path.join(tmp, "run.json")
make_trace(trace, 1, NAMES)


# ---- PNG decoding (stdlib) ------------------------------------------------------
def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "want 8-bit RGB(A)"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if bpp == 3 else bytes(x for i, x in enumerate(line) if i % 4 != 3))
        prev = line
    return w, h, rows


def write_png(path, w, h, rows):
    raw = b"".join(b"\x00" + r for r in rows)
    def chunk(k, b):
        return struct.pack(">I", len(b)) + k + b + struct.pack(">I", zlib.crc32(k + b))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def rgb(c):
    return (c & 255, (c >> 8) & 255, (c >> 16) & 255)


# ---- the check: a PNG against the frame's draw list -----------------------------
def check(png, frame):
    """Returns a list of problems (empty: the image shows the draw list)."""
    w, h, rows = read_png(png)
    dpr = frame["dpr"]
    problems = []
    if (w, h) != (round(frame["width"] * dpr), round(frame["height"] * dpr)):
        return ["image %dx%d, the window is %sx%s" % (w, h, frame["width"], frame["height"])]

    def px(x, y):
        X, Y = int(x * dpr), int(y * dpr)
        r = rows[Y]
        return tuple(r[3 * X:3 * X + 3])

    # every primitive with its command's clip
    rects, glyphs, lines = [], [], []
    for kind, first, count, cx, cy, cw, ch in frame["cmds"]:
        src = (frame["rects"], frame["glyphs"], frame["lines"])[int(kind)]
        dst = (rects, glyphs, lines)[int(kind)]
        for i in range(int(first), int(first + count)):
            dst.append((src[i], (cx, cy, cx + cw, cy + ch)))

    def clipped(x, y, ww, hh, clip):
        return max(x, clip[0]), max(y, clip[1]), min(x + ww, clip[2]), min(y + hh, clip[3])

    def covered_by_text_or_line(x, y):
        for (gx, gy, gw, gh, _), _c in glyphs:
            if gx - 1 <= x <= gx + gw + 1 and gy - 1 <= y <= gy + gh + 1:
                return True
        for (x0, y0, x1, y1, lw, _), _c in lines:
            if min(x0, x1) - lw - 2 <= x <= max(x0, x1) + lw + 2 and \
               min(y0, y1) - lw - 2 <= y <= max(y0, y1) + lw + 2:
                return True
        return False

    def topmost(x, y):
        for (rx, ry, rw, rh, c, fl), clip in reversed(rects):
            x0, y0, x1, y1 = clipped(rx, ry, rw, rh, clip)
            if x0 <= x < x1 and y0 <= y < y1:
                return c, fl
        return frame["clear"], 0

    checked = matched = 0
    colours = set()
    for (rx, ry, rw, rh, c, fl), clip in rects:
        x0, y0, x1, y1 = clipped(rx, ry, rw, rh, clip)
        if x1 - x0 < 6 or y1 - y0 < 6 or int(c) >> 24 != 255 or fl:
            continue
        for fx in (0.2, 0.5, 0.8):
            for fy in (0.3, 0.7):
                x, y = x0 + (x1 - x0) * fx, y0 + (y1 - y0) * fy
                if covered_by_text_or_line(x, y):
                    continue
                top, tfl = topmost(x, y)
                if int(top) >> 24 != 255 or tfl:
                    continue
                checked += 1
                want, got = rgb(int(top)), px(x, y)
                if max(abs(a - b) for a, b in zip(want, got)) <= 3:
                    matched += 1
                    if x >= 220:  # the timeline: slices
                        colours.add(want)
                elif len(problems) < 5:
                    problems.append("at (%.0f,%.0f) want rgb%s, got rgb%s" % (x, y, want, got))
    if checked < 50:
        problems.append("only %d sample points in rects" % checked)
    elif matched < checked * 0.97:
        problems.append("%d of %d rect sample points match" % (matched, checked))
    if len(colours) < 6:
        problems.append("%d distinct slice colours seen (want >= 6)" % len(colours))

    inked = gutter = 0
    for (gx, gy, gw, gh, gc), clip in glyphs:
        if gx + gw > 220 or gw * dpr < 2 or gh * dpr < 4:
            continue
        gutter += 1
        bg = rgb(int(topmost(gx + gw / 2, gy + gh / 2)[0]))
        ink = 0
        for yy in range(int(gy * dpr), int((gy + gh) * dpr)):
            for xx in range(int(gx * dpr), int((gx + gw) * dpr)):
                p = tuple(rows[yy][3 * xx:3 * xx + 3])
                if sum(abs(a - b) for a, b in zip(p, bg)) > 150:
                    ink += 1
        if ink:
            inked += 1
    if gutter < 20:
        problems.append("only %d label glyphs in the gutter" % gutter)
    elif inked < gutter * 0.95:
        problems.append("%d of %d gutter glyphs have ink" % (inked, gutter))
    return problems


def view(files, png, frame_json=None, size="1280x720", extra=()):
    cmd = [strata, "view"] + files + ["--screenshot", png, "--size", size] + list(extra)
    if frame_json:
        cmd += ["--frame-json", frame_json]
    p = subprocess.run(cmd, capture_output=True, env=xenv, timeout=120)
    leaks = own_leaks(p.stderr.decode(errors="replace"), root, strata)
    report(not leaks, "no leaks in strata's code: " + " ".join(files[-1:]), "; ".join(leaks))
    return p


def shot(name, files, extra=()):
    """Views files into <name>.png + .json and checks the one against the
    other; returns (frame, png) or (None, None)."""
    png, fj = os.path.join(tmp, name + ".png"), os.path.join(tmp, name + ".json")
    p = view(files, png, fj, extra=extra)
    if p.returncode != 0:
        report(False, name, "exit %d: %s" % (p.returncode, p.stderr.decode(errors="replace")))
        return None, None
    frame = json.load(open(fj))
    probs = check(png, frame)
    report(not probs, name + ": the screenshot shows the draw list", "; ".join(probs))
    return frame, png


# 1. one file
frame, png = shot("one", [trace])
if frame:
    w, h, rows = read_png(png)
    report((w, h) == (1280, 720), "size 1280x720", "%dx%d" % (w, h))
    # the check can fail: a blank image, the image upside down
    clear = bytes(rgb(int(frame["clear"]))) * w
    blank = os.path.join(tmp, "blank.png")
    write_png(blank, w, h, [clear] * h)
    report(bool(check(blank, frame)), "blank image rejected", "the checker accepted it")
    flipped = os.path.join(tmp, "flipped.png")
    write_png(flipped, w, h, rows[::-1])
    report(bool(check(flipped, frame)), "upside-down image rejected", "the checker accepted it")

# 2. two files merged on one timeline: both groups' headers are drawn
second = os.path.join(tmp, "rank-1.json")
make_trace(second, 100, NAMES[::-1])
frame, png = shot("two", [trace, second])
if frame:
    # a file's group header is ST_VIEW_GROUP_H (26) px high, one per file
    heads = sorted({r[1] for r in frame["rects"] if r[3] == 26})
    report(len(heads) == 2, "two files: two group headers", "headers at y %s" % heads)

# 3. notes (--note): a line at a time, a band's two edges over a range, a flag each on
# the axis; x linear in time (the range's 1500 us as wide as the gap before it)
NOTE_RGBA = 0xffc83caa  # core/draw/draw.h ST_DRAW_NOTE_RGBA
frame, png = shot("notes", [trace], ["--note", "1500=slow step", "--note", "4500:3000=all-reduce"])
if frame:
    xs = sorted(l[0] for l in frame["lines"] if l[5] == NOTE_RGBA and l[0] == l[2] and l[1] >= 28)
    flags = [r for r in frame["rects"] if r[4] == NOTE_RGBA and r[1] + r[3] <= 28]
    report(len(xs) == 3 and abs((xs[2] - xs[1]) / (xs[1] - xs[0]) - 1) < 0.02 and len(flags) == 2,
           "--note: the notes' lines at linear x, two flags on the axis", "lines %s, flags %s" % (xs, flags))
p = subprocess.run([strata, "view", trace, "--note", "x=1"], capture_output=True)
report(p.returncode == 2 and b"--note" in p.stderr, "bad --note: exit 2", "exit %d" % p.returncode)

# 3b. --hash (a page link's view state, what `strata mcp` hands out): the view is
# t=990,1110 us, so the event at 1000 us for 100 us is drawn from 220 + 10/120 of
# the 1060 px timeline, 100/120 of it wide less the 1 px boundary every slice
# of 3 px and more keeps to its neighbour (issue 30); sel=0:0 selects it (rect flag 2)
small = os.path.join(tmp, "small.json")
with open(small, "w") as f:
    json.dump({"traceEvents": [{"name": "first", "ph": "X", "ts": 1000, "dur": 100, "pid": 1, "tid": 1},
                               {"name": "later", "ph": "X", "ts": 5000, "dur": 1000, "pid": 1, "tid": 1}]}, f)
for h, flag in (("#t=990,1110&sel=0:0", 2), ("#t=990,1110", 0)):
    fj = os.path.join(tmp, "hash%d.json" % flag)
    p = view([small], os.path.join(tmp, "hash%d.png" % flag), fj, extra=["--hash", h])
    report(p.returncode == 0, "--hash %s: exit 0" % h, p.stderr.decode(errors="replace"))
    if p.returncode == 0:
        frame = json.load(open(fj))
        x, w = 220 + 10 / 120 * 1060, 100 / 120 * 1060 - 1
        hit = [r for r in frame["rects"] if abs(r[0] - x) < 0.5 and abs(r[2] - w) < 0.5 and r[1] > 28]
        report(len(hit) == 1 and hit[0][5] == flag, "--hash %s: the view and the selection" % h,
               "rects %s" % [r for r in frame["rects"] if r[1] > 28][:6])
p = subprocess.run([strata, "view", small, "--hash", "#t=5,4"], capture_output=True)
report(p.returncode == 2 and b"--hash" in p.stderr, "bad --hash: exit 2", "exit %d" % p.returncode)

# 4. failures: one line, exit 1 (unreadable file); usage errors exit 2
p = view([os.path.join(tmp, "missing.json")], os.path.join(tmp, "x.png"))
err = [l for l in p.stderr.decode(errors="replace").strip().splitlines() if l]
report(p.returncode == 1 and len(err) == 1
       and "missing.json" in err[-1], "missing file: exit 1, one line",
       "exit %d: %r" % (p.returncode, err))
env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY",
                                                       "SDL_VIDEODRIVER")}
p = subprocess.run([strata, "view", trace], capture_output=True, env=env, timeout=120)
err = p.stderr.decode(errors="replace").strip().splitlines()
report(p.returncode == 1 and len(err) == 1 and "no display" in err[0],
       "no display: exit 1, one line", "exit %d: %r" % (p.returncode, err))
p = subprocess.run([strata, "view", trace, "--size", "12"], capture_output=True)
report(p.returncode == 2, "bad --size: exit 2", "exit %d" % p.returncode)

sys.exit(finish())
PY
