import json
from pathlib import Path

import numpy as np

from featlearn.io.job import start_job


def main(sm):
    log = start_job(sm)  # first: the featlearn modules below use numba, whose cache it sets
    from featlearn.gd import engine as gd
    from featlearn.gd.trials import schedule
    from featlearn.io.provenance import provenance
    from featlearn.io.results import save_npz
    from featlearn.io.settings import JobSettings

    settings = JobSettings.from_dict(sm.params.settings)
    folder = Path(sm.input.data)
    keys = ("X", "y", "X_test", "y_test", "theta_star")
    data = {k: np.load(folder / f"{k}.npy", mmap_mode="r") for k in keys}
    net = gd.Network(settings.activation, *(np.load(folder / f"{k}.npy") for k in ("theta0", "a", "b")))
    steps = settings.steps

    def progress(t):
        if (t + 1) % max(1, steps // 20) == 0:
            log(f"step {t + 1}/{steps} ({steps - t - 1} remaining)")

    traj = gd.run(data, net, schedule(settings, data, net, freeze=False), progress=progress)
    fields = ("steps", "train_loss", "test_loss", "sampled_test_loss", "rho", "norm", "grad_norm")
    arrays = {k: getattr(traj, k) for k in fields}
    arrays.update(escape_step=traj.escape_step, diverged=traj.diverged, theta=traj.theta)
    dataset = json.loads((folder / "meta.json").read_text())["params"]  # d, δ, the draws, ...
    dataset.pop("trial")
    save_npz(sm.output[0], arrays, provenance(**(dataset | settings.asdict())))
    log(f"escape step {traj.escape_step}, final rho {traj.final_rho:.3f}, diverged {traj.diverged}")


main(snakemake)  # noqa: F821
