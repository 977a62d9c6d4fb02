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


class Xvfb:
    """A private X server for one test script: `with Xvfb() as env:` runs
    Xvfb with -displayfd, so the server itself picks a free display number
    (no race with another test's server, as `xvfb-run -a`'s lock-file guess
    has: CI once saw a window test connect to the display of the previous
    test's server, killed but not yet gone) and says it is ready by writing
    it; env is os.environ with DISPLAY set. On exit the server is stopped
    and waited for."""

    def __init__(self, screen="1280x1024x24"):
        self.screen = screen
        self.proc = None

    def __enter__(self):
        import subprocess
        r, w = os.pipe()
        self.proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(w), "-screen", "0", self.screen, "-nolisten", "tcp"],
            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(w)
        with os.fdopen(r) as f:
            num = f.readline().strip()  # empty if the server failed to start
        if not num.isdigit():
            err = self.proc.stderr.read().decode(errors="replace") if self.proc.poll() is not None else ""
            self.__exit__(None, None, None)
            raise RuntimeError("Xvfb did not start: " + err.strip()[-300:])
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
        env["DISPLAY"] = ":" + num
        return env

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except Exception:
                self.proc.kill()
                self.proc.wait()
        return False
