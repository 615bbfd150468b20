#!/usr/bin/env python3
"""Deterministic input files for the Parboil CUDA benchmarks of the validation corpus.

Usage: parboil_inputs.py KEY   (run in the program's folder, e.g. third_party/vbin/parboil/sgemm)

The Parboil repository snapshot carries no datasets, so each KEY writes synthetic inputs in
exactly the format the benchmark reads (fixed seeds; same bytes on every run). A file that
already exists is kept, so re-running is cheap.
"""
import os
import sys

import numpy as np


def _write(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _float_text(values, lo, hi, levels=4096, sep="\n"):
    """Floats as text, quantised to `levels` steps in [lo, hi] so formatting is a table look-up."""
    q = np.clip(np.rint((np.asarray(values).ravel() - lo) / (hi - lo) * (levels - 1)), 0, levels - 1)
    table = np.array(["%.5f" % (lo + (hi - lo) * i / (levels - 1)) for i in range(levels)], dtype=object)
    return (sep.join(table[q.astype(np.int64)].tolist()) + "\n").encode()


def _coo_text(rows, cols, vals):
    """Lines 'row col value' built with array arithmetic (fast for millions of entries):
    indices zero-padded to a fixed width (fscanf("%d") reads them as decimal), values as
    fixed-width '+0.1234' strings from a table."""
    n = len(rows)
    w = len(str(int(max(rows.max(), cols.max()))))
    table = np.frombuffer("".join("%+.4f" % (-1 + 2 * i / 9999) for i in range(10000)).encode(),
                          dtype=np.uint8).reshape(10000, 7)
    out = np.full((n, 2 * w + 2 + 7 + 1), ord(" "), dtype=np.uint8)
    for c, base in ((np.asarray(rows, dtype=np.int64), 0), (np.asarray(cols, dtype=np.int64), w + 1)):
        for d in range(w):
            out[:, base + d] = ord("0") + (c // 10 ** (w - 1 - d)) % 10
    q = np.clip(np.rint((np.asarray(vals) + 1) / 2 * 9999), 0, 9999).astype(np.int64)
    out[:, 2 * w + 2:2 * w + 9] = table[q]
    out[:, -1] = ord("\n")
    return out.tobytes()


def _int_rows(*columns):
    """Rows of non-negative integers, columns separated by a space, each column zero-padded to
    its own width so the text is built with array arithmetic; read with fscanf("%d")."""
    cols = [np.asarray(c, dtype=np.int64).ravel() for c in columns]
    widths = [max(1, len(str(int(c.max())))) for c in cols]
    out = np.full((len(cols[0]), sum(widths) + len(widths)), ord(" "), dtype=np.uint8)
    pos = 0
    for c, w in zip(cols, widths):
        for d in range(w):
            out[:, pos + d] = ord("0") + (c // 10 ** (w - 1 - d)) % 10
        pos += w + 1
    out[:, -1] = ord("\n")
    return out.tobytes()


def bfs_graph(path, nodes, seed):
    """Parboil bfs reads the same text graph as Rodinia's: nodes; per node 'first_edge degree';
    source; edge count; per edge 'dest cost'. Random out-degree 1..7 (mean 4), uniform
    destinations, the first edge of node i going to i+1 so all nodes are reachable; unit costs
    so the cost relaxation is a plain BFS (one frontier per level)."""
    if os.path.exists(path):
        return
    rng = np.random.default_rng(seed)
    deg = rng.integers(1, 8, size=nodes)
    starts = np.concatenate(([0], np.cumsum(deg)[:-1]))
    edges = int(deg.sum())
    dest = rng.integers(0, nodes, size=edges)
    dest[starts] = (np.arange(nodes) + 1) % nodes
    cost = np.ones(edges, dtype=np.int64)
    _write(path, _int_rows([nodes]) + _int_rows(starts, deg) + _int_rows([0]) + _int_rows([edges])
           + _int_rows(dest, cost))


def sgemm(m, k, n, seed):
    """sgemm reads text matrices: 'rows cols' then the values in column-major order.
    matrix1 is A (m x k); matrix2t is B transposed, whose header is 'n k'. (The program
    also requires a B file name but never reads it; the same file is passed.)"""
    a, bt = "A_%dx%d.txt" % (m, k), "BT_%dx%d.txt" % (n, k)
    rng = np.random.default_rng(seed)
    if not os.path.exists(a):
        _write(a, b"%d %d\n" % (m, k) + _float_text(rng.uniform(-1, 1, m * k), -1, 1))
    if not os.path.exists(bt):
        _write(bt, b"%d %d\n" % (n, k) + _float_text(rng.uniform(-1, 1, n * k), -1, 1))


def stencil(nx, ny, nz, seed):
    """stencil reads nx*ny*nz float32 values (x fastest), raw binary."""
    path = "grid_%dx%dx%d.bin" % (nx, ny, nz)
    if not os.path.exists(path):
        rng = np.random.default_rng(seed)
        _write(path, rng.uniform(0.0, 1.0, nx * ny * nz).astype(np.float32).tobytes())


def mriq(num_k, num_x, seed):
    """mri-q binary: int numK, int numX, then float32 arrays kx, ky, kz (numK), x, y, z (numX),
    phiR, phiI (numK). Trajectory samples in [-0.5, 0.5), voxel positions on a cube grid."""
    path = "mriq_%dk_%dx.bin" % (num_k, num_x)
    if os.path.exists(path):
        return
    rng = np.random.default_rng(seed)
    side = round(num_x ** (1.0 / 3.0))
    g = (np.arange(side, dtype=np.float32) - side / 2) / side
    z, y, x = np.meshgrid(g, g, g, indexing="ij")
    parts = [np.array([num_k, num_x], dtype=np.int32).tobytes()]
    for arr in (rng.uniform(-0.5, 0.5, num_k), rng.uniform(-0.5, 0.5, num_k), rng.uniform(-0.5, 0.5, num_k),
                x.ravel()[:num_x], y.ravel()[:num_x], z.ravel()[:num_x],
                rng.uniform(-1, 1, num_k), rng.uniform(-1, 1, num_k)):
        parts.append(np.asarray(arr, dtype=np.float32).tobytes())
    _write(path, b"".join(parts))


def spmv(dim, seed):
    """spmv reads a Matrix Market coordinate file (it mirrors every off-diagonal entry, so we
    write the lower triangle of a symmetric matrix) and a raw float32 vector of length dim.
    Row lengths are irregular (1..~60 with a heavy tail) so the JDS layout has ragged warps.
    Limits of the program: dim/32 warps <= 5000 and the longest row <= 5000."""
    mtx, vec = "sym_%d.mtx" % dim, "x_%d.bin" % dim
    rng = np.random.default_rng(seed)
    if not os.path.exists(mtx):
        per_row = np.minimum(1 + rng.geometric(0.12, dim), 60)
        rows = np.repeat(np.arange(dim), per_row)
        # column offsets below the diagonal: mostly near (banded), some far
        off = np.where(rng.random(rows.size) < 0.8, rng.integers(1, 64, rows.size),
                       rng.integers(1, dim, rows.size))
        cols = rows - off
        keep = cols >= 0
        rows, cols = rows[keep], cols[keep]
        key = np.unique(rows.astype(np.int64) * dim + cols)
        rows, cols = key // dim, key % dim
        rows = np.concatenate((rows, np.arange(dim)))  # full diagonal
        cols = np.concatenate((cols, np.arange(dim)))
        order = np.lexsort((rows, cols))
        rows, cols = rows[order], cols[order]
        vals = rng.uniform(-1, 1, rows.size)
        header = "%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n" % (dim, dim, rows.size)
        _write(mtx, header.encode() + _coo_text(rows + 1, cols + 1, vals))
    if not os.path.exists(vec):
        _write(vec, rng.uniform(-1, 1, dim).astype(np.float32).tobytes())


def cutcp(natoms, box, seed):
    """cutcp reads a PQR file: lines 'ATOM serial name res resseq x y z charge radius'.
    Atoms are uniform in a box (water-like density when natoms ~ 0.1 * box^3)."""
    path = "atoms_%d.pqr" % natoms
    if os.path.exists(path):
        return
    rng = np.random.default_rng(seed)
    xyz = rng.uniform(0.0, box, size=(natoms, 3))
    q = np.where(np.arange(natoms) % 3 == 0, -0.834, 0.417)
    coords = [_float_text(xyz[:, i], 0.0, box, levels=65536, sep="\n").decode().split("\n")[:-1]
              for i in range(3)]
    lines = ["ATOM  %5d  OH2 TIP3 %5d %s %s %s %6.3f 1.520" % (i % 100000, i // 3 % 100000,
             coords[0][i], coords[1][i], coords[2][i], q[i]) for i in range(natoms)]
    _write(path, ("\n".join(lines) + "\nEND\n").encode())


def histo(img_w, img_h, histo_w, histo_h, seed):
    """histo binary: uint32 img_width, img_height, histo_width, histo_height, then the
    img_width*img_height bin indices (uint32). As in Parboil's description, values are
    concentrated around the centre of the histogram (2-D Gaussian), ~20 inputs per bin there.
    Program limits: img_width <= 2047, img_height a multiple of 16, histo_width <= img_width."""
    path = "histo_%dx%d_%dx%d.bin" % (img_w, img_h, histo_w, histo_h)
    if os.path.exists(path):
        return
    rng = np.random.default_rng(seed)
    n = img_w * img_h
    # Narrow in y: the program sizes its bin-block range as mean +- 10 standard deviations of
    # the bin index (in blocks of 24K bins) and must stay inside the histogram buffers.
    hx = np.clip(rng.normal(histo_w / 2, histo_w / 4, n), 0, histo_w - 1).astype(np.uint32)
    hy = np.clip(rng.normal(histo_h / 2, histo_h / 32, n), 0, histo_h - 1).astype(np.uint32)
    img = hy * histo_w + hx
    _write(path, np.array([img_w, img_h, histo_w, histo_h], dtype=np.uint32).tobytes() + img.tobytes())


def tpacf(nsets, npoints, seed):
    """tpacf reads 1 + nsets text files of npoints lines 'ra dec' (degrees): the observed
    catalogue then the random catalogues. The data set is clustered (a few Gaussian clumps on
    the sphere), the random sets uniform on the sphere, as in the original benchmark."""
    rng = np.random.default_rng(seed)
    names = ["data.txt"] + ["random-%d.txt" % i for i in range(1, nsets + 1)]
    for i, name in enumerate(names):
        if os.path.exists(name):
            continue
        if i == 0:
            centres = rng.uniform([0, -60], [360, 60], size=(16, 2))
            pick = centres[rng.integers(0, 16, npoints)]
            ra = np.mod(pick[:, 0] + rng.normal(0, 3, npoints), 360)
            dec = np.clip(pick[:, 1] + rng.normal(0, 3, npoints), -89.9, 89.9)
        else:
            r = np.random.default_rng(seed * 1000 + i)
            ra = r.uniform(0, 360, npoints)
            dec = np.degrees(np.arcsin(r.uniform(-1, 1, npoints)))
        lines = ["%.6f %.6f" % (a, d) for a, d in zip(ra.tolist(), dec.tolist())]
        _write(name, ("\n".join(lines) + "\n").encode())


KEYS = {
    "sgemm-128": lambda: sgemm(128, 256, 128, 1),
    "sgemm-1024": lambda: sgemm(1024, 1024, 1024, 2),
    "stencil-512": lambda: stencil(512, 512, 64, 3),
    "stencil-128": lambda: stencil(128, 128, 32, 4),
    "mri-q": lambda: mriq(2048, 262144, 5),
    "spmv": lambda: spmv(131072, 6),
    "cutcp": lambda: cutcp(20000, 60.0, 7),
    "bfs-1m": lambda: bfs_graph("graph1m.txt", 1 << 20, 9),
    "tpacf": lambda: tpacf(32, 4096, 10),
    "histo": lambda: histo(1024, 1024, 1024, 1024, 8),
}


def main(argv):
    if len(argv) != 2 or argv[1] not in KEYS:
        sys.stderr.write("usage: %s KEY\n  KEY: %s\n" % (argv[0], " ".join(sorted(KEYS))))
        return 2
    KEYS[argv[1]]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
