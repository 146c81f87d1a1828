"""Finite-size scaling of GD's empirical threshold: where δ₅₀(d) goes as d → ∞ (docs/finite_size.md).

Input: per (d, δ) cell the successes k and trials n (rows like ``<sweep>_cells.csv``, see
``featlearn.analysis.sweeps.cell_summary``; as in ``sweeps.threshold_rows`` the trials used are
``trials − diverged`` when a ``diverged`` column is present).  Per d the binomial logistic fit of
``featlearn.analysis.thresholds.fit_logistic`` (docs/model.md, eq. (M10)) gives δ₅₀(d) ± σ_d and the
width w(d) = s(d) ± σ_w(d).  Only d whose logistic fit has a δ₅₀ (status "ok" or "firth") and a finite,
positive σ_d enter the laws, the bootstrap and the collapse.

Candidate laws (ln = natural logarithm, θ the parameter vector):

    (F1a) "constant":  δ₅₀(d) = δ∞                          θ = (δ∞),
    (F1b) "log":       δ₅₀(d) = δ∞ − c / ln d                θ = (δ∞, c),
    (F1c) "power":     δ₅₀(d) = δ∞ − c d^(−ν),  ν ∈ [0.05, 3]  θ = (δ∞, c, ν).

Fit (F2): weighted least squares, χ²(θ) = Σ_d (δ₅₀(d) − f(d; θ))² / σ_d², with absolute weights
1/σ_d² (the covariance is *not* rescaled by χ²/dof).  Covariance Σ = (JᵀJ)⁻¹ with J_dj = ∂f(d)/∂θ_j / σ_d
the whitened Jacobian at the minimum; dof = N − p.  (F1a) and (F1b) are linear in θ and solved in
closed form, so (F1a) gives the inverse-variance weighted mean δ∞ = Σ w_d δ₅₀(d) / Σ w_d,
w_d = 1/σ_d², with s.e. 1/√(Σ w_d).  (F1c) is linear in (δ∞, c) at fixed ν: the profile χ²(ν) is
scanned on a geometric grid of ν, and the best grid point is refined by bounded least squares in all
three parameters.  When ν ends on a bound the status says so and the covariance is that of (δ∞, c)
at that ν (ν's error NaN).  A law needs N > p points; with fewer it returns NaN and a status saying
so.  A singular JᵀJ (e.g. c ≈ 0, so ν is not identified) keeps the estimates but NaN errors.

Parametric bootstrap of δ∞ (F3): for each replicate b and each d, k*_{d,i} ~ Binomial(n_{d,i}, p̂_{d,i})
with p̂_{d,i} = 1/(1 + exp(−(δ_i − δ₅₀(d))/s(d))) the *fitted* logistic of that d (not the observed
fraction k/n: a 0/n or n/n cell would be resampled as 0/n or n/n every time, freezing the tails of
the curve and understating the spread of δ₅₀); refit the logistic per d, refit each law on the
replicate's (δ₅₀*, σ*_d) and take the percentile interval [q_{(1−L)/2}, q_{(1+L)/2}] (L = level, 95 %
by default) of the replicates' δ∞*.  A replicate is dropped and counted when a per-d logistic fit
fails (then for every law) or when the law's refit has no finite δ∞ (for that law).  The generator
is ``numpy.random.default_rng(seed)`` with ``seed`` a tuple of integers.

Leave the largest d out (F4): fit each law on all d but the largest, d★, and predict there:
    (F4a) δ̂(d★) = f(d★; θ̂),   σ_pred² = g ᵀ Σ g,   g_j = ∂f(d★; θ̂)/∂θ_j,
    (F4b) z = (δ₅₀(d★) − δ̂(d★)) / √(σ_pred² + σ_d★²).
The chosen law is the one with the smallest |z| among the laws fitted (finite z) on the reduced set;
ties (|z| equal to 1e-9 relative) go to fewer parameters.

Collapse (F5): every cell maps to x = (δ − δ₅₀(d)) / w(d) and the observed fraction k/n.  If one
logistic scaling form describes all d, the points follow P(x) = 1/(1 + e^(−x)).  Quality (F6): the
binomial deviance against that single curve,
    D = Σ_i 2 [k_i ln(k_i / (n_i P(x_i))) + (n_i − k_i) ln((n_i − k_i) / (n_i (1 − P(x_i))))]
(0 ln 0 = 0), reported per point and per degree of freedom.  With the measured per-d δ₅₀ and w
(2 parameters per d) the maximum-likelihood D is exactly the sum of the per-d logistic deviances,
dof = N − 2 N_d, and D/dof ≈ 1 tests that *each* d has the logistic shape — not how w scales with d.
The width law (F7) w(d) = w₀ d^(−μ), fitted by weighted least squares on ln w with σ = σ_w/w, gives
a second collapse x̃ = (δ − δ₅₀(d)) / (w₀ d^(−μ)) whose deviance (dof ≈ N − N_d − 2; approximate, as
w₀, μ are fitted to the widths rather than to the counts) also tests the scaling of the width.  The
χ² approximation of D (E[D] ≈ dof) needs n_i p_i(1 − p_i) not too small.
"""

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, special

