"""Memory and runtime of each kind of job, from what it holds and what it does (one place).

Memory: mem_mb = BASE_MB + SAFETY · (bytes of the job's largest arrays)/10⁶, where the arrays are

* GD cells (sweeps, long runs): X drawn in float64 then cast to its dtype, n·d·(8 + itemsize),
  plus the test set n_test·d·(8 + itemsize);
* restricted GD (plateau, referee): X in float64, n·d·8, plus the dense Hessian and its ``eigh``
  workspace (``model.hessian_workspace``);
* the DMFT: the packed response array N(T+1)(T+2)/2 doubles plus six N×(T+1) path arrays;
* the spectral overlap: X in float64 at the largest δ.

BASE_MB covers the interpreter, NumPy/SciPy/numba and the compiled kernels (≈ 200–250 MB RSS
measured in the quick run's benchmark files).

Runtime (an upper bound, what a cluster job requests): a job costs JOB_START (interpreter,
imports, data) plus, per GD step of every trial, STEP_OVERHEAD (the Python side of a step) plus
m·n·d·itemsize / BANDWIDTH: GD is memory-bound for m = 1 (X streamed once per step), and for small
X that fits in cache the fused kernel's work grows with the width m at the same rate per byte.
Every trial is charged its whole step budget; the request is that times SAFETY_TIME, at least
MIN_RUNTIME minutes.  The expected time of a config (trials that escape or reach a certified
minimum stop early) comes from a measured reference run: ``featlearn.plan --reference``.
"""

import math
import os

import numpy as np

from featlearn.model.hessian_workspace import spectrum_workspace_bytes

BASE_MB = 400
SAFETY = 1.5
BANDWIDTH = 5e9  # bytes/s a single job streams X at (conservative: 17-20 GB/s measured on 2 cores)
SAFETY_TIME = 3.0
MIN_RUNTIME = 5  # minutes
JOB_START = 1.5  # seconds: a cell whose trials all stop at once takes 1.1-1.3 s in the quick run
STEP_OVERHEAD = 1e-4  # seconds of Python per GD step (d = 250 cells, whose X fits in cache)


def _mb(nbytes):
    return int(math.ceil(BASE_MB + SAFETY * nbytes / 1e6))


def gd_cell_bytes(d, delta, n_test, dtype):
    item = np.dtype(dtype).itemsize
    return (round(delta * d) + n_test) * d * (8 + item)


def gd_cell_mem_mb(d, delta, n_test, dtype):
    return _mb(gd_cell_bytes(d, delta, n_test, dtype))


def gd_cell_seconds(d, delta, dtype, steps, trials, m=1):
    """Upper bound: JOB_START + steps·trials·(STEP_OVERHEAD + m·n·d·itemsize/BANDWIDTH)."""
    per_step = STEP_OVERHEAD + m * round(delta * d) * d * np.dtype(dtype).itemsize / BANDWIDTH
    return JOB_START + per_step * steps * trials


def scaled_steps(steps, d, budget_scale_d):
    """A sweep trial's step budget at dimension d: ``steps``, grown in proportion to d above
    ``budget_scale_d`` (steps·d/budget_scale_d rounded up; None: never grown)."""
    if budget_scale_d is None or d <= budget_scale_d:
        return steps
    return math.ceil(steps * d / budget_scale_d)


def sweep_core_hours(cells, dtype, steps, budget_scale_d, m=1):
    """Upper-bound core-hours of sweep cells [(d, δ, trials)] run one thread each (as on the SLURM
    profile): Σ ``gd_cell_seconds`` at each cell's ``scaled_steps`` budget / 3600."""
    seconds = sum(
        gd_cell_seconds(d, delta, dtype, scaled_steps(steps, d, budget_scale_d), trials, m)
        for d, delta, trials in cells
    )
    return seconds / 3600


def restricted_mem_mb(d, delta, m=1):
    return _mb(round(delta * d) * d * 8 + spectrum_workspace_bytes(m * d))


def restricted_seconds(d, delta, steps, seeds, spectra, m=1):
    """Upper bound of restricted GD with m neurons: seeds·(steps + 50·spectra)·m·n·d·8/BANDWIDTH, a
    float64 GD step or Hessian-vector product streaming X once per neuron (as for GD, m·n·d·itemsize
    per step) and a Hessian spectrum costing ≈ 50 such passes per checkpoint."""
    per_pass = m * round(delta * d) * d * 8
    return per_pass * seeds * (steps + 50 * spectra) / BANDWIDTH


def dmft_mem_mb(n_paths, horizon):
    jac = n_paths * (horizon + 1) * (horizon + 2) // 2 * 8
    return _mb(jac + 6 * n_paths * (horizon + 1) * 8)


def spectral_mem_mb(d, delta_max):
    return _mb(round(delta_max * d) * d * 8 * 2)


