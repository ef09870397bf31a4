#!/usr/bin/env python3
"""Session 50: a model of kernels/cuda_core/tb_2d_pair.cu's indexing (FP32 and FP64 layouts: 16-byte chunks of 4 or 2
values), run on the CPU against a direct stencil.

Each launch block is emulated iteration by iteration; within an iteration the 256 threads run as numpy vectors (their
reads are of the previous iteration's stage rows and of the ring slot that landed, their writes of this iteration's
parity, so the order within an iteration does not matter, as the kernel's one barrier per iteration assumes). The
shared rows start as NaN except the zeroed pads, so a read of a value never fetched or written shows in an output.
Arithmetic is float64 (this checks the indices, the pipeline and the masks, not FP32 rounding).
Usage: /usr/bin/python3 notes/scratch/session50-sim-tb2d-pair.py   (prints one line per case, exits 1 on a mismatch)
"""
import sys
import numpy as np

K_THREADS, K_COLS, K_RING = 256, 512, 6


def round_up(v, a):
    return (v + a - 1) // a * a


def weights(R, star, rng):
    side = 2 * R + 1
    w = rng.uniform(-0.5, 0.5, (side, side))
    if star:
        m = np.zeros((side, side), bool)
        m[R, :] = True
        m[:, R] = True
        w[~m] = 0.0
    return w  # w[dy + R, dx + R]


def reference(grid, w, R, T, periodic, bval):
    ny, nx = grid.shape
    g = grid.copy()
    for _ in range(T):
        if periodic:
            p = np.pad(g, R, mode="wrap")
        else:
            p = np.pad(g, R, mode="constant", constant_values=bval)
        n = np.zeros_like(g)
        for dy in range(-R, R + 1):
            for dx in range(-R, R + 1):
                n += w[dy + R, dx + R] * p[R + dy:R + dy + ny, R + dx:R + dx + nx]
        g = n
    return g