from featlearn.analysis.thresholds import FITTED, fit_logistic

LAWS = ("constant", "log", "power")
"""Candidate laws for δ₅₀(d), eqs. (F1a)–(F1c), in order of increasing number of parameters."""

N_PARAMS = {"constant": 1, "log": 2, "power": 3}

NU_BOUNDS = (0.05, 3.0)
"""Bounds on the exponent ν of the power law (F1c)."""

NU_GRID = np.geomspace(*NU_BOUNDS, 61)
"""Profile-χ² grid of ν that seeds the power-law refinement."""

_COND_MAX = 1e13


# --------------------------------------------------------------------------------------------- laws


def law_value(law, d, params):
    """f(d; θ) of eqs. (F1a)–(F1c)."""
    d = np.asarray(d, dtype=float)
    if law == "constant":
        return np.full_like(d, params[0])
    if law == "log":
        return params[0] - params[1] / np.log(d)
    if law == "power":
        return params[0] - params[1] * d ** (-params[2])
    raise ValueError(f"unknown law {law!r}")


def law_gradient(law, d, params):
    """∂f(d; θ)/∂θ_j, shape (len(d), p): the Jacobian of (F2) and the gradient g of (F4a)."""
    d = np.atleast_1d(np.asarray(d, dtype=float))
    if law == "constant":
        return np.ones((d.size, 1))
    if law == "log":
        return np.column_stack([np.ones_like(d), -1.0 / np.log(d)])
    if law == "power":
        dn = d ** (-params[2])
        return np.column_stack([np.ones_like(d), -dn, params[1] * dn * np.log(d)])
    raise ValueError(f"unknown law {law!r}")


@dataclass
class LawFit:
    """One weighted least-squares fit (F2) of a law; NaN where a parameter is absent or not fitted."""

    law: str
    delta_inf: float
    delta_inf_err: float
    c: float
    c_err: float
    nu: float
    nu_err: float
    chi2: float
    dof: int
    n_points: int
    status: str
    params: tuple = field(default=(), repr=False)
    cov: np.ndarray = field(default=None, repr=False)

    def as_dict(self):
        """The scalar fields (no θ vector, no covariance matrix)."""
        keys = ("law", "delta_inf", "delta_inf_err", "c", "c_err", "nu", "nu_err", "chi2", "dof")
        return {k: getattr(self, k) for k in (*keys, "n_points", "status")}


def _law_fit(law, params, cov, chi2, n, status):
    p = N_PARAMS[law]
    params = np.full(p, np.nan) if params is None else np.asarray(params, dtype=float)
    cov = np.full((p, p), np.nan) if cov is None else cov
    err = np.sqrt(np.where(np.diag(cov) >= 0, np.diag(cov), np.nan))
    padded, padded_err = np.full(3, np.nan), np.full(3, np.nan)
    padded[:p], padded_err[:p] = params, err
    return LawFit(
        law,
        float(padded[0]),
        float(padded_err[0]),
        float(padded[1]),
        float(padded_err[1]),
        float(padded[2]),
        float(padded_err[2]),
        float(chi2),
        int(max(n - p, 0)),
        int(n),
        status,
        tuple(float(v) for v in params),
        cov,
    )


