#!/usr/bin/env bash
# view_window.sh STRATA
# `strata view` as a user drives it: the window under Xvfb, real X key and
# mouse events sent with xdotool, and the window's title bar (its status
# line: tool, event under the mouse, selection, search box) read back after
# each step: 3 picks the zoom tool, shift+1 (!) the select tool, l cycles
# the flow mode (selection -> arrows: all -> arrows: off -> selection), the mouse
# over a slice names it, a click selects it, / opens the search box and
# typed text searches, Esc leaves it; t opens the track filter box, typed
# text filters the tracks ("filter: work_ (1 of 2 tracks)"), Enter keeps
# it, t and Esc clear it; e shows / hides the process without events; n
# and a click on a slice puts a note at a time inside that slice, n and a
# drag a range, their text typed in the title bar, Enter adds them ("2
# notes"); ? prints the key help (with t, e and n); SIGTERM closes
# the window and strata exits 0 (under ASan: no leak in its own code).
# Skipped (exit 77) without Xvfb or xdotool. A private X server
# (view_check.private_display: -displayfd picks a free display; stopped and waited for).
set -u
strata=${1:?usage: view_window.sh STRATA}
for tool in Xvfb xdotool; do
  if ! command -v $tool >/dev/null 2>&1; then
    echo "SKIP: $tool is not installed (Debian: xvfb, xdotool)"
    exit 77
  fi
done
export STRATA_BIN=$strata STRATA_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
exec python3 - <<'PY'
import json, os, re, signal, subprocess, sys, tempfile, time

strata = os.environ["STRATA_BIN"]
root = os.environ["STRATA_ROOT"]
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(root, "tests", "cli"))
from view_check import finish, lsan_not_fatal, own_leaks, private_display, report

lsan_not_fatal()
os.environ.update(private_display())  # DISPLAY for strata and xdotool
tmp = tempfile.mkdtemp(prefix="strata-window-")


