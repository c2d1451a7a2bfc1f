#!/usr/bin/env python3
"""Reference values hard-coded in tests/unit/test_stats.c.

Not run by the tests (they need no Python). Regenerate with
    pip install numpy scipy statsmodels && python3 tests/unit/stats_reference.py
Versions used for the committed values: numpy 2.4.6, scipy 1.17.1,
statsmodels 0.15.0. The bootstrap values come from an independent Python
re-implementation of the documented algorithm (splitmix64 -> xoshiro256**,
rejection sampling of indices, numpy median, numpy percentile).
"""
import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests

M64 = (1 << 64) - 1


def r(v):
    return repr(float(v))


# ---- PRNG ----
class Rng:
    def __init__(self, seed):
        sm = seed & M64
        self.s = []
        for _ in range(4):
            sm = (sm + 0x9E3779B97F4A7C15) & M64
            z = sm
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            self.s.append(z ^ (z >> 31))

    @staticmethod
    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & M64

    def next(self):
        s = self.s
        result = (self.rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = self.rotl(s[3], 45)
        return result

    def below(self, bound):
        threshold = ((1 << 64) - bound) % bound
        while True:
            x = self.next()
            if x >= threshold:
                return x % bound


print("== rng")
g = Rng(0)
print("seed 0 state", [hex(v) for v in g.s])
g.s = [1, 2, 3, 4]
print("xoshiro {1,2,3,4}", [g.next() for _ in range(4)])
g = Rng(42)
print("seed 42 below(10) x8", [g.below(10) for _ in range(8)])

# ---- quantiles / summary ----
print("== quantiles")
Q = [3.1, 1.0, 4.7, 1.0, 5.9, 2.6, 5.3, 5.8, 9.7, 9.3]
for q in [0, 0.1, 0.25, 1 / 3, 0.5, 0.75, 0.9, 1]:
    print(q, r(np.quantile(Q, q)))
ODD = [7.5, -2.25, 3.0, 11.0, 0.5, 3.0, 8.125]
print("odd median", r(np.median(ODD)), "q1", r(np.quantile(ODD, 0.25)),
      "q3", r(np.quantile(ODD, 0.75)), "mean", r(np.mean(ODD)))
S = [1021, 998, 1003, 1187, 1002, 995, 1010, 999, 3050, 1001, 1004, 997]
print("summary S", [r(v) for v in (np.median(S), np.quantile(S, .25), np.quantile(S, .75),
                                   min(S), max(S), np.mean(S))])

# ---- Tukey ----
print("== tukey")
q1, q3 = np.quantile(S, [0.25, 0.75])
lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
print("fences", r(lo), r(hi), "kept", [v for v in S if lo <= v <= hi])

# ---- geomean ----
print("== geomean")
G = [1.02, 0.97, 1.5, 0.8, 1.11, 2.0]
print("gmean", r(stats.gmean(G)))

# ---- Mann-Whitney ----
print("== mann-whitney")


def mwu(a, b, method="auto"):
    res = stats.mannwhitneyu(a, b, alternative="two-sided", method=method)
    return r(res.statistic), r(res.pvalue)


A1 = [1.1, 2.3, 3.5, 4.2, 5.9]
B1 = [2.0, 6.1, 7.4, 8.8, 9.5, 10.3]
print("small no ties auto", mwu(A1, B1), "asym", mwu(A1, B1, "asymptotic"))
A2 = [3, 5, 5, 7, 9, 9, 9]
B2 = [5, 8, 9, 10, 11, 12]
print("small ties auto", mwu(A2, B2), "exact", mwu(A2, B2, "exact"))
print("n=1", mwu([1.0], [2.0]), mwu([1.0], list(range(2, 11))))
print("separated 8/8", mwu(list(range(1, 9)), list(range(9, 17))))
print("all equal", mwu([5.0] * 3, [5.0] * 4))
# one small, one larger sample (exact by the auto rule)
A3 = [float(v) for v in (12.5, 40.5, 77.5)]
B3 = [float(i) for i in range(200)]
print("3 vs 200", mwu(A3, B3))
# larger samples with ties: integer "latencies"
LA = [(i * 37) % 23 + 100 for i in range(40)]
LB = [(i * 53) % 29 + 104 for i in range(50)]
print("LA", LA)
print("LB", LB)
print("40 vs 50 ties", mwu(LA, LB))
# no ties, large, separated: tiny p
HA = [i + 0.25 for i in range(60)]
HB = [i + 45.75 for i in range(70)]
print("60 vs 70 shift", mwu(HA, HB))
# exact with counts far beyond 2^64 (8 vs 100000), small U
EA = [10.5, 20.5, 35.5, 41.5, 60.5, 75.5, 90.5, 99.5]
EB = [float(i) for i in range(100000)]
print("8 vs 100000 exact", mwu(EA, EB, "exact"))
# beyond exact 128-bit range: auto must fall back to asymptotic
FA = [1000.5, 5000.5, 20000.5, 50000.5, 80000.5, 120000.5, 150000.5, 190000.5]
FB = [float(i) for i in range(200000)]
print("8 vs 200000 asym", mwu(FA, FB, "asymptotic"))

# ---- Holm ----
print("== holm")
P = [0.01, 0.04, 0.03, 0.005, 0.2, 0.04]
rej, adj, _, _ = multipletests(P, alpha=0.05, method="holm")
print("reject", list(rej), "adjusted", [r(v) for v in adj])
P2 = [0.001, 0.0125, 0.013, 0.9]
rej, adj, _, _ = multipletests(P2, alpha=0.05, method="holm")
print("reject", list(rej), "adjusted", [r(v) for v in adj])

# ---- bootstrap ----
print("== bootstrap")


def boot_median(x, B, level, seed):
    x = sorted(x)
    g = Rng(seed)
    n = len(x)
    reps = [np.median([x[g.below(n)] for _ in range(n)]) for _ in range(B)]
    return np.percentile(reps, [(1 - level) / 2 * 100, (1 + level) / 2 * 100])


def boot_ratio(a, b, B, level, seed):
    a, b = sorted(a), sorted(b)
    g = Rng(seed)
    reps = []
    for _ in range(B):
        ma = np.median([a[g.below(len(a))] for _ in range(len(a))])
        mb = np.median([b[g.below(len(b))] for _ in range(len(b))])
        reps.append(mb / ma)
    return np.percentile(reps, [(1 - level) / 2 * 100, (1 + level) / 2 * 100])


print("median CI S", [r(v) for v in boot_median(S, 1000, 0.95, 42)])
print("median CI Q", [r(v) for v in boot_median(Q, 2000, 0.9, 7)])
R_A = [100, 102, 98, 101, 99, 130, 100, 97]
R_B = [90, 91, 89, 93, 90, 88, 92, 150, 91]
print("ratio", r(np.median(R_B) / np.median(R_A)),
      [r(v) for v in boot_ratio(R_A, R_B, 1000, 0.95, 1234)])
