"""Laws of δ₅₀(d) fitted by the joint binomial likelihood of every cell of every d, with profile
intervals for their parameters and for δ∞ (docs/finite_size.md, eqs. (F4)–(F9)).

Dimension enters as t = log₂(d / d_ref), the number of doublings above the smallest usable d.  With
a free width per d the joint log-likelihood is ℓ(θ) = Σ_d L_d(f(t_d; θ)), L_d the width-profiled
likelihood of ``width_profile`` (F2).  The laws (ν ≥ 0, λ ≥ 0):

    (F4a) constant:   f = a                                         no growth
    (F4b) linear:     f = a + b t                                   b per doubling, no limit
    (F4c) quadratic:  f = a + b t + κ t²                            κ per squared doubling, no limit
    (F4d) power:      f = a + b (1 − 2^(−νt)) / (ν ln 2)            δ∞ = a + b / (ν ln 2)
    (F4e) log:        f = a + b t / (1 + λ t)                        δ∞ = a + b / λ
    (F4f) loglog:     f = a + b ln(1 + ρ t) / ρ                      growth ∝ ln ln d, no limit

(F4d) is δ∞ − c d^(−ν) and (F4e) is δ∞ − c / ln(d/d₀) with the offset d₀ = d_ref 2^(−1/λ) ∈ (0, d_ref)
profiled, never chosen.  Both are written so that b is the slope per doubling at d_ref and both
reduce to the linear law (F4b) at ν = 0 or λ = 0: their δ∞ → ∞ there.  So a limit law's δ∞ is
identified only if the data exclude that limit, which is the likelihood-ratio test of (F4b) against
it.  (F4f) is growth without a limit that slows down, a + b' ln(ln d − ln d₁), d₁ = d_ref 2^(−1/ρ); it
also reduces to (F4b) at ρ = 0.  It is never a limit: it checks that a limit law's fit is not growth
that the limit laws can mimic over the range of d (docs/finite_size.md, (F9)).
For the profile of δ∞ = D the same laws read f = D − c u(t), u = 2^(−νt) or 1/(1 + λt),
c ∈ ℝ, and D is the parameter while (c, ν) or (c, λ) are profiled.

Profile interval (F5) of a parameter ψ at level L: {ψ : 2 (ℓ̂ − max_{θ: ψ(θ)=ψ} ℓ(θ)) ≤ χ²₁(L)},
searched inside a declared range; a side that does not close there is reported as open.
"""

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from featlearn.analysis.width_profile import chi2_cut, hermite, profile_interval

LAWS = ("constant", "linear", "quadratic", "power", "log")
"""The laws of δ₅₀(d), eqs. (F4a)–(F4e)."""

LIMIT_LAWS = ("power", "log")
"""The laws with a finite δ∞ whose approach is profiled (F4d), (F4e)."""

N_PARAMS = {"constant": 1, "linear": 2, "quadratic": 3, "power": 3, "log": 3, "loglog": 3}

SHAPE_MAX = {"power": 8.0, "log": 1e3, "loglog": 1e3}
"""Largest ν, λ and ρ: 2^(−8) of a doubling's change is below every δ₅₀'s error (ν = ∞ is the constant
law with the smallest d moved), and λ = 10³ (ρ = 10³) puts d₀ (d₁) within 0.07 % of d_ref (the range's
end)."""

SHAPE_MIN = 1e-6
"""Smallest ν or λ searched: there (F4d)/(F4e) is the linear law (F4b) to 10⁻⁶ per doubling, and a fit
that ends there is read as that limit (δ∞ = ±∞)."""

BOX = 8.0
"""Half-width, in standard errors, of the starting box of a grid search (see ``grid_maximise``)."""

LN2 = np.log(2.0)


def shape_functions(law, t, shape):
    """(g(t), g∞) of (F4d)–(F4f), f = a + b g(t), δ∞ = a + b g∞ (∞ for (F4f)); ``shape`` may be an array
    broadcasting against t."""
    t, shape = np.asarray(t, dtype=float), np.asarray(shape, dtype=float)
    if law == "power":
        k = shape * LN2
        return -np.expm1(-k * t) / k, 1 / k
    if law == "log":
        return t / (1 + shape * t), 1 / shape
    if law == "loglog":
        return np.log1p(shape * t) / shape, np.full_like(shape, np.inf)
    raise ValueError(f"no shape for law {law!r}")


def decay(law, t, shape):
    """u(t) of the δ∞ parametrisation f = D − c u(t) (u(0) = 1)."""
    t, shape = np.asarray(t, dtype=float), np.asarray(shape, dtype=float)
    return np.exp(-shape * LN2 * t) if law == "power" else 1 / (1 + shape * t)


