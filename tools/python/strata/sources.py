"""strata.sources: what the user hands show(), compare(), analyze() and
`python -m strata`, turned into a list of traces (name, bytes or path).

Accepted:
  a path to a file          that file
  a folder                  a TensorBoard/JAX logdir (it holds plugins/profile/<run>/,
                            or it is plugins/profile itself): its latest run's files
                            (run names are timestamps, so the last by name), or run=;
                            a profile run folder (<run>/*.xplane.pb): its files;
                            any other folder: every trace file under it, sub-folders
                            too (torch.profiler's tensorboard_trace_handler writes one
                            *.pt.trace.json per rank there), sorted by path
  bytes (bytes, bytearray,  one trace in memory
    memoryview)
  a torch.profiler.profile  exported with its export_chrome_trace() to a temporary
                            file (recognised by its class's module, torch is never
                            imported here)
  a list or tuple of these  all of them, in order

Which files of a folder are traces is decided by name (the viewer decides by
content, but a folder also holds TensorBoard's other files): in a profile run,
the *.xplane.pb files when there are any (older TensorFlow also wrote the same
trace as *.trace.json.gz), else its trace files. Standard library only.
"""
import os
import tempfile

__all__ = ["Trace", "resolve", "profile_runs"]

# Names of files that can be traces (the viewer reads them by content).
_TRACE_SUFFIXES = (".json", ".json.gz", ".xplane.pb", ".perfetto-trace", ".pftrace",
                   ".cpuprofile", ".trace", ".pb", ".gz")
# TensorBoard profile plugin files next to the trace that are not traces.
_NOT_TRACES = (".memory_profile.json.gz", ".input_pipeline.pb", ".overview_page.pb",
               ".tensorflow_stats.pb", ".kernel_stats.pb", ".pod_viewer.pb", ".op_profile.json")


class Trace:
    """One trace: a name (shown in the viewer) and either a path or bytes."""

    __slots__ = ("name", "path", "data")

    def __init__(self, name, path=None, data=None):
        self.name, self.path, self.data = name, path, data

    def read(self):
        if self.data is not None:
            return self.data
        with open(self.path, "rb") as f:
            return f.read()

    def __repr__(self):
        return f"Trace({self.name!r}, {self.path or f'<{len(self.data)} bytes>'!r})"


def _is_trace_name(name):
    n = name.lower()
    return n.endswith(_TRACE_SUFFIXES) and not n.endswith(_NOT_TRACES)


def _profile_dir(folder):
    """folder's plugins/profile (or folder itself when it is one), else None."""
    for d in (os.path.join(folder, "plugins", "profile"), folder):
        if os.path.basename(os.path.normpath(d)) == "profile" and \
                os.path.basename(os.path.dirname(os.path.normpath(d))) == "plugins" and os.path.isdir(d):
            return d
    return None


def profile_runs(logdir):
    """The profile runs of a TensorBoard/JAX logdir, oldest first (by name: JAX and
    TensorFlow name them by their start time, 2026_11_22_08_00_00)."""
    d = _profile_dir(os.fspath(logdir))
    if d is None:
        return []
    return sorted(e for e in os.listdir(d) if os.path.isdir(os.path.join(d, e)))


def _walk(folder):
    out = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        out.extend(os.path.join(root, f) for f in sorted(files) if _is_trace_name(f))
    return out


def _run_files(run_dir):
    files = _walk(run_dir)
    xplanes = [f for f in files if f.endswith(".xplane.pb")]
    return xplanes or files


def _folder(folder, run):
    prof = _profile_dir(folder)
    if prof is not None:
        runs = profile_runs(folder)
        if not runs:
            raise FileNotFoundError(f"{folder}: no profile run in {prof}")
        if run is None:
            run = runs[-1]
        elif run not in runs:
            raise FileNotFoundError(f"{folder}: no profile run {run!r} (runs: {', '.join(runs)})")
        files = _run_files(os.path.join(prof, run))
        where = os.path.join(prof, run)
    else:
        if run is not None:
            raise ValueError(f"run={run!r}: {folder} is not a TensorBoard logdir (no plugins/profile/)")
        files = _run_files(folder)
        where = folder
    if not files:
        raise FileNotFoundError(f"{where}: no trace files (*.xplane.pb, *.json, *.json.gz, ...)")
    return [Trace(os.path.basename(f), path=f) for f in files]


def _is_torch_profile(x):
    mod = type(x).__module__ or ""
    return (mod.startswith("torch.profiler") or mod.startswith("torch.autograd.profiler")) and \
        callable(getattr(x, "export_chrome_trace", None))


def _torch_profile(prof):
    fd, path = tempfile.mkstemp(prefix="strata-torch-", suffix=".pt.trace.json")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path, "rb") as f:
            data = f.read()
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    if not data:
        raise ValueError("the torch profile exported an empty trace (was the profile stopped?)")
    return Trace("torch-profile.pt.trace.json", data=data)


def resolve(x, run=None, name=None):
    """x (see the module doc) as a list of Trace. name= renames a single trace."""
    if isinstance(x, (list, tuple)):
        out = [t for item in x for t in resolve(item, run=run)]
    elif isinstance(x, (bytes, bytearray, memoryview)):
        out = [Trace("trace", data=bytes(x))]
    elif _is_torch_profile(x):
        out = [_torch_profile(x)]
    elif isinstance(x, (str, os.PathLike)):
        p = os.fspath(x)
        if os.path.isdir(p):
            out = _folder(p, run)
        elif os.path.isfile(p):
            out = [Trace(os.path.basename(p), path=os.path.abspath(p))]
        else:
            raise FileNotFoundError(f"{p}: no such file or folder")
    else:
        raise TypeError(f"strata: cannot show a {type(x).__name__} (a path, bytes, a folder, "
                        "a logdir, a torch.profiler.profile, or a list of them)")
    if not out:
        raise ValueError("strata: no trace given")
    if name and len(out) == 1:
        out[0].name = name
    return out
