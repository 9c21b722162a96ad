"""Simulate the gate on synthetic suites: false alarm rate with no real change, and power for a real drop.

Usage: python benchmarks/perf/gate_simulation.py [--replicates N] [--seed S]

Each replicate draws a suite whose cases have fixed true pass probabilities: 70% always pass, 15%
always fail, 15% flaky (probability uniform in [0.2, 0.8]). The baseline and the candidate run every
case k times. "No change" draws both sides from the same probabilities; "10-point drop" halves the
pass probability of randomly chosen always-passing cases until the suite's true mean drops by 10
points. The gate's own code decides (``gate.paired.delta_stat``: exact McNemar for k = 1, paired t or
sign-flip for k >= 2; one suite, so Holm changes nothing), with the default policy (alpha 0.05,
max_drop 0.05). The naive rule fails whenever the observed pass rate drops by more than 1 point.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from dataclasses import dataclass

from agent_evals.gate.paired import Pairs, delta_stat
from agent_evals.gate.policy import Knobs

KNOBS = Knobs()


@dataclass
class Tally:
    """Outcomes of one scenario over all replicates."""

    failed: int = 0
    inconclusive: int = 0
    naive_failed: int = 0
    significant: int = 0
    replicates: int = 0


def population(rng: random.Random, n: int) -> list[float]:
    """True pass probabilities of ``n`` cases: 70% always pass, 15% always fail, 15% flaky."""
    probs = []
    for _ in range(n):
        u = rng.random()
        probs.append(1.0 if u < 0.70 else 0.0 if u < 0.85 else rng.uniform(0.2, 0.8))
    return probs


def with_drop(rng: random.Random, probs: list[float], points: float) -> list[float]:
    """Halve the probability of random always-passing cases until the mean drops by ``points``."""
    out = list(probs)
    target = points * len(probs)
    passing = [i for i, p in enumerate(out) if p == 1.0]
    rng.shuffle(passing)
    lost = 0.0
    for i in passing:
        if lost >= target - 1e-9:
            break
        out[i] = 0.5
        lost += 0.5
    return out


def passes(rng: random.Random, p: float, k: int) -> int:
    """Passing trials out of ``k`` for a case of probability ``p`` (no draws for stable cases)."""
    if p >= 1.0:
        return k
    if p <= 0.0:
        return 0
    rand = rng.random
    return sum(1 for _ in range(k) if rand() < p)


def run(rng: random.Random, n: int, k: int, drop: float, replicates: int) -> Tally:
    """Replicate one scenario and count the gate's and the naive rule's decisions."""
    tally = Tally()
    for _ in range(replicates):
        base_p = population(rng, n)
        cand_p = with_drop(rng, base_p, drop) if drop else base_p
        pairs: Pairs = Counter()
        total_b = total_c = 0
        for pb, pc in zip(base_p, cand_p, strict=True):
            b, c = passes(rng, pb, k), passes(rng, pc, k)
            total_b += b
            total_c += c
            pairs[(k, b, k, c)] += 1
        stat = delta_stat(pairs, alpha=KNOBS.alpha, max_drop=KNOBS.max_drop)
        big_drop = stat.delta is not None and stat.delta <= -KNOBS.max_drop
        significant = stat.p_value is not None and stat.p_value < KNOBS.alpha
        tally.replicates += 1
        tally.failed += big_drop and significant
        tally.inconclusive += big_drop and not significant
        tally.naive_failed += (total_c - total_b) / (n * k) < -0.01
        tally.significant += significant
    return tally


def main() -> None:
    """Run every scenario and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20240611)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.perf_counter()
    print(f"{args.replicates} replicates per scenario; alpha {KNOBS.alpha}, max_drop {KNOBS.max_drop}\n")
    print("no real change (false alarms)      gate fails  gate warns  naive rule fails  test p < alpha")
    for n, k in ((100, 1), (100, 3), (200, 1), (200, 3)):
        t = run(rng, n, k, 0.0, args.replicates)
        print(
            f"  {n} cases x {k} trial{'s' if k > 1 else ' '}             "
            f"{t.failed / t.replicates:9.2%}  {t.inconclusive / t.replicates:9.2%}  {t.naive_failed / t.replicates:15.2%}"
            f"  {t.significant / t.replicates:13.2%}"
        )
    print("\ntrue 10-point drop (power)         gate fails  gate warns")
    for n, k in ((200, 3), (200, 1), (100, 3)):
        t = run(rng, n, k, 0.10, args.replicates)
        print(
            f"  {n} cases x {k} trial{'s' if k > 1 else ' '}             "
            f"{t.failed / t.replicates:9.2%}  {t.inconclusive / t.replicates:9.2%}"
        )
    print(f"\n(simulated in {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