def _covariance(jac):
    """(JᵀJ)⁻¹, or None when JᵀJ is (numerically) singular; the condition number is that of the
    column-equilibrated JᵀJ, so that a parameter's units (e.g. c multiplying d^(−3)) do not count."""
    if not np.isfinite(jac).all():
        return None
    norm = np.linalg.norm(jac, axis=0)
    if not (norm > 0).all():
        return None
    scaled = jac / norm
    info = scaled.T @ scaled
    if np.linalg.cond(info) > _COND_MAX:
        return None
    return np.linalg.inv(info) / np.outer(norm, norm)


def _linear_wls(design, y, err):
    """Weighted linear least squares: θ, covariance (None if singular), χ²."""
    a, b = design / err[:, None], y / err
    cov = _covariance(a)
    if cov is None:
        theta = np.linalg.lstsq(a, b, rcond=None)[0]
    else:
        theta = cov @ (a.T @ b)
    return theta, cov, float(np.sum((b - a @ theta) ** 2))


def _fit_power(d, y, err):
    """(F1c): profile χ²(ν) on ``NU_GRID``, then bounded least squares in (δ∞, c, ν)."""
    best = None
    for nu in NU_GRID:
        theta, _, chi2 = _linear_wls(law_gradient("power", d, (0.0, 0.0, nu))[:, :2], y, err)
        if best is None or chi2 < best[1]:
            best = (np.array([theta[0], theta[1], nu]), chi2)
    res = optimize.least_squares(
        lambda t: (y - law_value("power", d, t)) / err,
        best[0],
        jac=lambda t: -law_gradient("power", d, t) / err[:, None],
        bounds=([-np.inf, -np.inf, NU_BOUNDS[0]], [np.inf, np.inf, NU_BOUNDS[1]]),
        method="trf",
        x_scale="jac",
        xtol=1e-15,
        ftol=1e-15,
        gtol=1e-15,
        max_nfev=2000,
    )
    theta, chi2 = res.x, float(2 * res.cost)
    if chi2 > best[1]:  # never worse than the grid
        theta, chi2 = best
    jac = law_gradient("power", d, theta) / err[:, None]
    status = "ok"
    bound = res.active_mask[2] if chi2 == 2 * res.cost else 0
    if bound == 0 and np.isclose(theta[2], NU_BOUNDS, rtol=0, atol=1e-9).any():
        bound = -1 if np.isclose(theta[2], NU_BOUNDS[0], rtol=0, atol=1e-9) else 1
    if bound != 0:
        status = "nu at lower bound" if bound < 0 else "nu at upper bound"
        sub = _covariance(jac[:, :2])  # ν held at its bound
        cov = None
        if sub is not None:
            cov = np.full((3, 3), np.nan)
            cov[:2, :2] = sub
    else:
        cov = _covariance(jac)
    return theta, cov, chi2, status


def fit_law(law, d, delta50, delta50_err):
    """Weighted least-squares fit (F2) of law (F1a)/(F1b)/(F1c) to δ₅₀(d) ± σ_d.

    Points with a non-finite δ₅₀ or a non-finite / non-positive σ_d are left out.  Needs more points
    than parameters ("too few points" otherwise, all NaN).  Status "ok"; "nu at lower/upper bound"
    (power law; ν's error NaN, δ∞ and c conditional on ν); "singular covariance" (estimates kept,
    errors NaN).
    """
    d, y, err = (np.asarray(v, dtype=float) for v in (d, delta50, delta50_err))
    keep = np.isfinite(d) & np.isfinite(y) & np.isfinite(err) & (err > 0)
    d, y, err = d[keep], y[keep], err[keep]
    p, n = N_PARAMS[law], int(d.size)
    if n <= p:
        return _law_fit(law, None, None, np.nan, n, f"too few points ({n} <= {p} parameters)")
    if law == "power":
        theta, cov, chi2, status = _fit_power(d, y, err)
    else:
        theta, cov, chi2 = _linear_wls(law_gradient(law, d, None), y, err)
        status = "ok"
    if cov is None:
        status = "singular covariance"
    return _law_fit(law, theta, cov, chi2, n, status)


