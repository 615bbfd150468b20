"""Every core and beyond one machine: n_jobs, executors and Dask give the serial results exactly;
what_if(path) loads its input once."""
import concurrent.futures as cf
import multiprocessing
import os
import pickle
import shutil

import pandas as pd
import pytest

import gpuperf
from conftest import DEVSAMPLE, ROOT

DATA = ROOT / "tests" / "data" / "h200" / "devsample"
TRACES = [str(DATA / "kernel-4.traceg.xz"), str(DATA / "kernel-20.traceg.xz"), str(DATA / "kernel-42.traceg.xz")]
GRID = {"sm_clock_mhz": [1200, 1600, 1980], "dram_bandwidth_gbs": [2000, 3350]}


def serial_sweep(path, gpu, **grid):
    """The sweep as a plain loop of predict() calls, one point at a time."""
    rows = []
    t = gpuperf.Trace(path, n_jobs=1)
    for clock in grid["sm_clock_mhz"]:
        for bw in grid["dram_bandwidth_gbs"]:
            r = gpuperf.predict(t, gpu, per_pc=False, sm_clock_mhz=clock, dram_bandwidth_gbs=bw)
            rows += [(clock, bw, k.launch_id, k.time_us) for k in r.kernels]
    return rows


def test_sweep_threads_give_the_serial_values_exactly():
    want = serial_sweep(TRACES[1], "h100", **GRID)
    for n_jobs in (1, 2, None):
        df = gpuperf.sweep(TRACES[1], "h100", n_jobs=n_jobs, exact=True, **GRID)
        assert list(zip(df.sm_clock_mhz, df.dram_bandwidth_gbs, df.launch, df.time_us)) == want
    # Interpolated rounds (the default): the same values on any number of threads, within 1 %
    # of the full simulation of every point.
    interpolated = [gpuperf.sweep(TRACES[1], "h100", n_jobs=n_jobs, **GRID) for n_jobs in (1, 2, None)]
    for df in interpolated[1:]:
        pd.testing.assert_frame_equal(df, interpolated[0], check_exact=True)
    df = interpolated[0]
    assert list(zip(df.sm_clock_mhz, df.dram_bandwidth_gbs, df.launch)) == [w[:3] for w in want]
    for got, (_, _, _, exact) in zip(df.time_us, want):
        assert got == pytest.approx(exact, rel=0.01)
    assert any(got != exact for got, (_, _, _, exact) in zip(df.time_us, want))  # interpolated, not simulated
    # 48 kernels x 6 points: predictions spread over (point, kernel) pairs.
    ncu = gpuperf.Trace(DEVSAMPLE)
    a = gpuperf.sweep(ncu, "a100", n_jobs=1, **GRID)
    b = gpuperf.sweep(ncu, "a100", n_jobs=2, **GRID)
    assert len(a) == 48 * 6
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_sweep_and_compare_take_any_executor():
    t = gpuperf.Trace(DEVSAMPLE)
    base = gpuperf.sweep(t, "h200", kernel="sgemm", n_jobs=1, **GRID)
    cmp_base = gpuperf.compare(t, ["h200", "a100", "t4"], kernel="sgemm", n_jobs=1, sms=60)
    with cf.ThreadPoolExecutor(2) as ex:
        pd.testing.assert_frame_equal(gpuperf.sweep(t, "h200", kernel="sgemm", executor=ex, **GRID), base, check_exact=True)
        pd.testing.assert_frame_equal(gpuperf.compare(t, ["h200", "a100", "t4"], kernel="sgemm", executor=ex, sms=60), cmp_base,
                                      check_exact=True)
    # A process pool: the Trace travels as its paths and each worker loads it once.
    with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as ex:
        pd.testing.assert_frame_equal(gpuperf.sweep(t, "h200", kernel="sgemm", executor=ex, **GRID), base, check_exact=True)
        pd.testing.assert_frame_equal(gpuperf.compare(DEVSAMPLE, ["h200", "a100", "t4"], kernel="sgemm", executor=ex, sms=60),
                                      cmp_base, check_exact=True)
    assert len(cmp_base) == 3 * len(t.select("sgemm"))


def test_compare_threads_equal_one_predict_per_gpu():
    t = gpuperf.Trace(DEVSAMPLE)
    df = gpuperf.compare(t, ["h200", "v100"], n_jobs=2, warm_l2=True)
    for gpu, part in df.groupby("gpu", sort=False):
        r = gpuperf.predict(t, part.gpu.iloc[0], per_pc=False, warm_l2=True)
        assert list(part.time_us) == [k.time_us for k in r.kernels]
    with pytest.raises(gpuperf.ArgumentError, match="n_jobs must be"):
        gpuperf.sweep(t, "h200", n_jobs=0, sms=[10])


