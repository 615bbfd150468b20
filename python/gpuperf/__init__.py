"""gpuperf: analytic GPU kernel performance prediction.

    import gpuperf
    r = gpuperf.predict("trace.traceg", "a100")
    r.time_us, r.bottleneck, r.to_dataframe(), r.per_pc(), r.plot_roofline()
    gpuperf.what_if("trace.traceg", "h100", sm_clock_mhz=1400, dram_bandwidth_gbs=2000)
    gpuperf.sweep("trace.traceg", "a100", dram_bandwidth_gbs=[1000, 1555, 2039], sms=[54, 108])
    gpuperf.sweep_many(["a.traceg", "b.traceg"], "h100", executor=client.get_executor(), sm_clock_mhz=[1200, 1600])

Every core is used by default (n_jobs); sweep, compare, predict_many and sweep_many also take any
concurrent.futures.Executor (a process pool, or a Dask cluster's client.get_executor()).

Traces are recognised by content: Accel-Sim .trace/.traceg (+.xz/.gz/.zst) and kernelslist,
PPT-GPU folders, Nsight Compute source+raw CSV pages, SASS listings.
"""
from __future__ import annotations

import collections
import html
import itertools
import json
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

try:
    from . import _core
except ImportError as e:  # pragma: no cover - only when the extension is missing
    raise ImportError(
        "gpuperf's compiled core (_core) is missing; install the package with `pip install .` "
        "from the repository root rather than importing the source folder"
    ) from e

__version__ = _core.__version__
# The version reports carry as tool_version, as the CLI prints it: with the git describe of the build.
TOOL_VERSION = f"{__version__} (git {_core.build_describe})" if _core.build_describe else __version__

Error = _core.Error
ParseError = _core.ParseError
IoError = _core.IoError
FormatError = _core.FormatError
TableError = _core.TableError
UnknownGpuError = _core.UnknownGpuError
ArgumentError = _core.ArgumentError
UnknownKernelError = _core.UnknownKernelError
ModelError = _core.ModelError

_PKG_TABLES = os.path.join(os.path.dirname(__file__), "latency_tables")
_tables_cache: Dict[tuple, Any] = {}

# What-if knobs accepted by what_if()/sweep() (l2_mib is converted to bytes).
KNOBS = tuple(_core.GpuSpec.knobs())


def tables(dirs: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]] = ()) -> "_core.Tables":
    """Latency tables: `dirs` first, then $GPUPERF_TABLES, the user config dir, the shipped ones."""
    shipped = _PKG_TABLES if os.path.isdir(_PKG_TABLES) else ""
    dirs = _path_list(dirs, "tables_dirs")
    search = _core.Tables.default_search_path(dirs, shipped)
    key = tuple(search)  # the resolved path: a changed $GPUPERF_TABLES or user dir is a new key
    if key not in _tables_cache:
        _tables_cache[key] = _core.Tables.load(dirs, shipped)
    return _tables_cache[key]


_tables_validated: set = set()


def _checked_tables(dirs) -> "_core.Tables":
    """tables(dirs) for predictions: what check_tables() reports is refused (TableError), as
    `gpuperf report --tables` refuses what `gpuperf tables check` rejects."""
    t = tables(dirs)
    key = tuple(t.search_path)
    if key not in _tables_validated:
        t.validate()
        _tables_validated.add(key)
    return t


def gpu_spec(gpu: Union[str, "_core.GpuSpec"] = "a100", tables_dirs: Sequence[str] = (), **what_if: float) -> "_core.GpuSpec":
    """A GPU from the catalog with what-if changes applied (sm_clock_mhz=..., sms=..., l2_mib=...)."""
    spec = gpu.copy() if isinstance(gpu, _core.GpuSpec) else _core.GpuSpec.from_catalog(_checked_tables(tables_dirs), gpu)
    for k, v in what_if.items():
        if v is not None:
            try:
                x = float(v)
            except (TypeError, ValueError, OverflowError):
                raise ArgumentError(f"{k} must be a number, got {v!r}") from None
            spec.set(k, x)
    return spec


def _jobs(n_jobs: Optional[int]) -> int:
    """n_jobs as the C++ core takes it: None or -1 is every core (0 there), else a count >= 1."""
    if n_jobs is None or n_jobs == -1:
        return 0
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1:
        raise ArgumentError(f"n_jobs must be a whole number >= 1, or None or -1 for every core; got {n_jobs!r}")
    return n_jobs