def run_case(nx, ny, R, star, T, periodic, rows_per_block, chunk, seed):
    rng = np.random.default_rng(seed)
    w = weights(R, star, rng)
    bval = 0.3
    halo = round_up(T * R, chunk)                # tb::halo_columns(T, R, bytes): chunk = 16 / bytes
    origin = round_up(halo, 16)                  # make_padded_layout(e, halo, 16)
    pitch = round_up(origin + nx + halo, 16)
    rows_total = ny + 2 * halo
    interior = rng.uniform(-1, 1, (ny, nx))
    mem = np.full((rows_total, pitch), np.nan)
    if periodic:
        yy = (np.arange(-halo, ny + halo)) % ny
        xx = (np.arange(-origin, pitch - origin)) % nx
        mem[:, :] = interior[np.ix_(yy, xx)]
    else:
        mem[:, :] = bval
        mem[halo:halo + ny, origin:origin + nx] = interior
    out = mem.copy()

    def idx_row(y):
        return y + halo

    kSide, kP = 2 * R + 1, round_up(R, chunk)
    kW, kRe, k = K_COLS + 2 * kP, (R + 1) // 2 * 2, T
    A = round_up(k * R, chunk)
    strips = (nx + (K_COLS - 2 * A) - 1) // (K_COLS - 2 * A)
    yblocks = (ny + rows_per_block - 1) // rows_per_block
    c = np.arange(K_THREADS)
    lc = 2 * c
    kUnroll = kSide if R <= 2 else 1
    for by in range(yblocks):
        for bx in range(strips):
            n_rows = K_RING + 2 * (k - 1)
            rows = np.full((n_rows, kW), np.nan)
            rows[:, :kP] = 0.0
            rows[:, kP + K_COLS:] = 0.0
            xs = bx * (K_COLS - 2 * A) - A
            gx0, gx1 = xs + lc, xs + lc + 1
            inside0, inside1 = (gx0 >= 0) & (gx0 < nx), (gx1 >= 0) & (gx1 < nx)
            output0 = (lc >= A) & (lc < K_COLS - A) & (gx0 < nx)
            output1 = (lc + 1 >= A) & (lc + 1 < K_COLS - A) & (gx1 < nx)
            y0 = by * rows_per_block
            y_end = min(y0 + rows_per_block, ny)
            first_in = y0 - k * R
            n_load = (y_end - y0) + 2 * k * R
            n_iter = n_load + k - 1
            row_limit = ny + halo
            chunks_left = (pitch - origin - xs) // chunk
            fetcher = (c < K_COLS // chunk) & (c < chunks_left)

            def fetch(i):
                if i < n_load and first_in + i < row_limit:
                    slot = i % K_RING
                    r = idx_row(first_in + i)
                    for cc in np.nonzero(fetcher)[0]:
                        x = origin + xs + cc * chunk
                        assert 0 <= x and x + chunk <= pitch, "fetch outside the padded row"
                        rows[slot, kP + cc * chunk:kP + cc * chunk + chunk] = mem[r, x:x + chunk]

            q0 = np.zeros((k, kSide, K_THREADS))
            q1 = np.zeros((k, kSide, K_THREADS))
            own = np.zeros((max(k - 1, 1), 2, K_THREADS))
            mask0, mask1 = (~periodic) & (~inside0), (~periodic) & (~inside1)
            mask_rows = (not periodic) and (y0 - k * (R + 1) < 0 or y_end + k * (R + 1) > ny)
            for i in range(K_RING - 1):
                fetch(i)
            for i in range(n_iter):
                u = i % kUnroll
                fetch(i + K_RING - 1)
                par = i & 1
                new_stage = {}
                for t in range(k - 1, -1, -1):
                    if t == 0:
                        src = rows[i % K_RING]
                    else:
                        src = rows[K_RING + (t - 1) * 2 + (par ^ 1)]
                    v = np.zeros((2 * kRe + 2, K_THREADS))
                    for j in range(0, 2 * kRe + 1, 2):
                        if t > 0 and j == kRe:
                            v[j], v[j + 1] = own[t - 1, 0], own[t - 1, 1]
                        else:
                            col = kP + lc - kRe + j
                            assert (col >= 0).all() and (col + 1 < kW).all()
                            v[j], v[j + 1] = src[col], src[col + 1]
                    for a in range(kSide):
                        slot = (2 * R - a + u) % kSide
                        if star and a != R:
                            q0[t, slot] += w[a, R] * v[kRe]
                            q1[t, slot] += w[a, R] * v[kRe + 1]
                        else:
                            for dx in range(kSide):
                                q0[t, slot] += w[a, dx] * v[kRe - R + dx]
                                q1[t, slot] += w[a, dx] * v[kRe - R + dx + 1]
                    r0, r1 = q0[t, u % kSide].copy(), q1[t, u % kSide].copy()
                    if kUnroll == kSide:
                        q0[t, u % kSide] = 0
                        q1[t, u % kSide] = 0
                    else:
                        q0[t, :-1] = q0[t, 1:].copy()
                        q1[t, :-1] = q1[t, 1:].copy()
                        q0[t, -1] = 0
                        q1[t, -1] = 0
                    y = first_in + i - t - (t + 1) * R
                    if t + 1 < k:
                        row_out = mask_rows and (y < 0 or y >= ny)
                        r0 = np.where(mask0 | row_out, bval, r0)
                        r1 = np.where(mask1 | row_out, bval, r1)
                        new_stage[t] = (r0, r1)
                        own[t, 0], own[t, 1] = r0, r1
                    elif y0 <= y < y_end:
                        orow = idx_row(y)
                        out[orow, origin + gx0[output0]] = r0[output0]
                        out[orow, origin + gx1[output1]] = r1[output1]
                for t, (r0, r1) in new_stage.items():  # this iteration's parity: read from the next one on
                    rows[K_RING + t * 2 + par, kP + lc] = r0
                    rows[K_RING + t * 2 + par, kP + lc + 1] = r1
    got = out[halo:halo + ny, origin:origin + nx]
    ref = reference(interior, w, R, T, periodic, bval)
    err = np.max(np.abs(got - ref)) if np.isfinite(got).all() else float("nan")
    return err


def main():
    cases = []
    for chunk, max_t in ((4, {1: 4, 2: 3, 3: 3}), (2, {1: 2, 2: 1, 3: 2})):  # FP32, FP64 (kMaxPairSteps)
        for R in (1, 2, 3):
            for star in (True, False):
                for T in range(1, max_t[R] + 1):
                    cases.append((67, 23, R, star, T, False, 9, chunk))
                cases.append((530, 19, R, star, max_t[R], True, 7, chunk))
                cases.append((1100, 13, R, star, min(2, max_t[R]), False, 13, chunk))
                cases.append((37, 41, R, star, min(2, max_t[R]), True, 41, chunk))
    bad = 0
    for n, case in enumerate(cases):
        err = run_case(*case, seed=n)
        ok = err == err and err < 1e-12
        bad += not ok
        print(f"{'FP32' if case[7] == 4 else 'FP64'} nx={case[0]} ny={case[1]} R={case[2]} star={case[3]} T={case[4]} "
              f"periodic={case[5]} rows/block={case[6]}: "
              f"max abs {err:.2e} {'ok' if ok else 'MISMATCH'}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
