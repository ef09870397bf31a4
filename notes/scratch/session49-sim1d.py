# Session 49: a Python model of step_1d_half.cu (notes/scratch/session49-half-pairs-exp.patch): the staging, the chunk bound
# and each pair's half2 window, against the direct sum on a padded row whose unused padding is NaN. Run: python3 FILE.
import math, random
NAN = float('nan')
def sim(n, R, kPairs=16, halo=None):
    halo = halo if halo is not None else R
    ru = lambda v, a: (v + a - 1) // a * a
    origin = ru(halo, 64); pitch = ru(origin + n + halo, 64)
    pad = [NAN] * pitch
    for i in range(origin - halo, origin + n + halo): pad[i] = 0.25  # halo boundary value
    for x in range(n): pad[origin + x] = random.random()
    w = [random.random() for _ in range(2 * R + 1)]
    ref = [sum(w[d] * pad[origin + x + d - R] for d in range(2 * R + 1)) for x in range(n)]
    out = [None] * n
    kThreads, kLead = 256, 8
    kTile = 2 * kThreads * kPairs; kStaged = kTile + 2 * kLead; kRe = (R + 1) // 2 * 2
    assert origin % kLead == 0 and pitch % kLead == 0
    for b in range((n + kTile - 1) // kTile):
        x0 = b * kTile
        base = origin + x0 - kLead
        chunks = (pitch - origin - (x0 - kLead)) // 8
        tile = [NAN] * kStaged
        for i in range(kStaged // 8):
            if i < chunks:
                for e in range(8): tile[8 * i + e] = pad[base + 8 * i + e]
        for p in range(kPairs):
            for t in range(kThreads):
                c = 2 * (p * kThreads + t)
                v = []
                for k in range(kRe + 1):
                    idx = kLead + c - kRe + 2 * k
                    assert 0 <= idx and idx + 1 < kStaged and idx % 2 == 0
                    v += [tile[idx], tile[idx + 1]]
                a0 = sum(w[d] * v[kRe - R + d] for d in range(2 * R + 1))
                a1 = sum(w[d] * v[kRe - R + d + 1] for d in range(2 * R + 1))
                x = x0 + c
                if x + 1 < n: out[x], out[x + 1] = a0, a1
                elif x < n: out[x] = a0
    bad = [x for x in range(n) if out[x] is None or not abs(out[x] - ref[x]) < 1e-12]
    return bad
for n in [37, 8190, 8192, 16385, 3, 100003]:
    for R in [1, 2, 3, 7]:
        bad = sim(n, R, kPairs=16 if n < 50000 else 16)
        print(n, R, "OK" if not bad else f"BAD {len(bad)} first {bad[:5]}")
print("kPairs 4:", [ (n,R, len(sim(n,R,4))) for n in [37, 2049, 4097] for R in [1,7]])