def _path_list(paths, what: str = "paths") -> List[str]:
    """Paths as str, as os.fsdecode spells them: a name that is not UTF-8 (bytes, or str with
    surrogate escapes) names the same file when the C++ core opens it."""
    try:
        items = [paths] if isinstance(paths, (str, bytes, os.PathLike)) else list(paths)
        return [os.fsdecode(os.fspath(p)) for p in items]
    except TypeError:
        raise ArgumentError(f"{what} must be a path (str, bytes or os.PathLike) or a sequence of paths, got {paths!r}") from None


def _tqdm():
    """tqdm's auto bar (a widget in Jupyter, text on a terminal) if tqdm is installed, else None."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm


class _ProgressBar:
    """A tqdm bar over the kernel files of a load, with the MB read of the file being read (and
    the text a compressed one gave); it appears only for loads that last over a second. The C++
    reader calls it (with the GIL) every few MB and after each kernel file."""

    def __init__(self):
        self._bar = None

    def __call__(self, done: int, total: int, read: int, size: int, decompressed: int) -> None:
        if self._bar is None:
            self._bar = _tqdm()(total=total or None, unit="kernel", desc="gpuperf: reading", delay=1.0, leave=False)
        if total:
            self._bar.total = total
        if done > self._bar.n:
            self._bar.update(done - self._bar.n)
        if size:
            post = f"{read / 1e6:.1f}/{size / 1e6:.1f} MB"
            if decompressed != read:
                post += f" ({decompressed / 1e6:.1f} MB decompressed)"
            self._bar.set_postfix_str(post, refresh=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


class Trace:
    """A loaded trace or profile: kernels analysed once, predicted for any GPU.

    n_jobs: kernel files read at once (None: every core); the result does not depend on it.
    progress: a tqdm progress bar over the kernel files (kernels read, MB read) when tqdm is
    installed, shown for loads over a second; False: none. Nothing is printed without tqdm.
    A Trace pickles as its paths: unpickled (in a worker process, say) it is loaded again,
    once per process, through the cache that load() uses."""

    def __init__(self, paths: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]], n_jobs: Optional[int] = None,
                 progress: Optional[bool] = None):
        self.paths = _path_list(paths)
        bar = _ProgressBar() if progress is not False and _tqdm() is not None else None
        try:
            self._s = _core.Session(self.paths, _jobs(n_jobs), bar)
        finally:
            if bar is not None:
                bar.close()

    def __reduce__(self):
        return (_cached_trace, (tuple(self.paths),))

    def __len__(self) -> int:
        return len(self._s)

    @property
    def kernel_names(self) -> List[str]:
        """The kernels' display (demangled) names, in launch order: entry i is launch id i + 1."""
        return self._s.kernel_names()

    @property
    def measured_time_us(self) -> List[Optional[float]]:
        """Times the input itself carries (ncu exports); for comparison only, never a model input."""
        return self._s.measured_time_us()

    def select(self, kernel: Union[None, str, int] = None, launch_skip: int = 0, launch_count: Optional[int] = None) -> List[int]:
        """0-based indices of the kernels a selector picks: a launch id (1-based position in the
        input, an int or digits) or a regular expression searched in the names; [] for all.
        launch_skip/launch_count then window the matching launches as ncu's options do."""
        for name, v in (("launch_skip", launch_skip), ("launch_count", launch_count)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise ArgumentError(f"{name} must be a whole number, got {v!r}")
        if launch_skip < 0 or (launch_count is not None and launch_count < 1):
            raise ArgumentError(f"launch_skip must be >= 0 and launch_count >= 1, got {launch_skip} and {launch_count}")
        if kernel is None and not launch_skip and launch_count is None:
            return []
        idx = list(range(len(self))) if kernel is None else self._s.select(str(kernel))
        idx = idx[launch_skip:None if launch_count is None else launch_skip + launch_count]
        if not idx:
            raise UnknownKernelError(f"no kernel in the launch window (launch_skip {launch_skip}, launch_count {launch_count}) "
                                f"of the {len(self)} launches")
        return idx

    def __repr__(self) -> str:
        return f"<gpuperf.Trace {len(self)} kernel(s) from {', '.join(self.paths)}>"


# Traces loaded from paths, kept for the next call with the same inputs, so what_if(path, ...)
# in a loop parses its input once. The key is every file the load reads, each with its
# modification time and size: a file changed on disk is read again. The last _CACHE_SIZE traces
# are kept; clear_cache() drops them.
_CACHE_SIZE = 4
_cache: "collections.OrderedDict[tuple, Trace]" = collections.OrderedDict()
_cache_lock = threading.Lock()
_cache_stats = {"loads": 0, "hits": 0}


def _input_signature(paths: Sequence[str]) -> tuple:
    """(path, mtime_ns, size) of every file a load of `paths` reads: folders walked, a
    kernelslist's kernel files included. A missing file is keyed as missing."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs.sort()
                files.extend(os.path.join(root, n) for n in sorted(names))
        else:
            files.append(p)
            try:
                files.extend(_core.listed_kernel_files(p))
            except (OSError, ValueError):
                pass  # the load itself reports it
    sig = []
    for f in files:
        try:
            st = os.stat(f)
            sig.append((os.path.abspath(f), st.st_mtime_ns, st.st_size))
        except OSError:
            sig.append((os.path.abspath(f), None, None))
    return (tuple(os.path.abspath(p) for p in paths), tuple(sig))


def _cached_trace(paths) -> Trace:
    """The Trace of `paths`, loaded once while its files are unchanged (see _CACHE_SIZE)."""
    paths = _path_list(paths)
    key = _input_signature(paths)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            _cache_stats["hits"] += 1
            return _cache[key]
    t = Trace(paths)  # outside the lock: loading releases the GIL and may take long
    with _cache_lock:
        _cache_stats["loads"] += 1
        _cache[key] = t
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return t


def clear_cache() -> None:
    """Forget the traces that functions given a path have kept (see load)."""
    with _cache_lock:
        _cache.clear()


def cache_info() -> Dict[str, int]:
    """How often traces were loaded from paths and how often a kept one was reused, in this
    process (a Dask worker answers for itself through client.run(gpuperf.cache_info))."""
    with _cache_lock:
        return {"loads": _cache_stats["loads"], "hits": _cache_stats["hits"], "entries": len(_cache)}


def load(paths) -> Trace:
    """Load a trace/profile (path, folder or list of paths); a Trace is returned as it is.

    Paths are loaded once while their files are unchanged: a later call (predict, what_if,
    sweep, compare given the same paths) reuses the loaded trace if every file it read has the
    same modification time and size. The last 4 are kept; clear_cache() drops them, and
    Trace(paths) always reads the files again."""
    return paths if isinstance(paths, Trace) else _cached_trace(paths)


@dataclass
class KernelResult:
    """One kernel's prediction; `data` is the JSON report (schema gpuperf.report/1)."""

    data: Dict[str, Any]
    measured_time_us: Optional[float] = None

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__.get("data", {})
        if name in d:
            return d[name]
        raise AttributeError(name)

    @property
    def stalls(self) -> Dict[str, float]:
        """Predicted stall cycles by cause."""
        return self.data["stalls_cycles"]

    def per_pc(self):
        """One row per instruction (PC): executions, latency, issue interval, stalls per execution by cause,
        and the CUDA source_file and source_line where the input carries line info (a -lineinfo
        nvdisasm listing, an Accel-Sim trace with lineinfo: line only), else None/<NA>."""
        import pandas as pd

        rows = []
        for p in self.data["per_pc"]:
            row = {k: v for k, v in p.items() if k not in ("stalls_per_execution", "source_file", "source_line")}
            row["source_file"] = p.get("source_file")
            row["source_line"] = p.get("source_line")
            row.update({f"stall_{k}": v for k, v in p["stalls_per_execution"].items()})
            rows.append(row)
        df = pd.DataFrame(rows)
        if "source_line" in df:
            df["source_line"] = df["source_line"].astype("Int64")
        return df


# GpuSpec values a prediction depends on, recorded with every result.
_SPEC_VALUES = ("sms", "sm_clock_mhz", "dram_bandwidth_gbs", "dram_efficiency", "l2_bytes", "l2_bandwidth_gbs",
                "l1_hit_latency", "l2_hit_latency", "dram_latency", "shared_latency", "launch_overhead_us")


def _settings(spec: "_core.GpuSpec", what_if: Dict[str, float], mode: str, warm_l2: bool) -> Dict[str, Any]:
    """What produced a prediction: the GPU's values after the what-if changes, and the options."""
    return {"gpu": spec.name, "arch": spec.arch, "spec": {k: getattr(spec, k) for k in _SPEC_VALUES},
            "what_if": {k: float(v) for k, v in what_if.items() if v is not None}, "mode": mode, "warm_l2": bool(warm_l2)}


@dataclass
class Result:
    """Predictions for every selected kernel of a trace on one GPU.

    `report` is the JSON report (schema gpuperf.report/1) plus `settings`: the GPU spec values,
    what-if changes, mode and warm_l2 the prediction was made with."""

    report: Dict[str, Any]
    kernels: List[KernelResult] = field(default_factory=list)

    @property
    def settings(self) -> Dict[str, Any]:
        """The GPU spec values, what-if changes, mode and warm_l2 this result was predicted with."""
        return self.report.get("settings", {})

    @property
    def gpu(self) -> str:
        """The GPU's catalog name."""
        return self.report["gpu"]

    @property
    def time_us(self) -> float:
        """Predicted time of all selected kernels, in microseconds."""
        return self.report["total_time_us"]

    @property
    def cycles(self) -> float:
        """Predicted SM cycles of all selected kernels."""
        return sum(k.cycles for k in self.kernels)

    @property
    def bottleneck(self) -> str:
        """The bottleneck of the kernel that takes longest."""
        return max(self.kernels, key=lambda k: k.time_us).bottleneck if self.kernels else "none"

    def to_json(self) -> Dict[str, Any]:
        """The report as a JSON-ready dict, with the settings it was predicted with."""
        return self.report

    def to_dataframe(self):
        """One row per kernel: time, range, bottleneck, occupancy, hit rates, IPC, measured time
        (if the input had one), then the settings and GPU spec values it was predicted with."""
        import pandas as pd

        s = self.settings
        setting_cols = {"mode_requested": s.get("mode"), "warm_l2": s.get("warm_l2"), "target": s.get("target", "duration"), **s.get("spec", {})}
        rows = []
        for i, k in enumerate(self.kernels):
            d = k.data
            rows.append({
                "launch": d["launch_id"], "kernel": d["name"], "gpu": d["gpu"], "time_us": d["time_us"],
                "time_low_us": d["time_range_us"][0], "cycles": d["cycles"],
                # a lower bound (a cut trace) has no upper end: JSON's null, here infinity
                "time_high_us": float("inf") if d["time_range_us"][1] is None else d["time_range_us"][1],
                "time_is_lower_bound": d.get("time_is_lower_bound", False),
                "bottleneck": d["bottleneck"], "mode": d["mode"], "occupancy": d["occupancy"]["occupancy"],
                "l1_hit_rate": d["memory"]["l1_hit_rate"], "l2_hit_rate": d["memory"]["l2_hit_rate"],
                "dram_bytes": d["memory"]["dram_read_bytes"] + d["memory"]["dram_write_bytes"], "ipc": d["instructions"]["ipc"],
                "gflops": d["roofline"]["achieved_gflops"], "measured_time_us": k.measured_time_us, **setting_cols,
            })
        return pd.DataFrame(rows)

    def per_pc(self):
        """Every kernel's per-PC table, with a `launch` column first."""
        import pandas as pd

        frames = []
        for k in self.kernels:
            f = k.per_pc()
            f.insert(0, "launch", k.launch_id)
            frames.append(f)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def plot_roofline(self, ax=None):
        """Roofline plot of the kernels on this GPU (matplotlib Axes; draws into `ax` if given)."""
        from .plots import roofline

        return roofline(self, ax=ax)

    def plot_stalls(self, ax=None, top: int = 12):
        """Bar chart of the `top` stall causes per kernel (matplotlib Axes)."""
        from .plots import stall_breakdown

        return stall_breakdown(self, ax=ax, top=top)

    def _repr_html_(self) -> str:
        df = self.to_dataframe()
        cols = ["launch", "kernel", "time_us", "bottleneck", "occupancy", "l1_hit_rate", "l2_hit_rate", "ipc"]
        if df["measured_time_us"].notna().any():
            cols.append("measured_time_us")
        warn = sorted({w for k in self.kernels for w in k.warnings})
        warn_html = "".join(f"<li>{html.escape(w)}</li>" for w in warn[:8])
        return (f"<div><b>gpuperf</b> on <b>{html.escape(self.gpu)}</b>: {len(self.kernels)} kernel(s), "
                f"<b>{self.time_us:.2f} us</b> total, bottleneck <b>{html.escape(self.bottleneck)}</b>"
                + df[cols].to_html(index=False, float_format=lambda v: f"{v:.3g}")
                + (f"<ul>{warn_html}</ul>" if warn_html else "") + "</div>")

    def __repr__(self) -> str:
        return f"<gpuperf.Result {self.gpu}: {len(self.kernels)} kernel(s), {self.time_us:.2f} us, bottleneck {self.bottleneck}>"


def predict(trace, gpu: Union[str, "_core.GpuSpec"] = "a100", kernel: Union[None, str, int] = None, mode: str = "auto",
            per_pc: bool = True, tables_dirs: Sequence[str] = (), warm_l2: bool = False, launch_skip: int = 0,
            launch_count: Optional[int] = None, target: str = "duration", **what_if: float) -> Result:
    """Predict every kernel of `trace` (a path or a loaded Trace) on `gpu`.

    kernel: a launch id (1-based position in the input) or a name regex; launch_skip and
    launch_count then window the matching launches (as ncu's --launch-skip/--launch-count).

    warm_l2: the kernel's data are in L2 at launch (a kernel timed in a loop); False models a
    profiler's cold run (ncu flushes caches before each launch).

    target: "duration", the kernel's own time as a profiler reports it, or "back-to-back", the
    time per launch of launches in a loop as CUDA events report it (warm L2); each has its own
    launch term, and each kernel's "target" says which was predicted."""
    t = load(trace)
    spec = gpu_spec(gpu, tables_dirs, **what_if)
    which = t.select(kernel, launch_skip, launch_count)
    rep = json.loads(t._s.predict_json(spec, mode, bool(per_pc), which, bool(warm_l2), target))
    rep["settings"] = {**_settings(spec, what_if, mode, warm_l2), "target": target}
    rep["tool_version"] = TOOL_VERSION
    measured = t.measured_time_us
    idx = which or list(range(len(t)))
    ks = [KernelResult(k, measured[i]) for k, i in zip(rep["kernels"], idx)]
    return Result(rep, ks)


def what_if(trace, gpu: Union[str, "_core.GpuSpec"] = "a100", kernel: Union[None, str, int] = None, mode: str = "auto",
            warm_l2: bool = False, launch_skip: int = 0, launch_count: Optional[int] = None, target: str = "duration",
            **changes: float) -> Result:
    """predict() with GPU changes: sm_clock_mhz, sms, dram_bandwidth_gbs, l2_mib, latencies, ...

    The changes must be names from KNOBS (an unknown one raises ArgumentError, a ValueError)."""
    unknown = set(changes) - set(KNOBS)
    if unknown:
        raise ArgumentError(f"unknown what-if setting(s) {sorted(unknown)}; known: {', '.join(KNOBS)}")
    return predict(trace, gpu, kernel=kernel, mode=mode, per_pc=False, warm_l2=warm_l2, launch_skip=launch_skip,
                   launch_count=launch_count, target=target, **changes)


def _grid_points(grids: Dict[str, Iterable[float]]) -> Tuple[List[str], List[tuple]]:
    unknown = set(grids) - set(KNOBS)
    if unknown:
        raise ArgumentError(f"unknown sweep parameter(s) {sorted(unknown)}; known: {', '.join(KNOBS)}")
    keys = list(grids)
    values = []
    for k in keys:
        if isinstance(grids[k], (str, bytes)):
            raise ArgumentError(f"sweep parameter {k} must be a sequence of numbers, got {grids[k]!r}")
        try:
            values.append(list(grids[k]))
        except TypeError:
            raise ArgumentError(f"sweep parameter {k} must be a sequence of numbers, got {grids[k]!r}") from None
    return keys, list(itertools.product(*values))


def _number(key: str, v) -> float:
    try:
        return float(v)
    except (TypeError, ValueError, OverflowError):
        raise ArgumentError(f"{key} must be a number, got {v!r}") from None


def _sweep_frame(t: Trace, gpu, keys: List[str], points: List[tuple], which: List[int], mode: str, warm_l2: bool, jobs: int,
                 exact: bool, label: Optional[str] = None, target: str = "duration"):
    """One row per point and kernel (points in order, kernels in order within a point): the
    specs built and predicted in one C++ call on `jobs` threads, the frame built by column."""
    import pandas as pd

    idx = which or list(range(len(t)))
    nk = len(idx)
    base = gpu_spec(gpu)
    if any(v is None for p in points for v in p):  # None leaves a knob as it is: a spec per point, built here
        specs = [gpu_spec(gpu, **dict(zip(keys, values))) for values in points]
        flat = [x for sp in specs for x in t._s.sweep_times(sp, [], [], 1, mode, which, bool(warm_l2), jobs, bool(exact), target)[0]]
    else:
        columns = [[_number(k, p[j]) for p in points] for j, k in enumerate(keys)]
        flat = t._s.sweep_times(base, keys, columns, len(points), mode, which, bool(warm_l2), jobs, bool(exact), target).reshape(-1)
    names, ids = t.kernel_names, t._s.launch_ids()
    data: Dict[str, Any] = {}
    if label is not None:
        data["trace"] = [label] * (len(points) * nk)
    for j, k in enumerate(keys):
        data[k] = [p[j] for p in points for _ in range(nk)]
    data["gpu"] = [base.name] * (len(points) * nk)
    data["launch"] = [ids[i] for i in idx] * len(points)
    data["kernel"] = [names[i] for i in idx] * len(points)
    data["time_us"] = flat
    data["mode_requested"] = [mode] * (len(points) * nk)
    data["warm_l2"] = [bool(warm_l2)] * (len(points) * nk)
    data["target"] = [target] * (len(points) * nk)
    return pd.DataFrame(data)


def _sweep_task(trace, gpu, keys, points, kernel, mode, warm_l2, launch_skip, launch_count, jobs, label=None, exact=False,
                target="duration"):
    """One executor task: a trace (loaded once per process, see load) over some grid points."""
    t = load(trace)
    return _sweep_frame(t, gpu, keys, points, t.select(kernel, launch_skip, launch_count), mode, warm_l2, jobs, exact, label, target)


def _executor_width(executor) -> int:
    """How many tasks an executor runs at once, where it says (else this machine's cores)."""
    for attr in ("_max_workers",):
        n = getattr(executor, attr, None)
        if isinstance(n, int) and n > 0:
            return n
    client = getattr(executor, "_client", None) or (executor if hasattr(executor, "nthreads") else None)
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:  # pragma: no cover - a client that cannot answer
            pass
    return os.cpu_count() or 1


def _chunks(items: List[Any], n: int) -> List[List[Any]]:
    """`items` cut into at most n runs of consecutive items (order kept)."""
    n = max(1, min(n, len(items)))
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for c in range(n):
        end = start + size + (1 if c < extra else 0)
        out.append(items[start:end])
        start = end
    return [c for c in out if c]


def sweep(trace, gpu: str = "a100", kernel=None, mode: str = "auto", warm_l2: bool = False, launch_skip: int = 0,
          launch_count: Optional[int] = None, n_jobs: Optional[int] = None, executor=None, exact: bool = False,
          target: str = "duration", **grids: Iterable[float]):
    """Predict over the cartesian product of parameter grids; one DataFrame row per point and kernel.

    n_jobs: threads for the predictions (None: every core). executor: any
    concurrent.futures.Executor (or a Dask client); the grid is cut into one chunk per worker,
    each chunk a task that loads the trace once per process (a Trace is sent as its paths).
    Rows, and every value in them, are the same whichever is used.

    A sweep does not replay warps for every point: each round of CTAs is computed at fixed DRAM
    latencies (in SM cycles, 2.2 % apart) and interpolated between the two around a point's, so a
    clock or bandwidth sweep re-uses a handful of rounds (kept with the trace for later sweeps).
    The times are within the error bench/what_if_error.py measures of predict()'s (README, Speed),
    and equal to them where a point's latency is a node. exact=True computes every point's
    rounds as predict() does. target: as in predict() ("duration" or "back-to-back"), in a
    `target` column."""
    keys, points = _grid_points(grids)
    jobs = _jobs(n_jobs)
    if executor is None:
        t = load(trace)
        return _sweep_frame(t, gpu, keys, points, t.select(kernel, launch_skip, launch_count), mode, warm_l2, jobs, exact, None, target)
    ref = trace if isinstance(trace, Trace) else _path_list(trace)
    per_task = 1 if n_jobs is None else jobs  # the executor's workers are the parallelism
    futures = [executor.submit(_sweep_task, ref, gpu, keys, chunk, kernel, mode, warm_l2, launch_skip, launch_count, per_task,
                               None, exact, target)
               for chunk in _chunks(points, _executor_width(executor))]
    frames = [f.result() for f in futures]
    if not frames:  # an empty grid still checks the selection, as the serial path does
        t = load(trace)
        return _sweep_frame(t, gpu, keys, [], t.select(kernel, launch_skip, launch_count), mode, warm_l2, jobs, exact, None, target)
    return _concat(frames)


def _concat(frames):
    import pandas as pd

    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def _compare_frames(t: Trace, gpus, kernel, mode, warm_l2, launch_skip, launch_count, what_if, jobs, target="duration"):
    """One DataFrame per GPU, the predictions in one C++ call on `jobs` threads."""
    specs = [gpu_spec(g, **what_if) for g in gpus]
    which = t.select(kernel, launch_skip, launch_count)
    idx = which or list(range(len(t)))
    measured = t.measured_time_us
    frames = []
    for spec, text in zip(specs, t._s.predict_json_many(specs, mode, False, which, bool(warm_l2), jobs, target)):
        rep = json.loads(text)
        rep["settings"] = {**_settings(spec, what_if, mode, warm_l2), "target": target}
        rep["tool_version"] = TOOL_VERSION
        frames.append(Result(rep, [KernelResult(k, measured[i]) for k, i in zip(rep["kernels"], idx)]).to_dataframe())
    return frames


def _compare_task(trace, gpus, kernel, mode, warm_l2, launch_skip, launch_count, what_if, jobs, label=None, target="duration"):
    frames = _compare_frames(load(trace), gpus, kernel, mode, warm_l2, launch_skip, launch_count, what_if, jobs, target)
    if label is not None:
        for f in frames:
            f.insert(0, "trace", label)
    return frames


def compare(trace, gpus: Sequence[Union[str, "_core.GpuSpec"]], kernel: Union[None, str, int] = None, mode: str = "auto",
            warm_l2: bool = False, launch_skip: int = 0, launch_count: Optional[int] = None, n_jobs: Optional[int] = None,
            executor=None, target: str = "duration", **what_if: float):
    """One trace on several GPUs (the same what-if changes applied to each): a DataFrame of
    per-kernel times and bottlenecks, one row per kernel and GPU, with the settings used.

    n_jobs: threads (None: every core); executor: any concurrent.futures.Executor, one task per
    GPU (GPUs then given by catalog name, which pickles). The rows are the same either way.
    target: as in predict() ("duration" or "back-to-back")."""
    import pandas as pd

    jobs = _jobs(n_jobs)
    if executor is None:
        return pd.concat(_compare_frames(load(trace), list(gpus), kernel, mode, warm_l2, launch_skip, launch_count, what_if, jobs, target),
                         ignore_index=True)
    ref = trace if isinstance(trace, Trace) else _path_list(trace)
    per_task = 1 if n_jobs is None else jobs
    futures = [executor.submit(_compare_task, ref, [g], kernel, mode, warm_l2, launch_skip, launch_count, what_if, per_task, None, target)
               for g in gpus]
    return pd.concat([f for fut in futures for f in fut.result()], ignore_index=True)


def _trace_label(trace) -> str:
    """A trace's name in batch results: its path, or its paths joined by ';'."""
    paths = trace.paths if isinstance(trace, Trace) else _path_list(trace)
    return ";".join(paths)


def _trace_refs(traces) -> list:
    """A batch's traces: each a path, a list of paths (one input, e.g. ncu's two pages) or a Trace."""
    if isinstance(traces, (str, os.PathLike, Trace)):
        raise ArgumentError("traces must be a list of traces (paths, lists of paths or Trace objects); for one trace use "
                            "predict/compare/sweep")
    return [t if isinstance(t, Trace) else _path_list(t) for t in traces]


def _run_batch(tasks, executor):
    """Runs (fn, args) tasks on the executor, or here in order; results in task order."""
    if executor is None:
        return [fn(*args) for fn, args in tasks]
    futures = [executor.submit(fn, *args) for fn, args in tasks]
    return [f.result() for f in futures]


def predict_many(traces: Sequence[Any], gpus: Sequence[Union[str, "_core.GpuSpec"]], kernel: Union[None, str, int] = None,
                 mode: str = "auto", warm_l2: bool = False, launch_skip: int = 0, launch_count: Optional[int] = None,
                 n_jobs: Optional[int] = None, executor=None, target: str = "duration", **what_if: float):
    """Several traces on several GPUs: compare() for each trace, as one tidy DataFrame with a
    `trace` column first (one row per trace, GPU and kernel, in that order).

    Without an executor the traces are done in turn, each on n_jobs threads (None: every core).
    With one (any concurrent.futures.Executor, or a Dask client), each trace is one task that
    loads it once; GPUs are then given by catalog name. The rows are the same either way.
    target: as in predict()."""
    import pandas as pd

    refs = _trace_refs(traces)
    jobs = _jobs(n_jobs)
    per_task = jobs if executor is None or n_jobs is not None else 1
    if executor is None:
        frames = []
        for ref in refs:  # each trace loaded fresh and dropped after its GPUs (no cache churn)
            t = ref if isinstance(ref, Trace) else Trace(ref, n_jobs)
            frames.extend(_compare_task(t, list(gpus), kernel, mode, warm_l2, launch_skip, launch_count, what_if, per_task,
                                        _trace_label(ref), target))
    else:
        tasks = [(_compare_task, (ref, list(gpus), kernel, mode, warm_l2, launch_skip, launch_count, what_if, per_task,
                                  _trace_label(ref), target)) for ref in refs]
        frames = [f for fs in _run_batch(tasks, executor) for f in fs]
    if not frames:
        return pd.DataFrame()
    df = pd.concat(frames, ignore_index=True)
    # One dtype whatever mix of inputs: traces carry no measured time (NaN), ncu profiles do.
    df["measured_time_us"] = df["measured_time_us"].astype(float)
    return df


def sweep_many(traces: Sequence[Any], gpu: str = "a100", kernel=None, mode: str = "auto", warm_l2: bool = False,
               launch_skip: int = 0, launch_count: Optional[int] = None, n_jobs: Optional[int] = None, executor=None,
               chunks_per_trace: int = 1, parquet: Optional[Union[str, os.PathLike]] = None, exact: bool = False,
               target: str = "duration", **grids: Iterable[float]):
    """A corpus of traces x a what-if grid: sweep() of every trace, as one tidy DataFrame with a
    `trace` column first (one row per trace, grid point and kernel, in that order).

    executor: any concurrent.futures.Executor, or a Dask cluster's client (or
    client.get_executor()). Each trace's grid is cut into `chunks_per_trace` tasks; each task
    loads its trace once per worker process (with 1, the default, each trace is loaded exactly
    once in the whole cluster) and runs its points on n_jobs threads (default 1 per task with an
    executor, every core without). parquet: also write the frame there (needs pyarrow).
    exact, target: as in sweep(). The rows are the same whichever executor, chunking and n_jobs are used."""
    import pandas as pd

    if parquet is not None:
        try:
            import pyarrow  # noqa: F401
        except ImportError as e:
            raise ImportError("writing Parquet needs pyarrow: pip install 'gpuperf[parquet]' (or pyarrow)") from e
    if not isinstance(chunks_per_trace, int) or chunks_per_trace < 1:
        raise ArgumentError(f"chunks_per_trace must be a whole number >= 1, got {chunks_per_trace!r}")
    refs = _trace_refs(traces)
    keys, points = _grid_points(grids)
    jobs = _jobs(n_jobs)
    per_task = jobs if executor is None or n_jobs is not None else 1
    tasks = []
    for ref in refs:
        for chunk in _chunks(points, chunks_per_trace) or [[]]:
            tasks.append((_sweep_task, (ref, gpu, keys, chunk, kernel, mode, warm_l2, launch_skip, launch_count, per_task,
                                        _trace_label(ref), exact, target)))
    if executor is None:
        frames = []
        for ref in refs:  # each trace loaded fresh and dropped after its points (no cache churn)
            t = ref if isinstance(ref, Trace) else Trace(ref, n_jobs)
            frames.append(_sweep_task(t, gpu, keys, points, kernel, mode, warm_l2, launch_skip, launch_count, per_task,
                                      _trace_label(ref), exact, target))
    else:
        frames = _run_batch(tasks, executor)
    cols = ["trace", *keys, "gpu", "launch", "kernel", "time_us", "mode_requested", "warm_l2", "target"]
    df = _concat(frames) if frames else pd.DataFrame([], columns=cols)
    if parquet is not None:
        try:
            df.to_parquet(os.fspath(parquet), index=False)
        except OSError as e:
            raise IoError(f"{os.fsdecode(os.fspath(parquet))}: cannot write the Parquet file: {e}") from e
    return df


def gpus(tables_dirs: Sequence[str] = ()):
    """The GPU catalog as a DataFrame (values with their source keys)."""
    import pandas as pd

    return pd.DataFrame(json.loads(tables(tables_dirs).gpus_json()))


def check_tables(tables_dirs: Sequence[str] = ()) -> List[tuple]:
    """Problems found in the latency tables (empty when all are valid)."""
    return tables(tables_dirs).check()


__all__ = ["predict", "what_if", "sweep", "compare", "predict_many", "sweep_many", "clear_cache", "cache_info", "gpus", "load", "Trace", "Result", "KernelResult", "gpu_spec", "tables",
           "check_tables", "Error", "ParseError", "IoError", "FormatError", "TableError", "UnknownGpuError", "UnknownKernelError", "ArgumentError",
           "ModelError", "KNOBS", "__version__", "TOOL_VERSION"]
