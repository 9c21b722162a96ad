"""Simulate the gate on synthetic suites: false FAILs with no change, power, power at the printed MDE.

Usage: python benchmarks/perf/gate_simulation.py [--replicates N] [--power-replicates N] [--seed S] [--quick]
       [--only-renames]

Suites: "deterministic" (80% of cases always pass, 20% always fail) and "flaky" (70% always pass, 15%
always fail, 15% pass with a probability drawn from [0.2, 0.8]); 20, 50, 100 or 200 cases; 1, 3 or 5
trials per case on both sides. The gate's own code decides: the stratified test
(``gate.conditional.drop_p``, exact McNemar at one trial), the per-case test for contrast
(``gate.paired.delta_stat`` with ``test="per_case"``), the MDE the report prints
(``gate.paired.delta_stat``), the error budget (``gate.paired.over_error_budget``) and Holm
(``gate.stats.holm``), under the default policy (alpha 0.05, max_drop 0.05). A suite fails when
its delta is at or below -max_drop and its (adjusted) p-value is below alpha, as in
``gate.verdict.decide``; the p-value is computed only when the delta is that low (the decision is
the same, and it is much faster). Every rate is printed with its 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

from agent_evals.gate import renamed
from agent_evals.gate.paired import EPS, Pairs, delta_stat, over_error_budget
from agent_evals.gate.policy import Knobs
from agent_evals.stats import conditional
from agent_evals.stats.exact import holm, wilson_interval

KNOBS = Knobs()
SIZES = (20, 50, 100, 200)
TRIALS = (1, 3, 5)
Draw = Callable[[random.Random, float, int], int]


def population(rng: random.Random, n: int, shape: str) -> list[float]:
    """True pass probabilities of ``n`` cases."""
    probs = []
    for _ in range(n):
        u = rng.random()
        if shape == "deterministic":
            probs.append(1.0 if u < 0.80 else 0.0)
        else:
            probs.append(1.0 if u < 0.70 else 0.0 if u < 0.85 else rng.uniform(0.2, 0.8))
    return probs


def independent(rng: random.Random, p: float, k: int) -> int:
    """Passing trials out of ``k``, each an independent draw."""
    if p >= 1.0:
        return k
    if p <= 0.0:
        return 0
    return sum(1 for _ in range(k) if rng.random() < p)


def correlated(rng: random.Random, p: float, k: int) -> int:
    """Trials of a run share state half the time (intra-case correlation 0.5): all copy one draw."""
    if p >= 1.0 or p <= 0.0:
        return independent(rng, p, k)
    if rng.random() < 0.5:
        return k if rng.random() < p else 0
    return independent(rng, p, k)


def draw_pairs(rng: random.Random, base: list[float], cand: list[float], k: int, trial: Draw) -> Pairs:
    pairs: Pairs = Counter()
    for pb, pc in zip(base, cand, strict=True):
        pairs[(k, trial(rng, pb, k), k, trial(rng, pc, k))] += 1
    return pairs


def delta_of(pairs: Pairs) -> float:
    n = sum(pairs.values())
    return sum((pc / vc - pb / vb) * w for (vb, pb, vc, pc), w in pairs.items()) / n


def stratified_fails(pairs: Pairs, alpha: float = KNOBS.alpha) -> bool:
    """The default gate's decision for one suite (no floor, no errors)."""
    if delta_of(pairs) > -KNOBS.max_drop + EPS:
        return False
    return conditional.drop_p(pairs).p_value < alpha


def per_case_fails(pairs: Pairs) -> bool:
    if delta_of(pairs) > -KNOBS.max_drop + EPS:
        return False
    stat = delta_stat(pairs, alpha=KNOBS.alpha, max_drop=KNOBS.max_drop, test="per_case")
    return stat.p_value is not None and stat.p_value < KNOBS.alpha


def rate(hits: int, n: int) -> str:
    low, high = wilson_interval(hits, n)
    return f"{hits / n:6.2%} [{low:.2%}, {high:.2%}]"