def law_value(law, t, params):
    """f(t; θ) of eqs. (F4a)–(F4f), θ = (a[, b[, κ or ν or λ or ρ]])."""
    t = np.asarray(t, dtype=float)
    if law == "constant":
        return np.full_like(t, params[0])
    if law == "linear":
        return params[0] + params[1] * t
    if law == "quadratic":
        return params[0] + params[1] * t + params[2] * t**2
    return params[0] + params[1] * shape_functions(law, t, params[2])[0]


def at_linear_limit(shape):
    """True where a fitted ν or λ sits at ``SHAPE_MIN``: the law is the linear one and has no limit."""
    return shape <= SHAPE_MIN * (1 + 1e-6)


def delta_inf(law, params):
    """δ∞ of a fitted law: a for the constant, a + b g∞ for (F4d)/(F4e) (±∞ at the linear limit, the
    sign of b), NaN for the linear, quadratic and ln ln d laws, which have no limit."""
    if law == "constant":
        return float(params[0])
    if law in ("linear", "quadratic", "loglog") or not np.isfinite(params[0]):
        return np.nan
    if at_linear_limit(params[2]):
        return float(np.sign(params[1]) * np.inf) if params[1] != 0 else float(params[0])
    return float(params[0] + params[1] * shape_functions(law, 0.0, params[2])[1])


class JointLikelihood:
    """ℓ(θ) = Σ_d L_d(f(t_d; θ)) for the usable d (``profiles``: {d: WidthProfile}); ``peaks`` and
    ``errors`` (each d's maximum and its Gaussian width) only place the grids of the searches."""

    def __init__(self, profiles):
        self.ds = np.array(sorted(profiles), dtype=float)
        chosen = [profiles[int(d)] for d in self.ds]
        self.d_ref = float(self.ds.min())
        self.t = np.log2(self.ds / self.d_ref)
        self.peaks = np.array([p.peak for p in chosen])
        errors = np.array([p.curvature_error() for p in chosen])
        fallback = 0.1 * (np.ptp(self.peaks) if self.peaks.size > 1 else 0.0) + 0.1
        self.errors = np.where(np.isfinite(errors), errors, fallback)
        self._tables = (
            np.array([p.m0 for p in chosen]),
            np.array([p.step for p in chosen]),
            np.stack([p.values for p in chosen]),
            np.stack([p.slopes for p in chosen]),
        )
        self.saturated = float(sum(p.peak_value for p in chosen))

    def at(self, m):
        """ℓ for an array of δ₅₀ vectors (last axis: the d)."""
        return hermite(*self._tables, np.asarray(m, dtype=float))[0].sum(axis=-1)


def grid_maximise(values, axes, lower, upper, rounds=12, points=7, polish=False):
    """The maximum of ``values`` (a function of an array [..., P] of parameter vectors) by a grid
    search: the product of ``axes`` (uniform 1-D grids), then ``rounds`` zooms, each a grid of
    ``points`` per axis spanning ± one step around the best point (so the step shrinks by
    (points − 1)/2 per round), clipped to [lower, upper].  ``polish``: then Nelder–Mead from the
    best point inside [lower, upper], kept where it is higher (the zooms stop short of the maximum
    of a sharp likelihood, many trials per cell, which the goodness-of-fit test (F9a) would read as
    misfit; the laws' fits and their parameters' profiles polish; the δ∞ profile's grid over the
    curve's two ends, a well-conditioned pair, reaches the maximum without it).
    Returns (x, value)."""
    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    steps = np.array([ax[1] - ax[0] if len(ax) > 1 else 0.0 for ax in axes])
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1)
    found = values(grid)
    flat = int(np.nanargmax(found))
    best, top = grid.reshape(-1, len(axes))[flat], float(found.reshape(-1)[flat])
    offsets = np.linspace(-1.0, 1.0, points)
    for _ in range(rounds):
        new_axes = [
            np.clip(b + st * offsets, lo, hi) for b, st, lo, hi in zip(best, steps, lower, upper, strict=True)
        ]
        grid = np.stack(np.meshgrid(*new_axes, indexing="ij"), axis=-1)
        found = values(grid)
        flat = int(np.nanargmax(found))
        if found.reshape(-1)[flat] >= top:
            best, top = grid.reshape(-1, len(axes))[flat], float(found.reshape(-1)[flat])
        steps = steps * 2 / (points - 1)
    if polish:

        def negative(x):
            inside = np.all((x >= lower) & (x <= upper))
            return -float(values(x)) if inside else np.inf

        found = optimize.minimize(
            negative, best, method="Nelder-Mead", options={"xatol": 1e-4, "fatol": 1e-4, "maxiter": 400}
        )
        if -found.fun > top:
            best, top = found.x, float(-found.fun)
    return best, top


