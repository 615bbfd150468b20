#!/usr/bin/env python3
"""Deterministic input files for the Rodinia 3.1 CUDA programs of the validation corpus.

Usage: rodinia_inputs.py KEY   (run in the program's folder, e.g. third_party/vbin/rodinia/bfs)

Rodinia's data/ folder is not part of the repository snapshot, so each KEY writes synthetic
inputs in exactly the format the program reads (fixed seeds; same bytes on every run).
A file that already exists with the expected size is kept, so re-running is cheap.
"""
import os
import sys

import numpy as np


def _write(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _int_rows(*columns):
    """Rows of non-negative integers, one row per line, columns separated by a space. Each
    column is zero-padded to its own width so the text is built with array arithmetic (fast
    for millions of rows); the programs read the values with fscanf("%d"), which accepts
    leading zeros as decimal."""
    cols = [np.asarray(c, dtype=np.int64).ravel() for c in columns]
    n = len(cols[0])
    widths = [max(1, len(str(int(c.max())))) if n else 1 for c in cols]
    out = np.full((n, sum(widths) + len(widths)), ord(" "), dtype=np.uint8)
    pos = 0
    for c, w in zip(cols, widths):
        for d in range(w):
            out[:, pos + d] = ord("0") + (c // 10 ** (w - 1 - d)) % 10
        pos += w + 1
    out[:, -1] = ord("\n")
    return out.tobytes()


def _int_tokens(values):
    """One integer per line."""
    return _int_rows(values)


def _float_lines(values, lo, hi, levels=4096):
    """One float per line. Values are quantised to `levels` steps between lo and hi so that
    formatting is a table look-up (fast for millions of lines)."""
    q = np.clip(np.rint((np.asarray(values) - lo) / (hi - lo) * (levels - 1)), 0, levels - 1)
    table = np.array(["%.6f" % (lo + (hi - lo) * i / (levels - 1)) for i in range(levels)], dtype=object)
    return ("\n".join(table[q.astype(np.int64)].tolist()) + "\n").encode()


def bfs_graph(path, nodes, seed):
    """Rodinia bfs graph text: nodes; per node 'first_edge degree'; source; edge count;
    per edge 'dest cost'. Random out-degree 1..7 (mean 4) with uniform destinations plus a
    ring edge so every node is reachable from node 0."""
    if os.path.exists(path):
        return
    rng = np.random.default_rng(seed)
    deg = rng.integers(1, 8, size=nodes)
    starts = np.concatenate(([0], np.cumsum(deg)[:-1]))
    edges = int(deg.sum())
    dest = rng.integers(0, nodes, size=edges)
    dest[starts] = (np.arange(nodes) + 1) % nodes  # first edge of node i goes to i+1
    cost = rng.integers(1, 11, size=edges)
    _write(path, _int_tokens([nodes]) + _int_rows(starts, deg) + _int_tokens([0, edges])
           + _int_rows(dest, cost))


def hotspot_grid(rows, layers, temp_path, power_path, seed):
    """hotspot/hotspot3D: one float per line, rows*rows*layers values (temperatures in K
    around 323-343, power 0-0.5 W per cell as in Rodinia's sample files)."""
    n = rows * rows * layers
    rng = np.random.default_rng(seed)
    if not os.path.exists(temp_path):
        _write(temp_path, _float_lines(rng.uniform(323.0, 343.0, n), 300.0, 350.0))
    if not os.path.exists(power_path):
        _write(power_path, _float_lines(rng.uniform(0.0, 0.5, n), 0.0, 1.0))


def nn_records(prefix, files, per_file, seed):
    """nn: filelist plus fixed-width hurricane records exactly as hurricane_gen.c prints them:
    "%4d %2d %2d %2d %2d %-9s %5.1f %5.1f %4d %4d\\n" (48 characters and a newline)."""
    listname = "filelist_%s" % prefix
    names = [b"ALBERTO  ", b"BERYL    ", b"CHRIS    ", b"DEBBY    ", b"ERNESTO  ", b"FLORENCE ",
             b"GORDON   ", b"HELENE   ", b"ISAAC    ", b"JOYCE    ", b"KIRK     "]
    rng = np.random.default_rng(seed)
    dbs = []
    for k in range(files):
        db = "%s_%d.db" % (prefix, k)
        dbs.append(db)
        if os.path.exists(db):
            continue
        n = per_file
        rec = np.full((n, 49), ord(" "), dtype=np.uint8)
        rec[:, 48] = ord("\n")

        def put(col, width, strings):
            arr = np.frombuffer(b"".join(strings), dtype=np.uint8).reshape(n, width)
            rec[:, col:col + width] = arr

        def put_int(col, width, vals):
            fmt = "%" + str(width) + "d"
            table = np.array([(fmt % v).encode() for v in range(10 ** width)], dtype=object)
            put(col, width, table[vals].tolist())

        def put_f51(col, vals):  # %5.1f for 0.0 <= v < 1000
            tenths = np.rint(vals * 10).astype(np.int64)
            table = np.array([("%5.1f" % (t / 10)).encode() for t in range(10000)], dtype=object)
            put(col, 5, table[tenths].tolist())

        put_int(0, 4, rng.integers(1950, 2005, n))
        put_int(5, 2, rng.integers(1, 13, n))
        put_int(8, 2, rng.integers(1, 29, n))
        put_int(11, 2, rng.choice([0, 6, 12, 18], n))
        put_int(14, 2, rng.integers(1, 29, n))
        put(17, 9, [names[i] for i in rng.integers(0, len(names), n).tolist()])
        put_f51(27, rng.uniform(7.0, 70.0, n))
        put_f51(33, rng.uniform(0.0, 358.0, n))
        put_int(39, 4, rng.integers(10, 165, n))
        put_int(44, 4, rng.integers(0, 900, n))
        _write(db, rec.tobytes())
    _write(listname, ("\n".join(dbs) + "\n").encode())


def kmeans_points(path, npoints, nfeatures, nclusters, seed):
    """kmeans -b binary input: int npoints, int nfeatures, npoints*nfeatures float32 (row-major).
    Points are Gaussian blobs around well separated centres so that the iteration converges in
    a handful of rounds (uniform noise would iterate up to 500 times)."""
    if os.path.exists(path):
        return
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0.0, 100.0, size=(nclusters, nfeatures))
    labels = rng.integers(0, nclusters, size=npoints)
    pts = centres[labels] + rng.normal(0.0, 2.0, size=(npoints, nfeatures))
    _write(path, np.array([npoints, nfeatures], dtype=np.int32).tobytes()
           + pts.astype(np.float32).tobytes())


def btree_inputs(keys, seed):
    """b+tree: 'mil.txt' = count then the keys (a random permutation of 1..count);
    'command.txt' = range queries (j count range) and point queries (k count <= 65535)."""
    if not os.path.exists("mil.txt"):
        rng = np.random.default_rng(seed)
        _write("mil.txt", _int_tokens(np.concatenate(([keys], rng.permutation(keys) + 1))))
    _write("command.txt", b"j 6000 3000\nk 10000\n")


def srad_pgm(path, rows, cols, seed):
    """srad_v1: ASCII PGM (P2) with three header lines, rows x cols grey values; a smooth
    pattern with multiplicative speckle like an ultrasound image."""
    if os.path.exists(path):
        return
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:rows, 0:cols]
    base = 96 + 64 * np.sin(x / 37.0) * np.cos(y / 23.0)
    img = np.clip(base * rng.gamma(4.0, 0.25, size=(rows, cols)), 1, 255).astype(np.int64)
    header = b"P2\n%d %d\n255\n" % (cols, rows)
    _write(path, header + _int_tokens(img.ravel()))