def no_change(rng: random.Random, reps: int) -> None:
    print(f"\nNo change ({reps:,} replicates per shape): false FAIL rate [95% interval]")
    print("  shape                     stratified (default)       per_case test              naive >1pt drop")
    for shape in ("deterministic", "flaky"):
        for n in SIZES:
            for k in TRIALS:
                strat = per = naive = 0
                for _ in range(reps):
                    probs = population(rng, n, shape)
                    pairs = draw_pairs(rng, probs, probs, k, independent)
                    d = delta_of(pairs)
                    strat += stratified_fails(pairs)
                    per += per_case_fails(pairs)
                    naive += d < -0.01
                print(
                    f"  {shape:13} {n:3}x{k}       {rate(strat, reps)}  {rate(per, reps)}  {rate(naive, reps)}"
                )


def correlated_trials(rng: random.Random, reps: int) -> None:
    print(f"\nNo change, trials that share state (correlation 0.5), flaky suites ({reps:,} replicates)")
    print("  shape          stratified (default)       per_case test")
    for n, k in ((50, 3), (100, 3), (200, 3), (200, 5)):
        strat = per = 0
        for _ in range(reps):
            probs = population(rng, n, "flaky")
            pairs = draw_pairs(rng, probs, probs, k, correlated)
            strat += stratified_fails(pairs)
            per += per_case_fails(pairs)
        print(f"  {n:3}x{k}          {rate(strat, reps)}  {rate(per, reps)}")


def small_regressions() -> None:
    print("\nSmall deterministic regressions (cases passing every trial now fail every trial)")
    for n, k, flips in ((14, 3, 4), (14, 3, 2), (14, 5, 2), (14, 1, 4), (20, 1, 5), (20, 3, 2)):
        pairs: Pairs = Counter({(k, k, k, 0): flips, (k, k, k, k): n - flips})
        stat = delta_stat(pairs, alpha=KNOBS.alpha, max_drop=KNOBS.max_drop)
        per = delta_stat(pairs, alpha=KNOBS.alpha, max_drop=KNOBS.max_drop, test="per_case")
        verdict = "FAIL" if stratified_fails(pairs) else "no fail"
        print(
            f"  {flips} of {n} at k={k}: stratified p = {stat.p_value:.2g} -> {verdict}; "
            f"per_case p = {per.p_value:.2g}"
        )


def with_drop(probs: list[float], r: float) -> list[float]:
    """The MDE's drop model: every case loses the share ``r`` of its pass probability."""
    return [p * (1.0 - r) for p in probs]


def power_at_mde(rng: random.Random, reps: int) -> None:
    print(
        f"\nPower at the printed MDE ({reps:,} replicates per shape; MDE = median printed over 21 no-change runs)"
    )
    print("  shape                     printed MDE   gate FAILs at that drop")
    for shape in ("deterministic", "flaky"):
        for n in SIZES:
            for k in TRIALS:
                printed = []
                for _ in range(21):
                    probs = population(rng, n, shape)
                    stat = delta_stat(
                        draw_pairs(rng, probs, probs, k, independent),
                        alpha=KNOBS.alpha,
                        max_drop=KNOBS.max_drop,
                    )
                    printed.append(stat.mde if stat.mde is not None else float("inf"))
                mde = statistics.median(printed)
                if mde == float("inf"):
                    print(f"  {shape:13} {n:3}x{k}       cannot fail")
                    continue
                hits = 0
                for _ in range(reps):
                    probs = population(rng, n, shape)
                    mean = sum(probs) / n
                    cand = with_drop(probs, min(1.0, mde / mean)) if mean else probs
                    hits += stratified_fails(draw_pairs(rng, probs, cand, k, independent))
                print(f"  {shape:13} {n:3}x{k}       {mde * 100:5.1f} pp     {rate(hits, reps)}")


def ten_points(rng: random.Random, reps: int) -> None:
    print(f"\nA true 10-point drop ({reps:,} replicates, flaky suites, same drop model)")
    for n, k in ((200, 3), (200, 1), (100, 3)):
        hits = 0
        for _ in range(reps):
            probs = population(rng, n, "flaky")
            cand = with_drop(probs, 0.10 / (sum(probs) / n))
            hits += stratified_fails(draw_pairs(rng, probs, cand, k, independent))
        print(f"  {n:3}x{k}: gate FAILs {rate(hits, reps)}")


