from featlearn.jobsetup import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from featlearn import gd  # noqa: E402
from featlearn.provenance import provenance  # noqa: E402
from featlearn.results_io import save_npz  # noqa: E402
from featlearn.sweep import loss_scale  # noqa: E402

settings = dict(sm.params.settings)
folder = Path(sm.input.data)
data = {k: np.load(folder / f"{k}.npy", mmap_mode="r") for k in ("X", "y", "X_test", "y_test", "theta_star")}
steps = settings["steps"]


def progress(t):
    if (t + 1) % max(1, steps // 20) == 0:
        log(f"step {t + 1}/{steps} ({steps - t - 1} remaining)")


traj = gd.run(
    data,
    np.load(folder / "theta0.npy"),
    np.load(folder / "a.npy"),
    np.load(folder / "b.npy"),
    settings["activation"],
    settings["lr"],
    steps,
    gd.log_grid(steps, settings["record_points"]),
    freeze_rho=None,
    escape_rho=settings["escape_rho"],
    loss_scale=loss_scale(settings, data["y"]),
    progress=progress,
)
arrays = {k: getattr(traj, k) for k in ("steps", "train_loss", "test_loss", "rho", "norm", "grad_norm")}
arrays.update(escape_step=traj.escape_step, diverged=traj.diverged, theta=traj.theta)
save_npz(sm.output[0], arrays, provenance(**settings))
log(f"escape step {traj.escape_step}, final rho {traj.final_rho:.3f}, diverged {traj.diverged}")