def test_trace_pickles_as_its_paths():
    t = gpuperf.Trace(TRACES[0])
    u = pickle.loads(pickle.dumps(t))
    assert u.paths == t.paths
    assert gpuperf.predict(u, "h200").time_us == gpuperf.predict(t, "h200").time_us


def test_what_if_on_a_path_loads_it_once(tmp_path):
    gpuperf.clear_cache()
    path = str(tmp_path / "k.traceg.xz")
    shutil.copy(TRACES[1], path)
    before = gpuperf.cache_info()
    times = [gpuperf.what_if(path, "h100", sm_clock_mhz=c).time_us for c in (1200, 1400, 1600)]
    info = gpuperf.cache_info()
    assert info["loads"] - before["loads"] == 1 and info["hits"] - before["hits"] == 2
    assert times[0] > times[1] > times[2]
    # A changed file is read again.
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    gpuperf.what_if(path, "h100", sm_clock_mhz=1200)
    assert gpuperf.cache_info()["loads"] - before["loads"] == 2
    # A kernelslist depends on its kernel files too.
    shutil.copy(TRACES[0], tmp_path / "a.traceg.xz")
    (tmp_path / "kernelslist.g").write_text("a.traceg.xz\nk.traceg.xz\n")
    kl = str(tmp_path / "kernelslist.g")
    gpuperf.what_if(kl, "h100", sms=100)
    gpuperf.what_if(kl, "h100", sms=90)
    assert gpuperf.cache_info()["loads"] - before["loads"] == 3
    st = os.stat(tmp_path / "a.traceg.xz")
    os.utime(tmp_path / "a.traceg.xz", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    gpuperf.what_if(kl, "h100", sms=90)
    assert gpuperf.cache_info()["loads"] - before["loads"] == 4
    gpuperf.clear_cache()
    assert gpuperf.cache_info()["entries"] == 0


def test_predict_many_and_sweep_many_are_per_trace_results():
    traces = [TRACES[0], DEVSAMPLE, TRACES[2]]
    df = gpuperf.predict_many(traces, ["h200", "a100"], n_jobs=2)
    for tr in traces:
        label = tr if isinstance(tr, str) else ";".join(tr)
        part = df[df.trace == label].drop(columns="trace").reset_index(drop=True)
        want = gpuperf.compare(tr, ["h200", "a100"], n_jobs=1).astype({"measured_time_us": float})
        pd.testing.assert_frame_equal(part, want, check_exact=True)
    sw = gpuperf.sweep_many(TRACES, "h100", n_jobs=1, **GRID)
    assert list(sw.columns[:3]) == ["trace", "sm_clock_mhz", "dram_bandwidth_gbs"]
    for tr in TRACES:
        part = sw[sw.trace == tr].drop(columns="trace").reset_index(drop=True)
        pd.testing.assert_frame_equal(part, gpuperf.sweep(tr, "h100", n_jobs=1, **GRID), check_exact=True)
    with cf.ThreadPoolExecutor(2) as ex:
        pd.testing.assert_frame_equal(gpuperf.sweep_many(TRACES, "h100", executor=ex, chunks_per_trace=2, **GRID), sw,
                                      check_exact=True)
        pd.testing.assert_frame_equal(gpuperf.predict_many(traces, ["h200", "a100"], executor=ex), df, check_exact=True)
    with pytest.raises(gpuperf.ArgumentError, match="list of traces"):
        gpuperf.sweep_many(TRACES[0], "h100", sms=[10])


def test_sweep_many_parquet(tmp_path):
    out = tmp_path / "grid.parquet"
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="needs pyarrow"):
            gpuperf.sweep_many(TRACES[:1], "h100", parquet=out, sms=[66, 132])
        assert not out.exists()
        return
    df = gpuperf.sweep_many(TRACES[:1], "h100", parquet=out, sms=[66, 132])
    pd.testing.assert_frame_equal(pd.read_parquet(out), df)


def test_dask_local_cluster_spreads_traces_times_grid():
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (pip install 'gpuperf[dask]')")
    want = gpuperf.sweep_many(TRACES, "h100", n_jobs=1, **GRID)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        # One task per trace: each trace is loaded exactly once in the whole cluster.
        got = gpuperf.sweep_many(TRACES, "h100", executor=client.get_executor(), **GRID)
        pd.testing.assert_frame_equal(got, want, check_exact=True)
        loads = client.run(gpuperf.cache_info)
        assert sum(v["loads"] for v in loads.values()) == len(TRACES)
        # The client itself works as the executor, and a grid cut per trace gives the same rows.
        got2 = gpuperf.sweep_many(TRACES, "h100", executor=client, chunks_per_trace=3, **GRID)
        pd.testing.assert_frame_equal(got2, want, check_exact=True)
        many = gpuperf.predict_many(TRACES, ["h200", "t4"], executor=client.get_executor())
        pd.testing.assert_frame_equal(many, gpuperf.predict_many(TRACES, ["h200", "t4"], n_jobs=1), check_exact=True)