def errors_near_budget(rng: random.Random, reps: int) -> None:
    print(f"\nErrors just under the budget: true error rate 4%, max_error_rate 5% ({reps:,} replicates)")
    for n, k in ((100, 1), (200, 3), (100, 5), (500, 3)):
        trials = n * k
        bound = point = 0
        for _ in range(reps):
            errored = sum(1 for _ in range(trials) if rng.random() < 0.04)
            bound += over_error_budget(errored, trials, KNOBS.max_error_rate)
            point += errored / trials > KNOBS.max_error_rate
        print(
            f"  {n:3}x{k} ({trials} trials): lower-bound rule {rate(bound, reps)}  observed-rate rule {rate(point, reps)}"
        )


def holm_five(rng: random.Random, reps: int) -> None:
    print(f"\nFive flaky suites of 50x3 under Holm, no change ({reps:,} replicates): any suite FAILs")
    hits = unadjusted = 0
    for _ in range(reps):
        p_values, drops = [], []
        for _ in range(5):
            probs = population(rng, 50, "flaky")
            pairs = draw_pairs(rng, probs, probs, 3, independent)
            drop = delta_of(pairs) <= -KNOBS.max_drop + EPS
            drops.append(drop)
            p_values.append(conditional.drop_p(pairs).p_value if drop else 1.0)
        adjusted = holm(p_values)
        hits += any(d and p < KNOBS.alpha for d, p in zip(drops, adjusted, strict=True))
        unadjusted += any(d and p < KNOBS.alpha for d, p in zip(drops, p_values, strict=True))
    print(f"  with Holm {rate(hits, reps)}   without {rate(unadjusted, reps)}")


def history_shapes(rng: random.Random, reps: int) -> None:
    print(
        f"\nNo change, with earlier baselines pooled into the test (--history), flaky suites ({reps:,} replicates)"
    )
    for n, k, earlier in ((20, 1, 10), (50, 1, 10), (200, 1, 5), (50, 3, 5)):
        hits = 0
        for _ in range(reps):
            probs = population(rng, n, "flaky")
            current: Pairs = Counter()
            pooled: Pairs = Counter()
            for p in probs:
                b, c = independent(rng, p, k), independent(rng, p, k)
                h = sum(independent(rng, p, k) for _ in range(earlier))
                current[(k, b, k, c)] += 1
                pooled[(k * (earlier + 1), b + h, k, c)] += 1
            if delta_of(current) <= -KNOBS.max_drop + EPS:
                hits += conditional.drop_p(pooled).p_value < KNOBS.alpha
        print(f"  {n:3}x{k} with {earlier:2} earlier baselines: false FAIL {rate(hits, reps)}")
    pairs: Pairs = Counter({(11, 11, 1, 0): 4, (11, 11, 1, 1): 10})
    print(
        f"  4 of 14 at k=1 after 10 stable earlier baselines: p = {conditional.drop_p(pairs).p_value:.2g} -> "
        + ("FAIL" if conditional.drop_p(pairs).p_value < KNOBS.alpha else "no fail")
    )


def confirm_shapes(rng: random.Random, reps: int) -> None:
    print(
        f"\nNo change, with a confirm run (the flipped cases of a failing or inconclusive suite re-run 5 more "
        f"times, decided on all the data at alpha / 2), flaky suites ({reps:,} replicates)"
    )
    for n, k in ((20, 1), (50, 1), (50, 3), (200, 1), (20, 3)):
        hits = confirmed_looks = 0
        for _ in range(reps):
            probs = population(rng, n, "flaky")
            sides = [(independent(rng, p, k), independent(rng, p, k)) for p in probs]
            pairs: Pairs = Counter((k, b, k, c) for b, c in sides)
            if delta_of(pairs) > -KNOBS.max_drop + EPS:
                continue  # passed at the first look: nothing to confirm
            confirmed_looks += 1
            merged: Pairs = Counter()
            for p, (b, c) in zip(probs, sides, strict=True):
                if c < b:  # a flipped case: re-run it on the candidate
                    merged[(k, b, k + 5, c + independent(rng, p, 5))] += 1
                else:
                    merged[(k, b, k, c)] += 1
            hits += stratified_fails(merged, alpha=KNOBS.alpha / 2)
        print(
            f"  {n:3}x{k}: false FAIL {rate(hits, reps)} (a confirm run in {confirmed_looks / reps:.1%} of them)"
        )