def predict(fit, d):
    """(F4a): f(d; θ̂) and its standard error √(gᵀ Σ g) (NaN when the fit has no covariance)."""
    d = np.atleast_1d(np.asarray(d, dtype=float))
    if not np.isfinite(fit.delta_inf):
        return np.full(d.size, np.nan), np.full(d.size, np.nan)
    theta = np.asarray(fit.params)
    value = law_value(fit.law, d, theta)
    grad = law_gradient(fit.law, d, theta)
    cov = np.where(np.isnan(fit.cov), 0.0, fit.cov) if fit.status.startswith("nu at") else fit.cov
    var = np.einsum("ij,jk,ik->i", grad, cov, grad)
    return value, np.sqrt(np.where(var >= 0, var, np.nan))


def law_curves(model, d, delta50, delta50_err, laws=LAWS, points=60, reach=8.0):
    """Rows (model, law, d, value, err) of each law fitted to (d, δ₅₀ ± σ) and its standard error
    (F4a) on a geometric grid from min(d)/1.5 to reach·max(d): the curves and bands the figure
    draws (no row for a law that could not be fitted)."""
    if len(d) == 0:
        return []
    grid = np.geomspace(min(d) / 1.5, reach * max(d), points)
    rows = []
    for law in laws:
        fit = fit_law(law, d, delta50, delta50_err)
        if not np.isfinite(fit.delta_inf):
            continue
        value, err = predict(fit, grid)
        rows += [
            {"model": model, "law": law, "d": float(x), "value": float(v), "err": float(e)}
            for x, v, e in zip(grid, value, err, strict=True)
        ]
    return rows


# ---------------------------------------------------------------------------------------- leave-out


@dataclass
class LeaveOut:
    """(F4): a law fitted without the largest d, its prediction there against the measurement."""

    law: str
    d_left_out: float
    predicted: float
    predicted_err: float
    measured: float
    measured_err: float
    error_sigma: float
    status: str

    def as_dict(self):
        return dict(vars(self))


def leave_largest_out(d, delta50, delta50_err, laws=LAWS):
    """(F4a)–(F4b) for each law: fit on all usable d but the largest, predict at the largest."""
    d, y, err = (np.asarray(v, dtype=float) for v in (d, delta50, delta50_err))
    keep = np.isfinite(d) & np.isfinite(y) & np.isfinite(err) & (err > 0)
    d, y, err = d[keep], y[keep], err[keep]
    out = []
    if d.size == 0:
        return [LeaveOut(law, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, "no points") for law in laws]
    last = int(np.argmax(d))
    rest = np.arange(d.size) != last
    for law in laws:
        fit = fit_law(law, d[rest], y[rest], err[rest])
        value, se = predict(fit, d[last])
        z = (y[last] - value[0]) / np.sqrt(se[0] ** 2 + err[last] ** 2)
        out.append(
            LeaveOut(
                law,
                float(d[last]),
                float(value[0]),
                float(se[0]),
                float(y[last]),
                float(err[last]),
                float(z),
                fit.status,
            )
        )
    return out


def choose_law(leave_outs):
    """The law with the smallest |z| of (F4b) among those with a finite z (ties → fewer parameters);
    None when no law could be fitted on the reduced set."""
    scored = [
        (abs(lo.error_sigma), N_PARAMS[lo.law], lo.law) for lo in leave_outs if np.isfinite(lo.error_sigma)
    ]
    if not scored:
        return None
    best = min(s for s, _, _ in scored)
    tied = [t for t in scored if t[0] <= best * (1 + 1e-9) + 1e-300]
    return min(tied, key=lambda t: t[1])[2]


# ------------------------------------------------------------------------------------------- cells


@dataclass
class Cells:
    """The cells of one d, sorted by δ: grid, successes and (non-diverged) trials per δ, and the
    censored trials (failures stopped by the step budget, docs/model.md) among them."""

    delta: np.ndarray
    successes: np.ndarray
    trials: np.ndarray
    censored: np.ndarray | None = None


def group_cells(rows):
    """{d: Cells} from rows with keys d, delta, successes, trials (and optionally diverged, whose
    trials are left out of the count, as in ``sweeps.threshold_rows``, and censored), sorted by d
    then δ."""
    out = {}
    for d in sorted({int(round(float(r["d"]))) for r in rows}):
        cells = sorted((r for r in rows if int(round(float(r["d"]))) == d), key=lambda r: float(r["delta"]))
        trials = [int(round(float(r["trials"]) - float(r.get("diverged", 0) or 0))) for r in cells]
        out[d] = Cells(
            np.array([float(r["delta"]) for r in cells]),
            np.array([int(round(float(r["successes"]))) for r in cells]),
            np.array(trials),
            np.array([int(round(float(r.get("censored", 0) or 0))) for r in cells]),
        )
    return out


