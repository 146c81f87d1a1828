"""Simulated overlap of the optimal spectral estimator (no GD), for comparison with the Lu–Li curve
(docs/spectral.md: the estimator (S4) against the asymptotic overlap (S3)).

For each δ and trial: fresh data from the trial identity (seed, "spectral", link, d, δ, trial),
v̂ = top eigenvector of (1/n) Σ T*(y_i) x_i x_iᵀ, overlap |θ*ᵀv̂|.
"""

from featlearn.model import data as data_mod
from featlearn.model import seeds
from featlearn.spectral import method as spectral


def overlap_rows(settings, d, log=print):
    """Rows {link, d, delta, trial, overlap} for every δ > δ_u of ``settings.delta`` (a
    spectral_overlap job's settings) and each of its trials."""
    seed, link, noise, deltas, trials = (
        settings.seed,
        settings.link,
        settings.noise,
        settings.delta,
        settings.trials,
    )
    law = spectral.SingleIndexLaw(link, noise)
    delta_u = spectral.weak_recovery_threshold(link, noise)
    rows = []
    for delta in deltas:
        if delta <= delta_u:
            log(f"skipping delta={delta} <= delta_u={delta_u:.4g} (T* has a pole there)")
            continue
        for trial in range(trials):
            gens = seeds.trial_generators(seed, "spectral", link, int(d), float(delta), int(trial))
            n = int(round(delta * d))
            theta_star = data_mod.teacher_frame(d, 1, "e1", gens["train"])
            x, y = data_mod.sample(gens["train"], n, theta_star, link, noise)
            v = spectral.spectral_estimator(x, y, law, n / d)
            rows.append(
                {
                    "link": link,
                    "d": int(d),
                    "delta": float(delta),
                    "trial": trial,
                    "overlap": float(abs(v @ theta_star[:, 0])),
                }
            )
        log(f"delta={delta}: {trials} trials done")
    return rows


def theory_rows(link, noise, deltas):
    """Rows {link, delta, overlap} of the asymptotic curve (S3)."""
    return [
        {"link": link, "delta": float(dl), "overlap": spectral.asymptotic_overlap(link, dl, noise)}
        for dl in deltas
    ]


def delta_alg_rows(links, noise):
    """Rows {link, noise, delta_alg} of the weak-recovery threshold (S1) for single-index links."""
    return [
        {"link": name, "noise": float(noise), "delta_alg": spectral.weak_recovery_threshold(name, noise)}
        for name in links
    ]