def rename_fails(
    rng: random.Random, n: int, k: int, share: float, drop: float = 0.0, *, same_input: bool = False
) -> bool:
    """One suite of which ``share`` of the cases were renamed (new ids, so not paired): the paired test
    over the kept cases and the unpaired exact test of the removed against the added cases, under Holm
    (the rename test joins the family only when it can reach alpha, as in the gate). ``drop``: the
    added cases lose that share of their pass probability (0: a rename with no real change).
    ``same_input``: each renamed case kept its input, so the test pairs it with its old self."""
    probs = population(rng, n, "flaky")
    moved = round(n * share)
    kept, gone = probs[moved:], probs[:moved]
    pairs = draw_pairs(rng, kept, kept, k, independent)
    before = [Fraction(independent(rng, p, k), k) for p in gone]
    after = [Fraction(independent(rng, p * (1.0 - drop), k), k) for p in gone]
    p_pair = conditional.drop_p(pairs).p_value if pairs else 1.0
    tests = [(p_pair, delta_of(pairs) if pairs else 0.0)]
    if same_input and moved >= renamed.PAIRED_MIN:  # as the gate does: few pairs are tested unpaired
        p_ren, floor, _ = renamed.drop_p([], [], list(zip(before, after, strict=True)))
    else:
        p_ren, floor, _ = renamed.drop_p(before, after)
    if floor < KNOBS.alpha:
        tests.append((p_ren, float(sum(after) - sum(before)) / moved))
    adjusted = holm([p for p, _ in tests])
    return any(
        p < KNOBS.alpha and d <= -KNOBS.max_drop + EPS for (_, d), p in zip(tests, adjusted, strict=True)
    )


def rename_shapes(rng: random.Random, reps: int) -> None:
    print(
        f"\nSome cases renamed (new ids, same cases), flaky suites ({reps:,} replicates): false FAIL with no "
        "change, and FAIL when the renamed cases lose half their pass probability; unpaired (new inputs "
        "too, or none recorded) and paired by their unchanged input"
    )
    print(
        "  shape   renamed  no change, unpaired         no change, paired           broken, unpaired          broken, paired"
    )
    for n, k in ((20, 1), (50, 1), (50, 3), (200, 1), (200, 3)):
        for share in (0.1, 0.25, 0.5):
            cells = []
            for drop in (0.0, 0.5):
                for same in (False, True):
                    hits = sum(rename_fails(rng, n, k, share, drop, same_input=same) for _ in range(reps))
                    cells.append(rate(hits, reps))
            print(f"  {n:3}x{k}   {share:4.0%}    " + "   ".join(cells))


def main() -> None:
    """Run every scenario and print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--replicates", type=int, default=5000)
    parser.add_argument("--power-replicates", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--quick", action="store_true", help="500 and 200 replicates: a smoke run")
    parser.add_argument("--only-renames", action="store_true", help="only the renamed-cases scenario")
    args = parser.parse_args()
    reps, power_reps = (500, 200) if args.quick else (args.replicates, args.power_replicates)
    rng = random.Random(args.seed)
    started = time.perf_counter()
    print(f"alpha {KNOBS.alpha}, max_drop {KNOBS.max_drop}")
    if args.only_renames:
        rename_shapes(rng, reps)
        print(f"\n(simulated in {time.perf_counter() - started:.0f} s)")
        return
    small_regressions()
    no_change(rng, reps)
    correlated_trials(rng, reps)
    history_shapes(rng, reps)
    confirm_shapes(rng, reps)
    rename_shapes(rng, reps)
    holm_five(rng, reps)
    errors_near_budget(rng, reps)
    power_at_mde(rng, power_reps)
    ten_points(rng, power_reps)
    print(f"\n(simulated in {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