def per_d_fits(cells):
    """{d: LogisticFit} (docs/model.md, eq. (M10)) for each d of ``cells``."""
    return {d: fit_logistic(c.delta, c.successes, c.trials) for d, c in cells.items()}


def _usable(fit):
    return fit.status in FITTED and np.isfinite(fit.delta50_err) and fit.delta50_err > 0


def usable_thresholds(fits):
    """Arrays (d, δ₅₀, σ_d) of the d whose logistic fit has a δ₅₀ with a finite positive error."""
    ds = [d for d, f in sorted(fits.items()) if _usable(f)]
    return (
        np.array(ds, dtype=float),
        np.array([fits[d].delta50 for d in ds]),
        np.array([fits[d].delta50_err for d in ds]),
    )


# ---------------------------------------------------------------------------------------- bootstrap


@dataclass
class BootstrapCI:
    """(F3): percentile interval of δ∞ over the kept replicates, their spread, and the counts."""

    law: str
    low: float
    high: float
    std: float
    n_kept: int
    n_failed: int

    def as_dict(self):
        return dict(vars(self))


def bootstrap_delta_inf(cells, laws=LAWS, n_boot=200, seed=(0,), level=0.95, fits=None):
    """(F3): {law: BootstrapCI} from resampling every usable d's cells from its fitted logistic.

    The replicates are shared between the laws (one set of resampled counts and logistic refits per
    replicate).  ``seed`` is a tuple of integers for ``numpy.random.default_rng``.
    """
    fits = per_d_fits(cells) if fits is None else fits
    ds = [d for d in sorted(cells) if d in fits and _usable(fits[d])]
    rng = np.random.default_rng(list(seed))
    p_hat = {d: 1.0 / (1.0 + np.exp(-(cells[d].delta - fits[d].delta50) / fits[d].scale)) for d in ds}
    values = {law: [] for law in laws}
    failed = dict.fromkeys(laws, 0)
    for _ in range(n_boot):
        refits = [
            fit_logistic(cells[d].delta, rng.binomial(cells[d].trials, p_hat[d]), cells[d].trials) for d in ds
        ]
        if not ds or not all(_usable(f) for f in refits):
            for law in laws:
                failed[law] += 1
            continue
        y = np.array([f.delta50 for f in refits])
        err = np.array([f.delta50_err for f in refits])
        for law in laws:
            fit = fit_law(law, ds, y, err)
            if np.isfinite(fit.delta_inf):
                values[law].append(fit.delta_inf)
            else:
                failed[law] += 1
    out = {}
    for law in laws:
        v = np.array(values[law])
        if v.size >= 2:
            low, high = np.percentile(v, [50 * (1 - level), 50 * (1 + level)])
            std = float(np.std(v, ddof=1))
        else:
            low = high = std = np.nan
        out[law] = BootstrapCI(law, float(low), float(high), std, int(v.size), int(failed[law]))
    return out


# ----------------------------------------------------------------------------------------- collapse


def binomial_deviance(x, successes, trials):
    """(F6): per-point deviance 2[k ln(k/(nP)) + (n−k) ln((n−k)/(n(1−P)))], P = 1/(1 + e^(−x))."""
    x, k, n = (np.asarray(v, dtype=float) for v in (x, successes, trials))
    log_p, log_q = -np.logaddexp(0.0, -x), -np.logaddexp(0.0, x)
    saturated = special.xlogy(k, k / n) + special.xlogy(n - k, (n - k) / n)
    return 2.0 * (saturated - k * log_p - (n - k) * log_q)


@dataclass
class WidthFit:
    """(F7): w(d) = w₀ d^(−μ) by weighted least squares on ln w."""

    w0: float
    w0_err: float
    mu: float
    mu_err: float
    chi2: float
    dof: int
    status: str

    def width(self, d):
        return self.w0 * np.asarray(d, dtype=float) ** (-self.mu)