def _box(like, design):
    """Weighted least squares of the per-d peaks on ``design`` (N_d × P): θ, its s.e. (the centre
    and scale of a grid search's box) and its covariance."""
    w = 1 / like.errors
    a = design * w[:, None]
    theta = np.linalg.lstsq(a, like.peaks * w, rcond=None)[0]
    cov = np.linalg.pinv(a.T @ a)
    return theta, np.sqrt(np.maximum(np.diag(cov), 0.0)) + 1e-3, cov


def _design(like, law):
    return np.column_stack([np.ones_like(like.t), like.t, like.t**2][: N_PARAMS[law]])


def _axes(centre, scale, points=17):
    return [c + BOX * s * np.linspace(-1, 1, points) for c, s in zip(centre, scale, strict=True)]


@dataclass
class Fit:
    """A law's maximum-likelihood fit: θ̂, ℓ̂ and its number of parameters (law + one width per d)."""

    law: str
    params: tuple
    loglik: float
    n_params: int
    status: str = "ok"

    @property
    def delta_inf(self):
        return delta_inf(self.law, self.params) if self.status == "ok" else np.nan


MIN_D = {"constant": 1, "linear": 2, "quadratic": 3, "power": 3, "log": 3, "loglog": 3}
"""Usable d a law needs before it is fitted."""


def _shape_mesh(like, law, a, rise, log_shape):
    """δ₅₀ at every d for arrays of (a, R, ln shape): f = a + R g(t)/g(t_max), R the rise over the
    range of d (the parametrisation of the shape laws' grid search)."""
    shape = np.exp(log_shape)[..., None]
    g, _ = shape_functions(law, like.t, shape)
    return a[..., None] + (rise / g[..., -1])[..., None] * g


def fit(like, law):
    """Maximum-likelihood fit (F4) of a law to the joint likelihood by ``grid_maximise``: the
    polynomial laws in a box of ± 8 s.e. of their weighted least-squares fit to the per-d peaks,
    the shape laws over (δ₅₀(d_ref), the rise R across the d, ln ν or ln λ)."""
    n_d = like.t.size
    n_params = N_PARAMS[law] + n_d
    if n_d < MIN_D[law]:
        return Fit(law, (np.nan,) * N_PARAMS[law], np.nan, n_params, f"too few d ({n_d})")
    if law in ("constant", "linear", "quadratic"):
        design = _design(like, law)
        centre, scale, _ = _box(like, design)
        theta, value = grid_maximise(
            lambda x: like.at(x @ design.T),
            _axes(centre, scale),
            [-np.inf] * len(centre),
            [np.inf] * len(centre),
            polish=True,
        )
        return Fit(law, tuple(float(v) for v in theta), value, n_params)
    rise = like.peaks[-1] - like.peaks[0]
    rise_err = np.hypot(like.errors[0], like.errors[-1])
    log_range = np.log([SHAPE_MIN, SHAPE_MAX[law]])
    axes = _axes([like.peaks[0], rise], [like.errors[0], rise_err]) + [np.linspace(*log_range, 25)]
    x, value = grid_maximise(
        lambda x: like.at(_shape_mesh(like, law, x[..., 0], x[..., 1], x[..., 2])),
        axes,
        [-np.inf, -np.inf, log_range[0]],
        [np.inf, np.inf, log_range[1]],
        polish=True,
    )
    shape = float(np.exp(x[2]))
    params = (float(x[0]), float(x[1] / shape_functions(law, like.t[-1], shape)[0]), shape)
    linear = fit(like, "linear")  # the limit shape → 0, which the grid reaches only approximately
    if linear.loglik > value:
        params, value = (*linear.params, SHAPE_MIN), linear.loglik
    return Fit(law, params, value, n_params)


def shape_from_decay(law, u, t):
    """The ν or λ at which u(t) = ``u`` (0 < u < 1): inverse of ``decay`` at one t > 0."""
    return -np.log2(u) / t if law == "power" else (1 / u - 1) / t


