from featlearn.io.job import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from featlearn.gd import engine as gd  # noqa: E402
from featlearn.gd.trials import schedule  # noqa: E402
from featlearn.io.provenance import provenance  # noqa: E402
from featlearn.io.results import save_npz  # noqa: E402
from featlearn.pipeline.settings import LongRunSettings  # noqa: E402

settings = LongRunSettings.from_dict(sm.params.settings)
folder = Path(sm.input.data)
data = {k: np.load(folder / f"{k}.npy", mmap_mode="r") for k in ("X", "y", "X_test", "y_test", "theta_star")}
net = gd.Network(settings.activation, *(np.load(folder / f"{k}.npy") for k in ("theta0", "a", "b")))
steps = settings.steps


def progress(t):
    if (t + 1) % max(1, steps // 20) == 0:
        log(f"step {t + 1}/{steps} ({steps - t - 1} remaining)")


traj = gd.run(data, net, schedule(settings, data, net, freeze=False), progress=progress)
fields = ("steps", "train_loss", "test_loss", "sampled_test_loss", "rho", "norm", "grad_norm")
arrays = {k: getattr(traj, k) for k in fields}
arrays.update(escape_step=traj.escape_step, diverged=traj.diverged, theta=traj.theta)
save_npz(sm.output[0], arrays, provenance(**settings.asdict()))
log(f"escape step {traj.escape_step}, final rho {traj.final_rho:.3f}, diverged {traj.diverged}")
