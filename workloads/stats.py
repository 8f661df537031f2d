"""Statistics the report uses: bounds on rates, medians with intervals.

Intervals of a median are distribution-free (order statistics), not a
bootstrap: with 10 values a percentile bootstrap is close to [x(2), x(9)]
anyway and misstates its coverage; the order-statistic interval states it
exactly (97.9% for 10 values).

No third-party packages: the machines that run the report have only Python.
"""
import statistics


def binom_upper(k, n, conf=0.95):
    """One-sided upper confidence bound on a rate from k events in n trials
    (Clopper-Pearson; for k = 0 close to the rule of three, 3/n)."""
    if n == 0:
        return None
    if k >= n:
        return 1.0
    alpha = 1 - conf
    lo, hi = k / n, 1.0
    for _ in range(60):  # bisection on P(X <= k | p) = alpha
        mid = (lo + hi) / 2
        cdf, term = 0.0, (1 - mid) ** n
        for i in range(k + 1):
            if i:
                term *= (n - i + 1) / i * mid / (1 - mid)
            cdf += term
        if cdf > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def binom_interval(k, n, conf=0.95):
    """Two-sided confidence interval (lo, hi) of a rate from k events in n
    trials (Clopper-Pearson: each side misses with (1 - conf) / 2; the lower
    bound is the upper bound of the other outcome's rate, mirrored), or None
    for n = 0."""
    if n == 0:
        return None
    side = 1 - (1 - conf) / 2
    return (1.0 - binom_upper(n - k, n, side) if k else 0.0,
            binom_upper(k, n, side) if k < n else 1.0)


def median_ci(values, conf=0.95):
    """Distribution-free interval of the median from order statistics:
    [x(k), x(n-k+1)] for the largest k whose coverage, 1 - 2 P(B <= k-1)
    with B ~ Binomial(n, 1/2), is at least `conf`.  Returns (lo, hi,
    coverage), or None when even [min, max] covers less (n <= 5)."""
    vals = sorted(v for v in values if v is not None)
    n = len(vals)
    best = None
    cdf, term = 0.0, 0.5 ** n  # P(B <= k-1), built up from k = 1
    for k in range(1, n // 2 + 1):
        cdf += term
        term *= (n - (k - 1)) / k
        cov = 1 - 2 * cdf
        if cov < conf:
            break
        best = (vals[k - 1], vals[n - k], cov)
    return best


def summary(values):
    """median, min, max, n, and the median's interval of at least 95% coverage
    (ci95 = (lo, hi), coverage) or None."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    ci = median_ci(vals)
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals),
            "n": len(vals), "ci95": ci[:2] if ci else None, "coverage": ci[2] if ci else None}


def variance(values):
    vals = [v for v in values if v is not None]
    return statistics.variance(vals) if len(vals) > 1 else None
