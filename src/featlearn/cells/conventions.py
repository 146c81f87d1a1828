"""GD runs of the convention explorer (workflow/configs/conventions.yaml): a δ scan whose grid refines
itself around the transition, and the long run at which the Fig 2 plateau is measured (docs/model.md,
"Why the centred target is the default").

Scan: ``trials`` trials at each δ of a coarse grid; the coarse estimate δ̂ is the first δ at which
the success fraction exceeds ½ (linear interpolation, ``crossing.first_crossing``; the grid's
end when it never does); then the same trials at δ̂·f for each refinement factor f.  Both
success rules are recorded for every trial: final ρ ≥ success_rho ("final") and ρ ≥ escape_rho
at some step ("max", i.e. the trial escaped); the convention's own rule picks δ̂.
"""

import numpy as np

from featlearn.gd import engine as gd
from featlearn.gd import trials as gd_trials
from featlearn.theory.crossing import first_crossing

SUCCESS_RULES = ("final", "max")


def successes(cell, rule):
    """Successes of a cell under ``rule``: final ρ ≥ success_rho, or escaped at some step."""
    if rule == "final":
        return int(cell["success"].sum())
    return int(np.sum((cell["escape_step"] >= 0) & ~cell["diverged"]))


def refined_grid(coarse, fractions, factors):
    """(new δ values, δ̂, status): δ̂·f for each factor, rounded to 0.01 and without the coarse
    points; δ̂ is the first ½-crossing of the success fraction on the coarse grid, or the grid's
    first (status "below_grid") or last (status "none") point."""
    value, status = first_crossing(coarse, [0.5 - f for f in fractions])
    centre = value if status == "ok" else (coarse[0] if status == "below_grid" else coarse[-1])
    new = sorted({round(centre * f, 2) for f in factors} - {round(c, 2) for c in coarse})
    return [d for d in new if d > 0], float(centre), status


def scan(settings, d, coarse, factors, rule, log=print):
    """The auto-refined scan at dimension d: per δ (sorted) the successes under both rules, the
    trials, the diverged trials and every trial's final ρ and escape step."""
    cells = {}

    def run(deltas):
        for delta in deltas:
            cells[delta] = gd_trials.run_cell(settings, d, delta, log=lambda *a: None)
            cell = cells[delta]
            log(f"d={d} delta={delta:g}: {successes(cell, rule)}/{settings.trials} ({rule} rule)")

    run(list(coarse))
    fractions = [successes(cells[dl], rule) / settings.trials for dl in coarse]
    refined, centre, status = refined_grid(list(coarse), fractions, factors)
    log(f"coarse estimate {centre:g} ({status}); refining at {refined}")
    run(refined)
    deltas = sorted(cells)
    return {
        "d": d,
        "delta": np.array(deltas),
        "coarse_estimate": centre,
        "coarse_status": status,
        "trials": np.array([cells[dl]["success"].size for dl in deltas]),
        "diverged": np.array([int(cells[dl]["diverged"].sum()) for dl in deltas]),
        **{f"successes_{r}": np.array([successes(cells[dl], r) for dl in deltas]) for r in SUCCESS_RULES},
        "final_rho": np.array([cells[dl]["final_rho"] for dl in deltas]),
        "escape_step": np.array([cells[dl]["escape_step"] for dl in deltas]),
    }


def plateau_run(settings, d, delta, trial=0):
    """One never-frozen GD run at (d, δ): the population risk ½E(y − f)² at its end (exact, without
    the run's loss scale; NaN if the run diverged), its final ρ and its final train loss (in the
    run's normalisation)."""
    data, net = gd_trials.trial_setup(settings, d, delta, trial)
    traj = gd.run(data, net, gd_trials.schedule(settings, data, net, freeze=False))
    risk = np.nan if traj.diverged else traj.final_test_loss / gd_trials.loss_scale(settings, data["y"])
    return {
        "population_risk": risk,
        "final_rho": traj.final_rho,
        "final_train_loss": traj.final_train_loss,
        "diverged": traj.diverged,
    }
