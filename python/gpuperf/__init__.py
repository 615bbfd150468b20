"""gpuperf: analytic GPU kernel performance prediction.

    import gpuperf
    r = gpuperf.predict("trace.traceg", "a100")
    r.time_us, r.bottleneck, r.to_dataframe(), r.per_pc(), r.plot_roofline()
    gpuperf.what_if("trace.traceg", "h100", sm_clock_mhz=1400, dram_bandwidth_gbs=2000)
    gpuperf.sweep("trace.traceg", "a100", dram_bandwidth_gbs=[1000, 1555, 2039], sms=[54, 108])

Traces are recognised by content: Accel-Sim .trace/.traceg (+.xz/.gz/.zst) and kernelslist,
PPT-GPU folders, Nsight Compute source+raw CSV pages, SASS listings.
"""
from __future__ import annotations

import html
import itertools
import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

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
ModelError = _core.ModelError

_PKG_TABLES = os.path.join(os.path.dirname(__file__), "latency_tables")
_tables_cache: Dict[tuple, Any] = {}

# What-if knobs accepted by what_if()/sweep() (l2_mb is converted to bytes).
KNOBS = tuple(_core.GpuSpec.knobs())


def tables(dirs: Sequence[str] = ()) -> "_core.Tables":
    """Latency tables: `dirs` first, then $GPUPERF_TABLES, the user config dir, the shipped ones."""
    shipped = _PKG_TABLES if os.path.isdir(_PKG_TABLES) else ""
    search = _core.Tables.default_search_path(list(dirs), shipped)
    key = tuple(search)  # the resolved path: a changed $GPUPERF_TABLES or user dir is a new key
    if key not in _tables_cache:
        _tables_cache[key] = _core.Tables.load(list(dirs), shipped)
    return _tables_cache[key]


def gpu_spec(gpu: Union[str, "_core.GpuSpec"] = "a100", tables_dirs: Sequence[str] = (), **what_if: float) -> "_core.GpuSpec":
    """A GPU from the catalog with what-if changes applied (sm_clock_mhz=..., sms=..., l2_mb=...)."""
    spec = gpu.copy() if isinstance(gpu, _core.GpuSpec) else _core.GpuSpec.from_catalog(tables(tables_dirs), gpu)
    for k, v in what_if.items():
        if v is not None:
            spec.set(k, float(v))
    return spec


class Trace:
    """A loaded trace or profile: kernels analysed once, predicted for any GPU."""

    def __init__(self, paths: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]]):
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        self.paths = [os.fspath(p) for p in paths]
        self._s = _core.Session(self.paths)

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
        if launch_skip < 0 or (launch_count is not None and launch_count < 1):
            raise ArgumentError(f"launch_skip must be >= 0 and launch_count >= 1, got {launch_skip} and {launch_count}")
        if kernel is None and not launch_skip and launch_count is None:
            return []
        idx = list(range(len(self))) if kernel is None else self._s.select(str(kernel))
        idx = idx[launch_skip:None if launch_count is None else launch_skip + launch_count]
        if not idx:
            raise ArgumentError(f"no kernel in the launch window (launch_skip {launch_skip}, launch_count {launch_count}) "
                                f"of the {len(self)} launches")
        return idx

    def __repr__(self) -> str:
        return f"<gpuperf.Trace {len(self)} kernel(s) from {', '.join(self.paths)}>"


