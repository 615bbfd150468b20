"""`python -m gpuperf.test`: a smoke test of an installed package."""
import gpuperf


def main() -> int:
    df = gpuperf.gpus()
    assert len(df) >= 10, "catalog too small"
    assert not gpuperf.check_tables(), gpuperf.check_tables()
    print(f"gpuperf {gpuperf.__version__}: {len(df)} GPUs, tables OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