DMFT_SECONDS = 1.5e-7
"""Seconds per path and per (t, s ≤ t) pair of the DMFT response recursion, per δ: 2.8× the
5.4e-8 measured for the quick run's N = 4·10⁴, T = 50 model (27.7 s for 10 δ on this machine)."""


def dmft_seconds(n_paths, horizon, solves):
    return DMFT_SECONDS * n_paths * (horizon + 1) * (horizon + 2) / 2 * solves


FIXED_POINT_SECONDS = 2.0
"""Seconds per δ of the static fixed point at 80 Gauss-Hermite nodes per axis (its work grows as
nodes²): twice the ~0.95 s/δ measured for the quick run's 9-δ model."""


def fixed_point_mem_mb(nodes):
    """The fixed point's quadrature grids (a few nodes² arrays) on top of BASE_MB."""
    return _mb(16 * nodes * nodes * 8)


def fixed_point_seconds(nodes, n_deltas):
    return JOB_START + FIXED_POINT_SECONDS * n_deltas * (nodes / 80) ** 2


def spectral_seconds(d, deltas, trials):
    """Lanczos for the top eigenvector: about 100 products with (1/n) Σ T(y_i) x_i x_iᵀ, two passes
    over X each, per δ and trial."""
    return sum(200 * round(delta * d) * d * 8 for delta in deltas) * trials / BANDWIDTH


def escape_mem_mb(d, delta, n_paths, horizon, dmft_horizon):
    """An escape cell: restricted-GD arrays at (d, δ), the referee's restricted trajectory
    (horizon × d) and the DMFT of the hard coordinate over ``dmft_horizon`` steps."""
    trajectory = _mb((horizon + 1) * d * 8)
    return restricted_mem_mb(d, delta) + trajectory + dmft_mem_mb(n_paths, dmft_horizon) - BASE_MB


def escape_seconds(d, delta, horizon, trials, runs, solves, n_paths, dmft_horizon):
    """An escape cell: ``runs`` passes over X per step and trial (linear stage: the unrestricted
    and restricted runs and the linearisation's HVP, 3; signal: one planted run per m₀) and
    ``solves`` DMFT solutions over ``dmft_horizon`` steps (1; one per m₀)."""
    runs_seconds = restricted_seconds(d, delta, runs * horizon, trials, 0)
    return runs_seconds + dmft_seconds(n_paths, dmft_horizon, solves)


def escape_cell(kind, settings, delta, m0s):
    """(mem_mb, seconds) of an escape cell of ``kind`` ("linear": the runs, their linearisation and
    one DMFT over ``dmft_steps``; "signal": one planted run and one DMFT per m₀, over ``steps``)."""
    s = settings
    runs, solves = (3, 1) if kind == "linear" else (len(m0s), len(m0s))
    dmft_horizon = s.dmft_steps if kind == "linear" else s.steps
    mb = escape_mem_mb(s.d, delta, s.n_paths, s.steps, dmft_horizon)
    return mb, escape_seconds(s.d, delta, s.steps, s.trials, runs, solves, s.n_paths, dmft_horizon)


def prediction_mem_mb(n_paths, horizon, samples):
    """A prediction cell: the DMFT plus the sampled paths of the process (u, ρ and a mask)."""
    return dmft_mem_mb(n_paths, horizon) + int(math.ceil(SAFETY * 3 * samples * (horizon + 1) * 8 / 1e6))


def prediction_seconds(n_paths, horizon, samples, n_d, n_rho):
    """A prediction cell: one DMFT solve, then ~10 passes over the samples × (T+1) paths per (d, ρ_c)."""
    return JOB_START + dmft_seconds(n_paths, horizon, 1) + 10 * samples * (horizon + 1) * n_d * n_rho * 1e-9


def two_stage_seconds(n_paths, horizon, n_kicks):
    """A two-stage cell: one DMFT-with-signal solve per kick (m₀, t₀); the draws are negligible."""
    return JOB_START + dmft_seconds(n_paths, horizon, n_kicks)


def scan_extent(coarse, refine):
    """(cells, largest δ) of an auto-refined scan (``cells.conventions.scan``): the coarse grid plus
    one cell per refinement factor, the largest at most the grid's end times the largest factor."""
    return len(coarse) + len(refine), max(coarse) * max(1.0, *refine)


def landscape_seconds(d, delta, steps, m=1):
    """A Fig 3 cell: restricted GD to the plateau and unrestricted GD over the budget (two budgets
    of passes over X) and one Lanczos."""
    return restricted_seconds(d, delta, 2 * steps, 1, 1, m)


def minutes(seconds):
    """A requested runtime in minutes from an estimate in seconds:
    max(MIN_RUNTIME, ⌈SAFETY_TIME·seconds/60⌉)."""
    return max(MIN_RUNTIME, int(math.ceil(SAFETY_TIME * seconds / 60)))


def machine_mem_mb():
    """Physical memory of this machine in MB (None where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 10**6
    except (ValueError, OSError, AttributeError):
        return None
