"""Validation of the early-stopping certificate (docs/model.md, eq. (M13)) against full runs.

For every trial of a set of sweep cells (model, d, δ) at or below the GD threshold, the trial is run
twice from the same seed (``featlearn.gd.trials``), each with the Lanczos checks it needs:

* **early**: as the sweeps run it, stopped by the certificate (M13) or the floor (M14);
* **reference**: no certificate, GD continued until ‖∇R̂‖ ≤ 10⁻⁶ (or the cap), as the previous
  certificate (small gradient and a positive semidefinite Hessian) stopped it.

Among the trials that fail in the reference run (the validation set), it counts outcome flips
(early success ≠ reference success) and |ρ_early − ρ_reference|, and prints the steps and the wall
time of both runs and the Lanczos checks of the early ones: the saving.  Writes one CSV row per
trial with ``--out``.

Usage: python benchmarks/early_certificate.py [--cells gelu:250,500,1000:4,5,6 ...] [--trials 8]
       [--cap 20000] [--out early_certificate.csv]
"""

import argparse
import csv
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import yaml

from featlearn.gd import engine as gd
from featlearn.gd import trials
from featlearn.model import hessian_spectrum as hessian
from featlearn.pipeline.jobs import settings_of

ROOT = Path(__file__).resolve().parents[1]
REFERENCE_GRAD = 1e-6
CELLS = (
    "gelu:250,500,1000:4,5,6",
    "quad:250,500,1000:2.5,3,3.5",
    "gelu_bump:500,1000:6,7.5",
)


def parse_cells(specs):
    """'sweep:d1,d2:δ1,δ2' → [(sweep, d, δ)]."""
    out = []
    for spec in specs:
        name, ds, deltas = spec.split(":")
        out += [(name, int(d), float(x)) for d in ds.split(",") for x in deltas.split(",")]
    return out


def reference_run(settings, d, delta, trial, cap):
    """The trial without the certificate, run until ‖∇R̂‖ ≤ 10⁻⁶ or ``cap`` steps, then one Lanczos
    check of the Hessian there (what the previous rule cost: ‖∇R̂‖ ≤ 10⁻⁶ and λ_min ≥ 0)."""
    plain = replace(settings, certify_check_grad=None, steps=cap)
    data, net = trials.trial_setup(plain, d, delta, trial)
    traj = gd.run(data, net, replace(trials.schedule(plain, data, net), grad_tol=REFERENCE_GRAD))
    hessian.bottom_eigenpair(data["X"], data["y"], traj.theta, net.a, net.b, net.activation, tol=1e-4)
    return traj


def early_run(settings, d, delta, trial, cap):
    """The trial as a sweep runs it (certificate on), with the same cap; (trajectory, checks)."""
    early = replace(settings, steps=cap)
    data, net = trials.trial_setup(early, d, delta, trial)
    schedule = trials.schedule(early, data, net)
    return gd.run(data, net, schedule), schedule.certificate


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", nargs="+", default=list(CELLS))
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--cap", type=int, default=20000)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    rows = []
    for name, d, delta in parse_cells(args.cells):
        built = settings_of("sweep_block", config, sweep=name)
        settings = replace(built, experiment="early-certificate-validation")
        for trial in range(args.trials):
            ref, ref_s = timed(reference_run, settings, d, delta, trial, args.cap)
            (early, cert), early_s = timed(early_run, settings, d, delta, trial, args.cap)
            checks = cert.checks
            ref_success = bool(ref.final_rho >= settings.success_rho and not ref.diverged)
            early_success = bool(early.final_rho >= settings.success_rho and not early.diverged)
            row = dict(
                sweep=name, d=d, delta=delta, trial=trial,
                ref_stop=ref.stop_reason, ref_steps=ref.final_step, ref_rho=ref.final_rho, ref_s=ref_s,
                early_stop=early.stop_reason, early_steps=early.final_step, early_rho=early.final_rho,
                early_s=early_s, checks=checks, rule=cert.certified_by, ref_success=ref_success,
                early_success=early_success,
            )  # fmt: skip
            rows.append(row)
            print(
                f"{name} d={d} δ={delta} trial {trial}: ref {ref.stop_reason} {ref.final_step} steps "
                f"ρ={ref.final_rho:.4f} {ref_s:.1f}s | early {early.stop_reason} {early.final_step} steps "
                f"ρ={early.final_rho:.4f} {early_s:.1f}s ({checks} checks, {cert.certified_by})",
                flush=True,
            )
    if args.out:
        with open(args.out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    report(rows)


def report(rows):
    """The validation set (reference failures that converged) and the saving."""
    failed = [r for r in rows if not r["ref_success"] and r["ref_stop"] == "converged"]
    print(f"\n{len(rows)} trials, {len(failed)} failed in the reference run and converged (validation set)")
    if not failed:
        sys.exit("no validation trial")
    flips = sum(r["early_success"] != r["ref_success"] for r in failed)
    drho = np.array([abs(r["early_rho"] - r["ref_rho"]) for r in failed])
    certified = sum(r["early_stop"] == "certified_minimum" for r in failed)
    ref_steps = sum(r["ref_steps"] for r in failed)
    early_steps = sum(r["early_steps"] for r in failed)
    ref_s, early_s = sum(r["ref_s"] for r in failed), sum(r["early_s"] for r in failed)
    print(f"outcome flips: {flips}; certified early: {certified}/{len(failed)}")
    rules = [r["rule"] for r in failed]
    by = {rule: rules.count(rule) for rule in ("kantorovich", "floor")}
    print(f"certified by (M13) Kantorovich: {by['kantorovich']}, by (M14) the floor: {by['floor']}")
    print(f"|rho_early - rho_ref|: max {drho.max():.2e}, median {np.median(drho):.2e}")
    print(f"steps: early/reference = {early_steps}/{ref_steps} = {early_steps / ref_steps:.3f}")
    print(
        f"wall time (Lanczos included): early/reference = {early_s:.0f}/{ref_s:.0f} s = {early_s / ref_s:.3f}"
    )
    print(f"Lanczos checks per trial: mean {np.mean([r['checks'] for r in failed]):.1f}")
    for key in sorted({(r["sweep"], r["d"]) for r in failed}):
        sub = [r for r in failed if (r["sweep"], r["d"]) == key]
        ratio = sum(r["early_steps"] for r in sub) / sum(r["ref_steps"] for r in sub)
        worst = max(abs(r["early_rho"] - r["ref_rho"]) for r in sub)
        print(f"  {key[0]} d={key[1]}: {len(sub)} trials, steps ratio {ratio:.3f}, max |Δρ| {worst:.1e}")
    others = [r for r in rows if r["ref_success"]]
    print(
        f"reference successes: {len(others)}, flips among them: {sum(not r['early_success'] for r in others)}"
    )


if __name__ == "__main__":
    main()
