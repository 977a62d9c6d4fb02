"""view_check.py: what the `strata view` tests (view_screenshot.sh,
view_window.sh) share: the pass / fail tally, the LeakSanitizer filter and a private X server.
(threads_tests.sh and manifest_tests.sh use the tally too.)

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



def x_answers(num, wait_s=60):
    """1 once the X server of display num accepts a client: its socket takes
    an X11 connection setup (no auth) and the server answers "success".
    Under load, a client started right after Xvfb reported its display
    (-displayfd) was seen to be refused (CI: SDL found no X display), so a
    test waits for this first."""
    import socket, struct, time
    end = time.time() + wait_s
    while time.time() < end:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(5)
                s.connect("/tmp/.X11-unix/X%s" % num)
                s.sendall(struct.pack("<BxHHHHxx", 0x6C, 11, 0, 0, 0))  # little-endian, X11.0, no auth
                if s.recv(1) == b"\x01":
                    return 1
        except OSError:
            pass
        time.sleep(0.05)
    return 0


def private_display(screen="1280x1024x24"):
    """Starts a private X server for this test script and returns os.environ
    with its DISPLAY. Xvfb runs with -displayfd, so the server itself picks
    a free display number (no race with another test's server, as `xvfb-run
    -a`'s lock-file guess has: CI once saw a window test connect to the
    display of the previous test's server, killed but not yet gone) and says
    it is ready by writing it. At exit the server is stopped and waited for."""
    import atexit, subprocess
    r, w = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", screen, "-nolisten", "tcp"],
                            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(w)
    with os.fdopen(r) as f:
        num = f.readline().strip()  # empty if the server failed to start

    def stop():
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    if not num.isdigit():
        stop()
        raise RuntimeError("Xvfb did not start: " + proc.stderr.read().decode(errors="replace").strip()[-300:])
    atexit.register(stop)
    if not x_answers(num):
        raise RuntimeError("Xvfb :%s does not answer a connection within 20 s" % num)
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    env["DISPLAY"] = ":" + num
    return env
