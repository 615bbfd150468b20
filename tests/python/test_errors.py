"""Every exception that reaches Python is a gpuperf.Error subclass and the matching built-in
(ValueError for bad input or arguments, LookupError for an unknown GPU or kernel, OSError for
I/O), with a message naming the file; never RuntimeError, MemoryError, TypeError or
UnicodeDecodeError from the binding layer (issue 14)."""
import json
import math
import os
import shutil

import pytest

import gpuperf
from conftest import FIX, ROOT

V5 = FIX / "accelsim" / "v5_modes.traceg"


def raised(fn):
    """The exception fn raises (the test fails if it returns)."""
    with pytest.raises(BaseException) as e:
        fn()
    return e.value


def check(e, cls, builtin, *parts):
    assert isinstance(e, gpuperf.Error), f"{type(e).__name__} is not a gpuperf.Error: {e}"
    assert isinstance(e, cls) and isinstance(e, builtin), f"{type(e).__mro__} should be {cls.__name__} and {builtin.__name__}"
    for p in parts:
        assert p in str(e), f"{p!r} not in {str(e)!r}"


def non_utf8(tmp_path, name: bytes) -> str:
    """A path in tmp_path whose last component is `name` (not UTF-8), spelled as os.fsdecode does."""
    return os.fsdecode(os.path.join(os.fsencode(str(tmp_path)), name))


def test_a_missing_file_with_a_non_utf8_name_is_an_io_error(tmp_path):
    # The name used to be refused by the binding with a TypeError ("incompatible function
    # arguments"), or its message raised UnicodeDecodeError.
    p = non_utf8(tmp_path, b"caf\xe9.traceg")
    e = raised(lambda: gpuperf.Trace(p))
    check(e, gpuperf.IoError, OSError, "caf\\xe9.traceg")
    e = raised(lambda: gpuperf.Trace(os.fsencode(p)))  # bytes name the same file
    check(e, gpuperf.IoError, OSError, "caf\\xe9.traceg")


def test_a_trace_with_a_non_utf8_file_name_loads_and_keeps_its_name(tmp_path):
    p = non_utf8(tmp_path, b"k\xff.traceg")
    shutil.copy(V5, os.fsencode(p))
    t = gpuperf.Trace(p)
    assert t.paths == [p]  # the name given back opens the same file
    assert os.path.exists(t.paths[0])
    assert len(t) == 1
    r = gpuperf.predict(t, "a100")
    assert r.kernels[0].name == "kernel(float*, float*)"
    assert r.time_us > 0
    assert gpuperf.predict(os.fsencode(p), "a100").time_us == r.time_us


def test_a_non_utf8_kernel_name_is_escaped_not_a_unicode_error(tmp_path):
    text = V5.read_bytes().replace(b"-kernel name = _Z6kernelPfS_", b"-kernel name = kern\xff\xfeel")
    p = tmp_path / "latin.traceg"
    p.write_bytes(text)
    t = gpuperf.Trace(str(p))
    assert t.kernel_names == ["kern\\xff\\xfeel"]  # UnicodeDecodeError before
    r = gpuperf.predict(t, "a100")  # the report's JSON used to fail on the name
    assert r.kernels[0].name == "kern\ufffd\ufffdel"  # as the CLI's --json writes it
    assert gpuperf.sweep(t, "a100", sms=[54, 108])["kernel"].tolist() == ["kern\\xff\\xfeel"] * 2