def limit_curve(like, law, d_inf, ends=None):
    """The maximum of ℓ at δ∞ = D for law (F4d)/(F4e), f = D − c u(t), over (c, shape): (ℓ, c, shape).
    Searched by ``grid_maximise`` over the curve's two ends, δ₅₀(d_ref) = D − c and δ₅₀(d_max) =
    D − c u(t_max), which the data pin down directly (u(t_max) clipped to the values that
    ``SHAPE_MIN``…``SHAPE_MAX`` allow).  The box is centred on ``ends`` (a fit's own two ends, so that
    the fit is on the grid at its own δ∞) or, without, on the end d's peaks, and reaches ± 8 of each
    end d's error beyond both the peak and the centre: where a law misfits, its ends can lie many
    errors from the peaks (a peak at the edge of its δ grid)."""
    t_max = like.t[-1]
    u_range = np.sort(decay(law, t_max, np.array([SHAPE_MAX[law], SHAPE_MIN])))
    peaks, errors = like.peaks[[0, -1]], like.errors[[0, -1]]
    centre = peaks if ends is None else np.asarray(ends, dtype=float)
    axes = _axes(centre, errors + np.abs(centre - peaks) / BOX, 33)

    def curve(x):
        c = d_inf - x[..., 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            u_end = np.clip((d_inf - x[..., 1]) / c, *u_range)
        return c, np.clip(shape_from_decay(law, u_end, t_max), SHAPE_MIN, SHAPE_MAX[law])

    def values(x):
        c, shape = curve(x)
        return like.at(d_inf - c[..., None] * decay(law, like.t, shape[..., None]))

    x, top = grid_maximise(values, axes, [-np.inf, -np.inf], [np.inf, np.inf])
    c, shape = curve(x)
    return top, float(c), float(shape)


def profile_limit(like, law, d_inf, ends=None):
    """ℓ_p(D) of (F5): the maximum of ℓ at δ∞ = D (``limit_curve``, its box centred on ``ends``)."""
    return limit_curve(like, law, d_inf, ends)[0]


@dataclass
class Interval:
    """A profile interval (F5): ``low``/``high`` NaN on a side that does not close in the range."""

    estimate: float
    low: float
    high: float
    range_low: float
    range_high: float

    @property
    def closed(self):
        return bool(np.isfinite(self.low) and np.isfinite(self.high))


def limit_interval(like, law_fit, level, range_low, range_high):
    """The profile interval (F5) of δ∞ for law (F4d)/(F4e) inside the declared range, each profile's
    search box centred on the fit's two ends (``limit_curve``).  The search
    starts at the fit's δ∞ clipped to the range (an infinite δ∞, shape 0, starts at the range's
    edge on its side).  If even that point is excluded, the interval lies beyond the range: the
    edge becomes a one-sided bound (low = range_high, or high = range_low) and the other side NaN."""
    cut, top = chi2_cut(level), law_fit.loglik
    ends = law_value(law_fit.law, like.t[[0, -1]], law_fit.params)
    cache = {}

    def loglik(v):
        if v not in cache:
            cache[v] = profile_limit(like, law_fit.law, v, ends)
        return cache[v]

    estimate = law_fit.delta_inf
    centre = float(np.clip(estimate, range_low, range_high))
    if top - loglik(centre) > cut:
        low, high = (range_high, np.nan) if centre >= range_high else (np.nan, range_low)
    else:
        low, high = profile_interval(loglik, centre, top, cut, range_low, range_high)
    return Interval(estimate, low, high, range_low, range_high)


def parameter_interval(like, law_fit, index, level):
    """The profile interval (F5) of parameter ``index`` of a constant, linear or quadratic law, the
    others maximised, searched within ± 8 s.e. (weighted least squares) of the estimate, and for the
    constant at least across every d's peak (its profile may have a mode per d where it misfits).
    At ψ = v the others' search is centred on the fit's own values moved along their weighted
    least-squares regression on ψ, θ̂_o + Σ_oψ/Σ_ψψ (v − ψ̂): at v = ψ̂ the fit itself is on the grid,
    so the profile there is never below ℓ̂ (a box centred on the per-d peaks' least squares need not
    reach the fit where the law misfits)."""
    law, cut = law_fit.law, chi2_cut(level)
    design = _design(like, law)
    _, scale, cov = _box(like, design)
    others = [j for j in range(design.shape[1]) if j != index]
    estimate = law_fit.params[index]
    fitted = np.array(law_fit.params, dtype=float)
    along = cov[others, index] / cov[index, index] if cov[index, index] > 0 else np.zeros(len(others))

    def loglik(v):
        fixed = v * design[:, index]
        if not others:
            return float(like.at(fixed))
        sub = design[:, others]
        axes = _axes(fitted[others] + along * (v - estimate), scale[others])
        bound = [np.inf] * len(others)
        values = lambda x: like.at(fixed + x @ sub.T)  # noqa: E731
        return grid_maximise(values, axes, [-b for b in bound], bound, polish=True)[1]

    span = BOX * scale[index]
    if law == "constant":
        span = max(span, np.ptp(like.peaks) + 4 * like.errors.max())
    low, high = profile_interval(loglik, estimate, law_fit.loglik, cut, estimate - span, estimate + span)
    return Interval(estimate, low, high, estimate - span, estimate + span)


def aicc(loglik, n_params, n_obs):
    """Akaike's criterion with the small-sample correction, −2ℓ + 2k + 2k(k + 1)/(n − k − 1) (F6);
    +∞ when n ≤ k + 1."""
    if n_obs - n_params - 1 <= 0 or not np.isfinite(loglik):
        return np.inf
    return -2 * loglik + 2 * n_params + 2 * n_params * (n_params + 1) / (n_obs - n_params - 1)