# thread "main": slices "first" [0, 400) us and "second" [500, 1000) us;
# thread "worker": "third" [0, 100) us; process 9 ("idle") without events
trace = os.path.join(tmp, "run.json")
with open(trace, "w") as f:
    json.dump([{"ph": "M", "pid": 1, "tid": 1, "name": "thread_name", "args": {"name": "main"}},
               {"ph": "M", "pid": 1, "tid": 2, "name": "thread_name", "args": {"name": "worker"}},
               {"ph": "M", "pid": 9, "name": "process_name", "args": {"name": "idle"}},
               {"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 400, "name": "first"},
               {"ph": "X", "pid": 1, "tid": 1, "ts": 500, "dur": 500, "name": "second"},
               {"ph": "X", "pid": 1, "tid": 2, "ts": 0, "dur": 100, "name": "third"}], f)


def xdo(*args):
    return subprocess.run(["xdotool"] + list(args), capture_output=True, text=True, timeout=20)


def title(win):
    return xdo("getwindowname", win).stdout.strip()


def wait_title(win, want, name):
    """Polls the title (up to 60 s: a busy machine) until it contains every string of want."""
    t, end = "", time.time() + 60
    while time.time() < end:
        t = title(win)
        if all(w in t for w in want):
            break
        time.sleep(0.05)
    report(all(w in t for w in want), name, "title %r, want %r" % (t, want))
    return t


def press(win, key, want, name):
    """Presses key, then waits for the title to contain every string of want."""
    xdo("key", "--window", win, key)
    return wait_title(win, want, name)


def wait_gone(win, gone, name):
    """Polls the title (up to 60 s) until it does not contain gone."""
    end = time.time() + 60
    while gone in title(win) and time.time() < end:
        time.sleep(0.05)
    report(gone not in title(win), name, "title %r" % title(win))


def note_times(t):
    """The note's time or range in the title: "note at T us: " or "note T0 us - T1 us: "."""
    m = re.search(r"note (?:at )?([-0-9.]+) us(?: - ([-0-9.]+) us)?: ", t)
    if not m:
        return None
    return float(m.group(1)), float(m.group(2) or m.group(1))


p = subprocess.Popen([strata, "view", trace, "--size", "1000x400"], stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True)
win, end = "", time.time() + 60
while not win and time.time() < end and p.poll() is None:
    win = xdo("search", "--name", "run.json - strata").stdout.split("\n")[0].strip()
    time.sleep(0.1)
report(bool(win), "the window opens", "no window titled 'run.json - strata'")
if win:
    wait_title(win, ["run.json - strata", "select"], "title: the file and the tool")
    xdo("key", "--window", win, "3")
    wait_title(win, ["zoom"], "3: zoom tool")
    xdo("key", "--window", win, "shift+1")
    wait_title(win, ["select"], "!: select tool")
    for mode in ["all", "off"]:
        xdo("key", "--window", win, "l")
        wait_title(win, ["arrows: " + mode], "l cycles the flow mode: " + mode)
    xdo("key", "--window", win, "l")  # back to the default, which the title leaves out
    end = time.time() + 60
    while "arrows" in title(win) and time.time() < end:
        time.sleep(0.1)
    report("arrows" not in title(win), "l cycles the flow mode: selection", "title %r" % title(win))
    # the timeline is x 220..1000 for 0..1000 us (+ a small margin): "second"
    # is right of the middle; the first row is below the axis and header
    # find the row: hover until a name shows; a second sweep gives each
    # place 2 s (a busy machine may take longer than the first's 50 ms)
    for settle in (0.05, 2):
        for y in range(40, 140, 4):
            xdo("mousemove", "--window", win, "800", str(y))
            time.sleep(settle)
            if "second" in title(win):
                break
        if "second" in title(win):
            break
    wait_title(win, ["second", "500 us"], "hover names the slice and its duration")
    xdo("click", "--window", win, "1")
    wait_title(win, ["1 selected"], "click selects it")
    # typing only once the box is open: a key before it is a shortcut of the
    # timeline (CI lost the 'f' of "fir" under the sanitizers)
    press(win, "slash", ["search: "], "/ opens the search box")
    xdo("type", "--window", win, "fir")
    wait_title(win, ["search: fir_ (1)"], "/ and typing: the search box")
    xdo("key", "--window", win, "Escape")
    wait_title(win, ["search: fir (1)"], "Esc leaves the box, the search stays")
    # the track filter: t, typing, the count; Enter keeps it, t + Esc clears it
    wait_title(win, ["1 process without events hidden"], "the empty process is hidden")
    press(win, "t", ["filter: "], "t opens the track filter box")
    xdo("type", "--window", win, "work")
    wait_title(win, ["filter: work_ (1 of 2 tracks)"], "t and typing: the filter box, its count")
    press(win, "Return", ["filter: work (1 of 2 tracks)"], "Enter leaves the box, the filter stays")
    press(win, "t", ["filter: work_ (1 of 2 tracks)"], "t again: the box with the filter")
    xdo("key", "--window", win, "Escape")
    wait_gone(win, "filter", "Esc in the box clears the filter")
    # the process without events: e shows it, e hides it again
    press(win, "e", ["1 process without events shown"], "e shows the empty process")
    press(win, "e", ["1 process without events hidden"], "e hides it again")
    # a note: n, a click on "second" (the mouse is still over it), its text
    press(win, "n", ["note: click a time or drag over a range"], "n: the note waits for a place")
    xdo("click", "--window", win, "1")
    t = wait_title(win, ["note at ", " us: _"], "n + click: the note's time, its text box")
    at = note_times(t)
    report(at is not None and 500 <= at[0] <= 1000, "the note's time is inside the slice clicked",
           "title %r" % t)
    xdo("type", "--window", win, "warm up")
    wait_title(win, [" us: warm up_"], "the note's text is typed into the title")
    press(win, "Return", ["1 note"], "Enter adds the note")
    # a range: n and a drag over "second" from its middle to the right
    press(win, "n", ["note: click"], "n again")
    xdo("mousedown", "--window", win, "1")
    xdo("mousemove", "--window", win, "900", str(y))
    xdo("mouseup", "--window", win, "1")
    t = wait_title(win, [" us - ", " us: _"], "n + drag: the note's range")
    r = note_times(t)
    report(r is not None and at is not None and abs(r[0] - at[0]) < 2 and r[0] < r[1] <= 1000,
           "the range starts where the press was and ends inside the slice", "title %r" % t)
    xdo("type", "--window", win, "io")
    press(win, "Return", ["2 notes"], "Enter adds the range")
    xdo("key", "--window", win, "question")
p.send_signal(signal.SIGTERM)  # SDL turns it into a quit
try:
    out, err = p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    out, err = p.communicate()
report(p.returncode == 0, "closes cleanly (exit 0)", "exit %s: %s" % (p.returncode, err[-500:]))
own = own_leaks(err, root, strata)
report(not own, "no leaks in strata's code", "; ".join(own))
report("keys and mouse" in out, "? prints the key help", "stdout %r" % out[:200])
for k in ["  t    ", "  e    ", "  n    "]:
    report(k in out, "the key help lists " + k.strip(), "stdout %r" % out[:2000])
sys.exit(finish())
PY
