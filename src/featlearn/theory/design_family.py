"""δ_NN(∞) minimised over a one-parameter family of activations σ_α (docs/design.md).

The family is an expression in z and a parameter (e.g. ``z**2 - 1 + alpha*(z**4 - 6*z**2 + 3)``,
He₂ + αHe₄).  Its δ_NN(∞)(α) (``design.fixed_point_threshold``) is minimised over α ∈ [lo, hi] by
Brent's bounded scalar minimisation (``scipy.optimize.minimize_scalar``, absolute tolerance
``xatol``).  Where the margin has no crossing on the δ bracket the objective is the bracket's end
that bounds δ_NN(∞)(α): its upper end for ``none`` (δ_NN(∞) above it, or no transition; the
minimiser moves away) and its lower end for ``below_bracket`` (δ_NN(∞) below it); an ``unsolved``
evaluation counts as the upper end.  The minimiser reported is the best evaluation with status
``ok``.

σ_α enters numba kernels as compiled code (``featlearn.model.activations``), so each evaluation runs
in a process of its own (``python -m featlearn.theory.design_family``, reading a JSON request on
stdin): it loads the generated kernel module of σ_α (``catalogue.config_kernel_source``) and keeps
its numba cache in a directory of its own, never shared with another α.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

from scipy import optimize

from featlearn.model.catalogue import config_kernel_source, substitute
from featlearn.model.kernel_choice import MODEL_KERNEL_ENV
from featlearn.theory.design import fixed_point_threshold

FAMILY_NAME = "family"
"""The name σ_α carries in its generated kernel module."""


def evaluate(text, link, a, b, level, bracket, points, workdir):
    """δ_NN(∞) of the activation ``text`` (no parameter left) in a fresh process: {"delta_nn_inf",
    "at_value", "status"}."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    kernel = workdir / "kernel.py"
    kernel.write_text(config_kernel_source((FAMILY_NAME, text)))
    env = {
        **os.environ,
        MODEL_KERNEL_ENV: str(kernel),
        "NUMBA_CACHE_DIR": str(workdir / "cache"),
    }
    request = {"link": link, "a": a, "b": b, "level": level, "bracket": list(bracket), "points": points}
    done = subprocess.run(
        [sys.executable, "-m", "featlearn.theory.design_family"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"family evaluation of {text!r} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def family_minimum(text, parameter, bounds, link, a, b, level, bracket, points, xatol, log=print):
    """Minimise δ_NN(∞)(α) over ``bounds`` (module docstring).  Returns {"alpha", "delta_nn_inf",
    "status", "at_value"} at the minimiser and the list of every evaluation (same keys)."""
    evaluations = []

    def objective(alpha):
        with tempfile.TemporaryDirectory(prefix="featlearn-family-") as workdir:
            res = evaluate(substitute(text, parameter, alpha), link, a, b, level, bracket, points, workdir)
        evaluations.append({"alpha": float(alpha), **res})
        log(
            f"{parameter} = {alpha:.5f}: delta_NN(inf) = {res['delta_nn_inf']:.4g} ({res['status']}) "
            f"[{len(evaluations)} evaluations]"
        )
        if res["status"] == "ok":
            return res["delta_nn_inf"]
        return float(bracket[0] if res["status"] == "below_bracket" else bracket[1])

    found = optimize.minimize_scalar(objective, bounds=bounds, method="bounded", options={"xatol": xatol})
    best = min((e for e in evaluations if e["status"] == "ok"), key=lambda e: e["delta_nn_inf"], default=None)
    if best is None:
        best = {
            "alpha": float(found.x),
            "delta_nn_inf": float("nan"),
            "status": "none",
            "at_value": float("nan"),
        }
    return best, evaluations


def _main():
    """One evaluation (the child process of :func:`evaluate`): JSON request on stdin, result on stdout.
    (The parent imports ``design`` too, without calling it: the job's code inputs are the modules
    its evaluations run.)"""
    request = json.load(sys.stdin)
    settings = SimpleNamespace(activation=FAMILY_NAME, link=request["link"], a=request["a"], b=request["b"])
    res = fixed_point_threshold(
        settings, request["level"], request["bracket"], request["points"], log=lambda _: None
    )
    print(
        json.dumps(
            {
                key: (float(res[key]) if key != "status" else res[key])
                for key in ("delta_nn_inf", "at_value", "status")
            }
        )
    )


if __name__ == "__main__":
    _main()
