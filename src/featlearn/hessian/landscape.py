"""The paper's Fig 3, measured: the empirical risk on a plane through the restricted-GD plateau
point, with the unrestricted GD path of the same data projected onto it (docs/outlier.md, "The
simulated spectra").

Single neuron.  Restricted GD (hard component projected out) runs to its plateau θ_R, which is
orthogonal to θ* = e₁.  A plane through it is spanned by the orthonormal pair

    e_a = θ_R / ‖θ_R‖,      e_b = the part of a direction u orthogonal to e_a,

with u = θ* (the "hard" plane) or u = the Hessian's bottom eigenvector at θ_R (the "outlier"
plane, where a saddle shows as negative curvature), and on it

    R̂(α e_a + β e_b) = (1/2n) Σ_i (y_i − a σ(α (X e_a)_i + β (X e_b)_i + b))²,

which needs only the two projections X e_a, X e_b.  The curvature of R̂ along e_b at the
plateau is the second difference of that surface across β = 0 at α = ‖θ_R‖: on the hard plane
the Hessian's e₁ diagonal entry H₁₁, on the outlier plane λ_min.
Unrestricted GD from the same initialisation is recorded at its grid steps and projected:
(⟨θ^t, e_a⟩, ⟨θ^t, e_b⟩), with the norm of what lies off the plane.
"""

import numpy as np

from featlearn.gd import engine as gd
from featlearn.gd import trials
from featlearn.hessian.plateau import RestrictedProblem
from featlearn.model import hessian_spectrum as hessian
from featlearn.model.activations import evaluate


def plane_risk(x, y, directions, alphas, betas, activation, a, b):
    """R̂ on the grid α × β of the plane spanned by the orthonormal ``directions`` (e_a, e_b)."""
    pa, pb = x @ directions[0], x @ directions[1]
    out = np.empty((len(alphas), len(betas)))
    for i, alpha in enumerate(alphas):
        z = alpha * pa[:, None] + np.asarray(betas)[None, :] * pb[:, None]
        f = a * evaluate(activation, z + b)[0]
        out[i] = 0.5 * np.mean((y[:, None] - f) ** 2, axis=0)
    return out


def bottom_direction(prob, theta):
    """(λ_min, v): the bottom eigenpair of the full Hessian of R̂ at Θ (``hessian.bottom_eigenpair``,
    from its fixed start vector)."""
    return hessian.bottom_eigenpair(
        prob.x64, prob.data["y"], theta, prob.net.a, prob.net.b, prob.net.activation
    )


def plane(theta_r, direction):
    """The orthonormal pair (θ_R/‖θ_R‖, the part of ``direction`` orthogonal to it)."""
    e_a = theta_r / np.linalg.norm(theta_r)
    e_b = direction - (direction @ e_a) * e_a
    return np.stack([e_a, e_b / np.linalg.norm(e_b)])


def landscape_cell(settings, delta, log=print, grid_points=61):
    """Fig 3 for one δ, on two planes through the plateau θ_R (restricted GD to
    ``settings.grad_tol``): with θ* ("hard"), and with the Hessian's bottom eigenvector at θ_R
    ("outlier"; its overlap² with θ* recorded).  Per plane: R̂ on a grid covering the plateau and
    the projected unrestricted GD path (to ρ ≥ 0.95 or the budget), and the curvature of R̂ along
    the plane's second direction at θ_R."""
    s = settings
    prob = RestrictedProblem.setup(s, s.d, delta, 0)
    grid = gd.log_grid(s.steps, 40)
    restricted = prob.run(s.steps, grid, checkpoint=None, grad_tol=s.grad_tol)
    theta_r = restricted.theta[0]
    norm_r = float(np.linalg.norm(theta_r))
    theta_star = prob.data["theta_star"][:, 0]
    lam, v = bottom_direction(prob, restricted.theta)
    log(f"delta={delta}: plateau after {restricted.final_step} steps, |theta_R|={norm_r:.4f}")
    log(f"lambda_min {lam:.5f}, overlap2 of its eigenvector with theta* {(v @ theta_star) ** 2:.3f}")

    path = []
    data, net = trials.trial_setup(s, s.d, delta, 0)
    gd.run(
        data,
        net,
        gd.Schedule(lr=s.lr, steps=s.steps, grid=grid, freeze_rho=0.95),
        checkpoint=lambda t, theta: path.append(theta[0].copy()),
    )
    path = np.array(path)
    x, y = prob.x64, prob.data["y"]
    args = (prob.net.activation, float(prob.net.a[0]), float(prob.net.b[0]))
    out = {
        "delta": float(delta),
        "d": s.d,
        "plateau_norm": norm_r,
        "lambda_min": lam,
        "outlier_overlap2": float((v @ theta_star) ** 2),
        "path_steps": grid[: len(path)],
    }
    for name, direction in (("hard", theta_star), ("outlier", v * np.sign(v @ theta_star or 1.0))):
        basis = plane(theta_r, direction)
        along = path @ basis.T
        off = np.sqrt(np.maximum(np.sum(path**2, axis=1) - np.sum(along**2, axis=1), 0.0))
        reach = max(1.3, 1.1 * float(np.max(np.abs(along[:, 1]))))
        alphas = np.linspace(-0.25 * norm_r, max(1.6 * norm_r, 1.1 * float(np.max(along[:, 0]))), grid_points)
        betas = np.linspace(-reach, reach, grid_points)
        h = 1e-3
        curv = plane_risk(x, y, basis, [norm_r], [-h, 0.0, h], *args)[0]
        out |= {
            f"{name}_alphas": alphas,
            f"{name}_betas": betas,
            f"{name}_risk": plane_risk(x, y, basis, alphas, betas, *args),
            f"{name}_curvature": float((curv[0] - 2 * curv[1] + curv[2]) / h**2),
            f"{name}_path_a": along[:, 0],
            f"{name}_path_b": along[:, 1],
            f"{name}_path_off_plane": off,
        }
        log(f"{name} plane: curvature at the plateau {out[f'{name}_curvature']:.5f}")
    return out
