"""Could a certified Newton finish shorten restricted GD's crawl to the plateau?  (Issue 42: the
δ_spec cells' job time.)

A spectral-threshold cell runs restricted GD (docs/outlier.md) until ‖∇R̂‖ ≤ grad_tol; near the
end GD converges linearly at the rate 1 − ηλ, λ the smallest eigenvalue of the Hessian restricted to
the complement of the hard directions, P H P.  Newton's method would reach the same minimum in a
few dense solves, but only once Kantorovich's condition (docs/model.md, eq. (M11)) proves that the
minimum is the one GD converges to:

    h = κ L ‖g‖ / λ² ≤ 1/4,

L the Lipschitz constant of P H P near the minimum, κ the sweeps' safety factor
(``early_stop.safety``).  For each seed of a cell this runs restricted GD to a deep reference state
(‖g‖ ≤ ``--reference``) and, at each level ‖g‖ ≤ 10⁻³, 10⁻⁴, …, grad_tol on the way, prints the
step, λ, the distance to the reference, L̂ = ‖P(H − H_ref)P‖/‖θ − θ_ref‖ (a lower bound on L along
GD's own path) and h.  The steps a certified finish could save are those after the first level with
h ≤ 1/4 (``saved``: their share of the steps to grad_tol).

    python benchmarks/plateau_tail.py --cell quad:600:7.05 --seeds 0 1 2 3
"""

import argparse

import numpy as np
import yaml

from featlearn.gd import engine as gd
from featlearn.hessian.plateau import RestrictedProblem
from featlearn.model.hessian_spectrum import complement_eigenvalues, hessian_matrix
from featlearn.pipeline.jobs import settings_of


def restricted_state(prob, steps, grad_tol):
    """(step, θ, H, λ) where restricted GD first has ‖g‖ ≤ ``grad_tol`` (or at ``steps``): λ the
    smallest eigenvalue of H on the complement of the hard directions."""
    traj = prob.run(steps, gd.log_grid(steps, 2), None, grad_tol)
    hmat = hessian_matrix(prob.x64, prob.data["y"], traj.theta, prob.net.a, prob.net.b, prob.net.activation)
    return traj.final_step, traj.theta[0], hmat, complement_eigenvalues(hmat, prob.hard)[0]


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", default="config.yaml")
    parser.add_argument("--cell", default="quad:600:7.05", help="activation:d:delta of the scan")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3])
    parser.add_argument("--reference", type=float, default=1e-7, help="‖g‖ of the reference state")
    parser.add_argument("--cap", type=int, default=40000, help="step cap of the reference run")
    args = parser.parse_args(argv)
    with open(args.config) as f:
        config = yaml.safe_load(f)
    activation, d, delta = args.cell.split(":")
    s = settings_of("spectral_threshold_cell", config, activation=activation, d=d, delta=delta)
    kappa = config["early_stop"]["safety"]
    levels = [10.0**-k for k in range(3, 20) if 10.0**-k >= s.grad_tol * (1 - 1e-9)]
    print(f"{args.cell}: grad_tol {s.grad_tol:g}, lr {s.lr:g}, safety κ = {kappa}")
    print("seed  ‖g‖≤     step   λ(PHP)   ‖θ−θ_ref‖   L̂      h       saved")
    for seed in args.seeds:
        prob = RestrictedProblem.setup(s, s.d, float(delta), seed)
        _, theta_ref, h_ref, _ = restricted_state(prob, args.cap, args.reference)
        u = prob.hard
        rows = []
        for level in levels:
            step, theta, hmat, lam = restricted_state(prob, s.steps, level)
            dist = float(np.linalg.norm(theta - theta_ref))
            change = hmat - h_ref
            change -= u @ (u.T @ change)  # P (H − H_ref) P
            change -= (change @ u) @ u.T
            lipschitz = np.linalg.norm(change, 2) / dist
            rows.append((level, step, lam, dist, lipschitz, kappa * lipschitz * level / lam**2))
        total = rows[-1][1]
        first = next((r[1] for r in rows if r[5] <= 0.25), total)
        for level, step, lam, dist, lipschitz, h in rows:
            print(
                f"{seed:<4d}  {level:<6.0e} {step:<6d} {lam:<8.4f} {dist:<10.2e}  {lipschitz:<6.1f} "
                f"{h:<7.2f} {(total - first) / total:.0%}"
            )


if __name__ == "__main__":
    main()