def fit_width_law(d, width, width_err):
    """(F7) on the d with a finite positive width and error; needs 3 points or more."""
    d, w, err = (np.asarray(v, dtype=float) for v in (d, width, width_err))
    keep = np.isfinite(w) & np.isfinite(err) & (w > 0) & (err > 0)
    d, w, err = d[keep], w[keep], err[keep]
    if d.size <= 2:
        return WidthFit(
            np.nan, np.nan, np.nan, np.nan, np.nan, 0, f"too few points ({d.size} <= 2 parameters)"
        )
    theta, cov, chi2 = _linear_wls(np.column_stack([np.ones_like(d), -np.log(d)]), np.log(w), err / w)
    if cov is None:
        return WidthFit(np.nan, np.nan, np.nan, np.nan, chi2, d.size - 2, "singular covariance")
    w0 = float(np.exp(theta[0]))
    return WidthFit(
        w0,
        w0 * float(np.sqrt(cov[0, 0])),
        float(theta[1]),
        float(np.sqrt(cov[1, 1])),
        chi2,
        int(d.size - 2),
        "ok",
    )


def collapse_points(cells, fits, width_fit=None):
    """(F5): one row per cell of a usable d: x = (δ − δ₅₀(d))/w(d) with the measured width, the
    observed fraction, and (with ``width_fit``) x_power_width with the width law (F7)."""
    rows = []
    for d in sorted(cells):
        fit = fits.get(d)
        if fit is None or not _usable(fit):
            continue
        c = cells[d]
        for delta, k, n in zip(c.delta, c.successes, c.trials, strict=True):
            if n <= 0:
                continue
            row = {
                "d": int(d),
                "delta": float(delta),
                "successes": int(k),
                "trials": int(n),
                "fraction": float(k / n),
                "x": float((delta - fit.delta50) / fit.scale),
            }
            if width_fit is not None:
                row["x_power_width"] = float((delta - fit.delta50) / width_fit.width(d))
            rows.append(row)
    return rows


def collapse_quality(points, width_fit=None):
    """(F6) of the collapse points: one row per width ("measured"; "power_law" when the points carry
    x_power_width and the width law was fitted) with D, N, dof, D/N and D/dof."""
    out = []
    n_d = len({p["d"] for p in points})
    k = np.array([p["successes"] for p in points], dtype=float)
    n = np.array([p["trials"] for p in points], dtype=float)
    variants = [("measured", "x", 2 * n_d)]
    if width_fit is not None and points and "x_power_width" in points[0] and np.isfinite(width_fit.mu):
        variants.append(("power_law", "x_power_width", n_d + 2))
    for width, key, n_params in variants:
        x = np.array([p[key] for p in points], dtype=float)
        dev = float(binomial_deviance(x, k, n).sum()) if points else np.nan
        dof = len(points) - n_params
        row = {
            "width": width,
            "n_points": len(points),
            "n_d": n_d,
            "deviance": dev,
            "dof": dof,
            "deviance_per_point": dev / len(points) if points else np.nan,
            "deviance_per_dof": dev / dof if dof > 0 else np.nan,
        }
        if width == "power_law":
            row.update(w0=width_fit.w0, mu=width_fit.mu, mu_err=width_fit.mu_err, width_chi2=width_fit.chi2)
        out.append(row)
    return out


# ---------------------------------------------------------------------------------------- top level


def crossing_estimates(cells, ds, laws=LAWS):
    """(F8a) Where the ½-crossing lies at each d of ``ds``: {d: (δ̂₅₀(d), ŵ(d), source)}.  At a d
    whose logistic fit is usable, the measured δ₅₀ and width ("measured"); elsewhere the law chosen
    by (F4) refitted on every usable d, f(d; θ̂), and the width law (F7) w₀d^(−μ) ("extrapolated");
    (NaN, NaN, "none") where either is missing."""
    fits = per_d_fits(cells)
    d, y, err = usable_thresholds(fits)
    law = choose_law(leave_largest_out(d, y, err, laws))
    fit = fit_law(law, d, y, err) if law else None
    usable = [k for k in sorted(fits) if _usable(fits[k])]
    width = fit_width_law(usable, [fits[k].scale for k in usable], [fits[k].scale_err for k in usable])
    out = {}
    for target in ds:
        if target in fits and _usable(fits[target]) and np.isfinite(fits[target].scale):
            out[target] = (fits[target].delta50, fits[target].scale, "measured")
        elif fit is not None and np.isfinite(fit.delta_inf) and np.isfinite(width.mu):
            out[target] = (float(predict(fit, target)[0][0]), float(width.width(target)), "extrapolated")
        else:
            out[target] = (np.nan, np.nan, "none")
    return out


