"""Scoring modelling conventions against the paper's three headline numbers (the convention
explorer, docs/model.md): GeLU δ* ≈ 6.0, Quad δ* ≈ 3.6, and the Fig 2 loss plateau ≈ 0.6.

The plateau of a convention is the loss of an aligned neuron, reported in the convention's
normalisation of the risk R = ½E(y − f)²:

    half_mse:  R          relative:  R / R(f ≡ 0) = E(y − f)² / E y²          variance:  E(y − f)² / Var y

Its theory value is the population optimum over neurons aligned with θ*, min_c R(θ = c θ*) (exact
quadrature, ``model.population``); its measured value is R at the end of a long GD run at the
Fig 2 sample ratio.
"""

import math

import numpy as np
from scipy import optimize

from featlearn.analysis.thresholds import fit_logistic
from featlearn.model.links import get_link
from featlearn.model.population import population_risk

REPORTS = ("half_mse", "relative", "variance")


def label_moments(link, noise=0.0, nodes=80):
    """(E y², Var y) of y = h(g) + noise·ε, g ~ N(0, 1), by Gauss–Hermite quadrature."""
    g, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    y = get_link(link).h(g[:, None])
    mean, second = w @ y, w @ y**2 + noise**2
    return float(second), float(second - mean**2)


def reported(risk, report, link, noise=0.0):
    """The risk R = ½E(y − f)² in the normalisation ``report`` (module docstring)."""
    second, var = label_moments(link, noise)
    return {"half_mse": risk, "relative": 2 * risk / second, "variance": 2 * risk / var}[report]


def aligned_risk(activation, link, a, b, noise=0.0):
    """(c*, R*): the population risk of one neuron θ = c θ* minimised over the scale c."""

    def risk(c):
        return population_risk(np.array([[c]]), a, b, activation, np.array([[1.0]]), link, noise)

    best = min(
        (optimize.minimize_scalar(risk, bounds=bounds, method="bounded") for bounds in ((-4, 0), (0, 4))),
        key=lambda r: r.fun,
    )
    return float(best.x), float(best.fun)


def distance(values, paper):
    """Root-mean-square relative deviation from the paper's numbers over the keys both have."""
    keys = [k for k in paper if k in values and math.isfinite(values[k])]
    if not keys:
        return float("nan")
    return float(np.sqrt(np.mean([((values[k] - paper[k]) / paper[k]) ** 2 for k in keys])))


def within(value, error, target, tolerance):
    """|value − target| ≤ 2·error + tolerance, and the value is resolved: error ≤ tolerance (a fit
    too noisy to tell the paper's number from its neighbours agrees with nothing).  An error of
    NaN counts as 0 (an exact quadrature); a value of NaN never agrees."""
    error = error if math.isfinite(error) else 0.0
    return math.isfinite(value) and error <= tolerance and abs(value - target) <= 2 * error + tolerance


def scan_rows(scans, keys):
    """Logistic fits of the scans under each convention's success rule.  ``scans[(convention,
    activation, d)]`` = a ``cells.conventions.scan`` result; ``keys[convention]`` its keys.  Returns
    (one row per scan, {(convention, activation): (d, δ₅₀, error, status) at the largest d})."""
    rows, fits = [], {}
    for (name, activation, d), scan in sorted(scans.items()):
        rule = keys[name]["success"]
        wins = scan[f"successes_{rule}"]
        fit = fit_logistic(scan["delta"], wins, scan["trials"] - scan["diverged"])
        rows.append(
            {
                "convention": name,
                "activation": activation,
                "d": d,
                "rule": rule,
                "deltas": " ".join(f"{x:g}" for x in scan["delta"]),
                "successes": " ".join(str(int(k)) for k in wins),
                "trials_per_point": int(scan["trials"][0]),
                "coarse_estimate": float(scan["coarse_estimate"]),
                "coarse_status": str(scan["coarse_status"]),
                "delta50": fit.delta50,
                "delta50_err": fit.delta50_err,
                "fit_status": fit.status,
            }
        )
        best = fits.get((name, activation))
        if best is None or d > best[0]:
            fits[(name, activation)] = (d, fit.delta50, fit.delta50_err, fit.status)
    return rows, fits


def score_rows(conventions, fits, plateaus, paper, tolerance):
    """One row per convention, ranked by how many of the three numbers it has (a failed fit has
    none) and then by ``distance``: its δ₅₀ per activation (largest d) with
    errors, the plateau (quadrature and measured), each number's agreement with the paper and
    whether all three agree.  ``fits[(convention, activation)]`` = (d, δ₅₀, error, status);
    ``plateaus[convention]`` = dict with "quadrature", "measured"; ``conventions`` = name → dict of
    the convention's keys (shown in the row)."""
    rows = []
    for name, keys in conventions.items():
        row = {"convention": name, **keys}
        values, ok = {}, []
        for act in ("gelu", "quad"):
            d, value, error, status = fits.get((name, act), (np.nan, np.nan, np.nan, "not run"))
            row |= {f"delta50_{act}": value, f"delta50_{act}_err": error, f"d_{act}": d, f"fit_{act}": status}
            values[act] = value
            agrees = within(value, error, paper[act], tolerance[act])
            row[f"{act}_agrees"] = agrees
            ok.append(agrees)
        plateau = plateaus.get(name, {})
        row |= {
            "plateau_quadrature": float(plateau.get("quadrature", np.nan)),
            "plateau_measured": float(plateau.get("measured", np.nan)),
            "plateau_rho": float(plateau.get("rho", np.nan)),
            **{f"plateau_{r}": float(plateau.get(f"quadrature_{r}", np.nan)) for r in REPORTS},
        }
        values["plateau"] = row["plateau_quadrature"]
        row["plateau_agrees"] = within(
            row["plateau_quadrature"], np.nan, paper["plateau"], tolerance["plateau"]
        )
        ok.append(row["plateau_agrees"])
        row["distance"] = distance(values, paper)
        row["measured_numbers"] = sum(math.isfinite(v) for v in values.values())
        row["fits_all_three"] = all(ok)
        rows.append(row)
    # a convention with a number missing (a fit that failed) ranks after those with all three
    rows.sort(key=lambda r: (-r["measured_numbers"], not math.isfinite(r["distance"]), r["distance"]))
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return rows