def test_an_unreadable_input_is_an_io_error_naming_it(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    e = raised(lambda: gpuperf.Trace(str(f / "under_a_file.traceg")))
    check(e, gpuperf.IoError, OSError, "under_a_file.traceg")
    fifo = tmp_path / "pipe.traceg"
    os.mkfifo(fifo)
    e = raised(lambda: gpuperf.Trace(str(fifo)))  # refused by type, not read (it would block)
    check(e, gpuperf.Error, Exception, "pipe.traceg")


def test_bad_tables_are_table_errors_naming_the_file(tmp_path):
    shipped = ROOT / "latency_tables"
    (tmp_path / "arch").mkdir()
    j = json.loads((shipped / "arch" / "sm_86.json").read_text())
    j["inherits"] = 80  # a number where a table name belongs
    (tmp_path / "arch" / "sm_86.json").write_text(json.dumps(j))
    e = raised(lambda: gpuperf.gpu_spec("3090", tables_dirs=[str(tmp_path)]))
    check(e, gpuperf.TableError, ValueError, str(tmp_path / "arch" / "sm_86.json"), "unexpected JSON content")
    (tmp_path / "arch" / "sm_86.json").write_bytes(b'{"arch": "sm_86", "name": "\xff"')
    e = raised(lambda: gpuperf.tables([str(tmp_path)]))
    check(e, gpuperf.TableError, ValueError, str(tmp_path / "arch" / "sm_86.json"))
    # One directory given as a str is one directory, not a list of one-letter names.
    e = raised(lambda: gpuperf.tables(str(tmp_path / "no_such_tables")))
    check(e, gpuperf.TableError, ValueError, "no_such_tables: latency-table directory does not exist")
    # Tables that `gpuperf tables check` rejects are listed by check_tables and refused for
    # predictions, as `gpuperf report --tables` refuses them (they were used silently).
    broken = str(FIX / "tables_broken" / "bad_range")
    assert gpuperf.check_tables([broken])
    e = raised(lambda: gpuperf.predict(str(V5), "a100", tables_dirs=[broken]))
    check(e, gpuperf.TableError, ValueError, "latency tables rejected by `gpuperf tables check`")


def test_a_tables_dir_with_a_non_utf8_name(tmp_path):
    d = non_utf8(tmp_path, b"tab\xe9")
    os.makedirs(os.fsencode(d))
    t = gpuperf.tables([d])
    assert t.search_path[0] == d  # UnicodeDecodeError before
    assert gpuperf.check_tables([d]) == []


def test_an_unknown_gpu_is_a_lookup_error():
    e = raised(lambda: gpuperf.predict(str(V5), "z9000"))
    check(e, gpuperf.UnknownGpuError, LookupError, "unknown GPU 'z9000'")
    e = raised(lambda: gpuperf.gpu_spec(os.fsdecode(b"z\xff")))
    check(e, gpuperf.UnknownGpuError, LookupError, "z\\xff")


def test_gpu_values_set_directly_are_checked_like_what_ifs():
    spec = gpuperf.gpu_spec("a100")
    spec.sms = 54
    spec.l2_bytes = 8 * 1024 * 1024
    assert (spec.sms, spec.l2_bytes) == (54, 8 * 1024 * 1024)
    for attr, value, part in [("sms", 0, "GpuSpec.sms = 0: "), ("sms", 2147483648, "value must be in [1, 65536]"),
                              ("sms", 1.5, "whole number"), ("sm_clock_mhz", math.nan, "GpuSpec.sm_clock_mhz"),
                              ("l2_bytes", 1e30, "GpuSpec.l2_bytes"), ("dram_efficiency", 0, "GpuSpec.dram_efficiency"),
                              ("dram_latency", -1, "GpuSpec.dram_latency")]:
        e = raised(lambda: setattr(spec, attr, value))  # TypeError or a stored impossible value before
        check(e, gpuperf.ArgumentError, ValueError, part)
    for value in ["fast", None, True]:
        e = raised(lambda: setattr(spec, "sm_clock_mhz", value))
        check(e, gpuperf.ArgumentError, ValueError, "GpuSpec.sm_clock_mhz must be a number")
    assert (spec.sms, spec.l2_bytes) == (54, 8 * 1024 * 1024)  # nothing stored by a refused write
    e = raised(lambda: spec.set("sms", "many"))
    check(e, gpuperf.ArgumentError, ValueError, "sms must be a number")


def test_arguments_of_the_wrong_type_are_argument_errors():
    cases = [
        (lambda: gpuperf.Trace(123), "paths must be a path"),
        (lambda: gpuperf.predict(str(V5), "a100", mode=3), "mode must be a str"),
        (lambda: gpuperf.predict(str(V5), "a100", mode="fastest"), "mode must be 'auto', 'simulation' or 'bounds'"),
        (lambda: gpuperf.predict(str(V5), "a100", target=None), "target must be a str"),
        (lambda: gpuperf.predict(str(V5), 42), "gpu must be a str"),
        (lambda: gpuperf.what_if(str(V5), "a100", sms="x"), "sms must be a number, got 'x'"),
        (lambda: gpuperf.sweep(str(V5), "a100", sms=108), "sweep parameter sms must be a sequence"),
        (lambda: gpuperf.predict(str(V5), "a100", launch_skip=0.5), "launch_skip must be a whole number"),
    ]
    for fn, part in cases:
        check(raised(fn), gpuperf.ArgumentError, ValueError, part)


def test_an_unknown_kernel_is_a_lookup_error():
    # A selector naming no kernel was a ValueError only; it is a LookupError as an unknown GPU is.
    e = raised(lambda: gpuperf.predict(str(V5), "a100", kernel=7))
    check(e, gpuperf.UnknownKernelError, LookupError, "no kernel matches '7' (1 kernels in the input)")
    assert isinstance(e, gpuperf.ArgumentError) and isinstance(e, ValueError)  # as before
    e = raised(lambda: gpuperf.predict(str(V5), "a100", kernel="^nope"))
    check(e, gpuperf.UnknownKernelError, LookupError, "no kernel matches '^nope'")
    e = raised(lambda: gpuperf.predict(str(V5), "a100", launch_skip=3))
    check(e, gpuperf.UnknownKernelError, LookupError, "no kernel in the launch window")


def test_a_parquet_write_error_is_an_io_error(tmp_path):
    pytest.importorskip("pyarrow")
    e = raised(lambda: gpuperf.sweep_many([str(V5)], "a100", parquet=tmp_path / "no_dir" / "x.parquet", sms=[54]))
    check(e, gpuperf.IoError, OSError, "x.parquet")
