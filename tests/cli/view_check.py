"""view_check.py: what the `strata view` tests (view_screenshot.sh,
view_window.sh) share: the pass / fail tally, and the LeakSanitizer filter.

Under ASan, LeakSanitizer reports what the GL driver (Mesa, dlopen'd and
unloaded by SDL, so its frames are "<unknown module>") and libdbus keep at
exit: reported, not fatal (lsan_not_fatal); a leak with a frame of
strata's own code fails the case (own_leaks)."""
import os

passed = failed = 0


def report(ok, name, why=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))


def finish():
    """Prints the tally; the exit code."""
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def lsan_not_fatal():
    os.environ["LSAN_OPTIONS"] = os.environ.get("LSAN_OPTIONS", "") + ":exitcode=0"


def own_leaks(stderr, root, binary):
    """The first lines of the LeakSanitizer reports with a frame in strata's
    sources (under root) or its binary."""
    bad = []
    for block in stderr.split("\n\n"):
        if "leak of" not in block:
            continue
        frames = [l for l in block.splitlines() if l.strip().startswith("#")][1:]
        if any(root in f or os.path.basename(binary) + "+0x" in f for f in frames):
            bad.append(block.strip().splitlines()[0])
    return bad