def raw_bytes(path, size, seed):
    """dwt2d reads width*height*3 raw bytes (it does not parse the .bmp header)."""
    if os.path.exists(path) and os.path.getsize(path) == size:
        return
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:1024, 0:1024]
    smooth = (128 + 100 * np.sin(x / 50.0) * np.cos(y / 70.0)).astype(np.uint8).ravel()
    data = np.resize(smooth, size) ^ rng.integers(0, 16, size, dtype=np.uint8)
    _write(path, data.tobytes())


KEYS = {
    "bfs-64k": lambda: bfs_graph("graph64k.txt", 65536, 1),
    "bfs-1m": lambda: bfs_graph("graph1m.txt", 1 << 20, 2),
    "hotspot-1024": lambda: hotspot_grid(1024, 1, "temp_1024", "power_1024", 4),
    "hotspot3D-512x8": lambda: hotspot_grid(512, 8, "temp_512x8", "power_512x8", 5),
    "nn-42k": lambda: nn_records("cane42k", 4, 10691, 6),
    "nn-1m": lambda: nn_records("cane1m", 4, 262144, 7),
    "kmeans-200k": lambda: kmeans_points("points_200k_34.bin", 200000, 34, 5, 8),
    "b+tree": lambda: btree_inputs(500000, 10),
    "srad_v1": lambda: srad_pgm("image.pgm", 502, 458, 11),
    "dwt2d": lambda: raw_bytes("rgb.bmp", 1024 * 1024 * 3, 12),
}


def main(argv):
    if len(argv) != 2 or argv[1] not in KEYS:
        sys.stderr.write("usage: %s KEY\n  KEY: %s\n" % (argv[0], " ".join(sorted(KEYS))))
        return 2
    KEYS[argv[1]]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