def load(paths) -> Trace:
    """Load a trace/profile (path, folder or list of paths)."""
    return paths if isinstance(paths, Trace) else Trace(paths)


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
        """One row per instruction (PC): executions, latency, issue interval, stalls per execution by cause."""
        import pandas as pd

        rows = []
        for p in self.data["per_pc"]:
            row = {k: v for k, v in p.items() if k != "stalls_per_execution"}
            row.update({f"stall_{k}": v for k, v in p["stalls_per_execution"].items()})
            rows.append(row)
        return pd.DataFrame(rows)


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
        setting_cols = {"mode_requested": s.get("mode"), "warm_l2": s.get("warm_l2"), **s.get("spec", {})}
        rows = []
        for i, k in enumerate(self.kernels):
            d = k.data
            rows.append({
                "launch": d["launch_id"], "kernel": d["name"], "gpu": d["gpu"], "time_us": d["time_us"],
                "time_low_us": d["time_range_us"][0], "time_high_us": d["time_range_us"][1], "cycles": d["cycles"],
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
    rep = json.loads(t._s.predict_json(spec, mode, per_pc, which, warm_l2, target))
    rep["settings"] = {**_settings(spec, what_if, mode, warm_l2), "target": target}
    rep["tool_version"] = TOOL_VERSION
    measured = t.measured_time_us
    idx = which or list(range(len(t)))
    ks = [KernelResult(k, measured[i]) for k, i in zip(rep["kernels"], idx)]
    return Result(rep, ks)


def what_if(trace, gpu: Union[str, "_core.GpuSpec"] = "a100", kernel: Union[None, str, int] = None, mode: str = "auto",
            warm_l2: bool = False, launch_skip: int = 0, launch_count: Optional[int] = None, target: str = "duration",
            **changes: float) -> Result:
    """predict() with GPU changes: sm_clock_mhz, sms, dram_bandwidth_gbs, l2_mb, latencies, ...

    The changes must be names from KNOBS (an unknown one raises ArgumentError, a ValueError)."""
    unknown = set(changes) - set(KNOBS)
    if unknown:
        raise ArgumentError(f"unknown what-if setting(s) {sorted(unknown)}; known: {', '.join(KNOBS)}")
    return predict(trace, gpu, kernel=kernel, mode=mode, per_pc=False, warm_l2=warm_l2, launch_skip=launch_skip,
                   launch_count=launch_count, target=target, **changes)


def sweep(trace, gpu: str = "a100", kernel=None, mode: str = "auto", warm_l2: bool = False, launch_skip: int = 0,
          launch_count: Optional[int] = None, **grids: Iterable[float]):
    """Predict over the cartesian product of parameter grids; one DataFrame row per point and kernel."""
    import pandas as pd

    unknown = set(grids) - set(KNOBS)
    if unknown:
        raise ArgumentError(f"unknown sweep parameter(s) {sorted(unknown)}; known: {', '.join(KNOBS)}")
    t = load(trace)
    which = t.select(kernel, launch_skip, launch_count)
    idx = which or list(range(len(t)))
    names = t.kernel_names
    keys = list(grids)
    rows = []
    for values in itertools.product(*(list(grids[k]) for k in keys)):
        spec = gpu_spec(gpu, **dict(zip(keys, values)))
        times = t._s.predict_times(spec, mode, which, warm_l2)
        for i, tm in zip(idx, times):
            rows.append({**dict(zip(keys, values)), "gpu": spec.name, "launch": i + 1, "kernel": names[i], "time_us": tm,
                         "mode_requested": mode, "warm_l2": bool(warm_l2)})
    return pd.DataFrame(rows)


def compare(trace, gpus: Sequence[Union[str, "_core.GpuSpec"]], kernel: Union[None, str, int] = None, mode: str = "auto",
            warm_l2: bool = False, launch_skip: int = 0, launch_count: Optional[int] = None, **what_if: float):
    """One trace on several GPUs (the same what-if changes applied to each): a DataFrame of
    per-kernel times and bottlenecks, one row per kernel and GPU, with the settings used."""
    import pandas as pd

    t = load(trace)
    frames = [predict(t, g, kernel=kernel, mode=mode, per_pc=False, warm_l2=warm_l2, launch_skip=launch_skip,
                      launch_count=launch_count, **what_if).to_dataframe() for g in gpus]
    return pd.concat(frames, ignore_index=True)


def gpus(tables_dirs: Sequence[str] = ()):
    """The GPU catalog as a DataFrame (values with their source keys)."""
    import pandas as pd

    return pd.DataFrame(json.loads(tables(tables_dirs).gpus_json()))


def check_tables(tables_dirs: Sequence[str] = ()) -> List[tuple]:
    """Problems found in the latency tables (empty when all are valid)."""
    return tables(tables_dirs).check()


__all__ = ["predict", "what_if", "sweep", "compare", "gpus", "load", "Trace", "Result", "KernelResult", "gpu_spec", "tables",
           "check_tables", "Error", "ParseError", "IoError", "FormatError", "TableError", "UnknownGpuError", "ArgumentError",
           "ModelError", "KNOBS", "__version__", "TOOL_VERSION"]