def refined_grid(existing, centre, width, offsets, step):
    """(F8b) The δ of a second pass at one d: δ̂₅₀ + u·ŵ for u in ``offsets``, rounded to multiples of
    ``step``, positive, joined with the δ already run there (``existing``, kept so that every
    completed block is reused); ``existing`` alone without an estimate."""
    if not (np.isfinite(centre) and np.isfinite(width)):
        return sorted(existing)
    new = {round(round((centre + u * width) / step) * step, 10) for u in offsets}
    return sorted({float(v) for v in existing} | {v for v in new if v > 0})


def finite_size_analysis(rows, model, laws=LAWS, n_boot=200, seed=(0,), level=0.95):
    """Finite-size scaling of one model's cells (rows with d, delta, successes, trials[, diverged]).

    Returns a dict of row lists (for ``featlearn.io.results.write_csv``):
      "per_d": d, δ₅₀, its error, width s(d), its error, status, number of δ points, the censored
        trials among the cells of that d and the cells that have any (a fit counts them as failures);
      "curves": each fitted law and its standard error (F4a) on a grid of d (``law_curves``);
      "laws": per law (F1)–(F4): δ∞ ± s.e., bootstrap CI (F3), c, ν, χ², dof, status, leave-out
        prediction/measurement/z (F4), chosen (exactly one True unless no law fits the reduced set);
      "collapse": the points (F5);
      "collapse_quality": (F6) with the measured widths and with the width law (F7).
    """
    cells = group_cells(rows)
    fits = per_d_fits(cells)
    per_d = [
        {
            "model": model,
            "d": int(d),
            "delta50": f.delta50,
            "delta50_err": f.delta50_err,
            "width": f.scale,
            "width_err": f.scale_err,
            "status": f.status,
            "n_delta": int(cells[d].delta.size),
            "censored": int(cells[d].censored.sum()),
            "censored_cells": int(np.count_nonzero(cells[d].censored)),
        }
        for d, f in sorted(fits.items())
    ]
    d, y, err = usable_thresholds(fits)
    boot = bootstrap_delta_inf(cells, laws, n_boot=n_boot, seed=seed, level=level, fits=fits)
    leave = {lo.law: lo for lo in leave_largest_out(d, y, err, laws)}
    chosen = choose_law(list(leave.values()))
    law_rows = []
    for law in laws:
        fit, ci, lo = fit_law(law, d, y, err), boot[law], leave[law]
        law_rows.append(
            {
                "model": model,
                "law": law,
                "status": fit.status,
                "n_points": fit.n_points,
                "delta_inf": fit.delta_inf,
                "delta_inf_err": fit.delta_inf_err,
                "delta_inf_low": ci.low,
                "delta_inf_high": ci.high,
                "boot_kept": ci.n_kept,
                "boot_failed": ci.n_failed,
                "c": fit.c,
                "c_err": fit.c_err,
                "nu": fit.nu,
                "nu_err": fit.nu_err,
                "chi2": fit.chi2,
                "dof": fit.dof,
                "d_left_out": lo.d_left_out,
                "loo_status": lo.status,
                "loo_predicted": lo.predicted,
                "loo_predicted_err": lo.predicted_err,
                "loo_measured": lo.measured,
                "loo_measured_err": lo.measured_err,
                "loo_error_sigma": lo.error_sigma,
                "chosen": law == chosen,
            }
        )
    usable = [k for k in sorted(fits) if _usable(fits[k])]
    width_fit = fit_width_law(usable, [fits[k].scale for k in usable], [fits[k].scale_err for k in usable])
    points = collapse_points(cells, fits, width_fit if np.isfinite(width_fit.mu) else None)
    quality = [{"model": model, **q} for q in collapse_quality(points, width_fit)]
    return {
        "per_d": per_d,
        "laws": law_rows,
        "curves": law_curves(model, d, y, err, laws),
        "collapse": [{"model": model, **p} for p in points],
        "collapse_quality": quality,
    }
