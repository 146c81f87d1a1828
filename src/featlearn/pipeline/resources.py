"""Memory and runtime of each kind of job, from what it holds and what it does (one place): the
formulas, then one cost function per kind of job, ``(config, wildcards, settings) -> (mem_mb,
seconds)``, which the job registry (``featlearn.pipeline.jobs``) names.

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
from featlearn.pipeline.settings import scaled_steps

BASE_MB = 400
SAFETY = 1.5
BANDWIDTH = 5e9  # bytes/s a single job streams X at (conservative: 17-20 GB/s measured on 2 cores)
SAFETY_TIME = 3.0
MIN_RUNTIME = 5  # minutes
JOB_START = 1.5  # seconds: a cell whose trials all stop at once takes 1.1-1.3 s in the quick run
STEP_OVERHEAD = 1e-4  # seconds of Python per GD step (d = 250 cells, whose X fits in cache)


def _mb(nbytes):
    return int(math.ceil(BASE_MB + SAFETY * nbytes / 1e6))


def gd_cell_mem_mb(d, delta, n_test, dtype):
    return _mb((round(delta * d) + n_test) * d * (8 + np.dtype(dtype).itemsize))


def gd_cell_seconds(d, delta, dtype, steps, trials, m=1):
    """Upper bound: JOB_START + steps·trials·(STEP_OVERHEAD + m·n·d·itemsize/BANDWIDTH)."""
    per_step = STEP_OVERHEAD + m * round(delta * d) * d * np.dtype(dtype).itemsize / BANDWIDTH
    return JOB_START + per_step * steps * trials


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


DMFT_SECONDS = 1.5e-7
"""Seconds per path and per (t, s ≤ t) pair of the DMFT response recursion, per δ: 2.8× the
5.4e-8 measured for the quick run's N = 4·10⁴, T = 50 model (27.7 s for 10 δ on this machine)."""


def dmft_seconds(n_paths, horizon, solves):
    return DMFT_SECONDS * n_paths * (horizon + 1) * (horizon + 2) / 2 * solves


FIXED_POINT_SECONDS = 2.0
"""Seconds per δ of the static fixed point at quadrature level 0 (docs/outlier.md (O17)): twice the
~1 s/δ measured for GeLU/he2 near its threshold.  Each level doubles the nodes on both axes and the
hull's scan: ×6–12 measured, charged ×8."""

REFINE_SOLVES = 12
"""Fixed-point solves of the refinement study at the next level (the margin on both sides of the
root, then Brent's method on a bracket of width 0.1: about six; charged twice)."""


def fixed_point_mem_mb(level):
    """The prox law's node buffers at level + 1, where the refinement study runs: ~110 g nodes ×
    ~5000 slots per y, two float64 arrays, at level 0, ×8 per level; on top of BASE_MB."""
    return _mb(2 * 8 * 110 * 5000 * 8 ** (level + 1))


def fixed_point_seconds(level, n_deltas):
    return JOB_START + FIXED_POINT_SECONDS * n_deltas * 8**level


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


# --- the cost of each kind of job: (config, wildcards, settings) -> (mem_mb, seconds) ----------------


def _gd(d, delta, s, trials):
    seconds = gd_cell_seconds(d, delta, s.dtype, s.steps, trials, s.m)
    return gd_cell_mem_mb(d, delta, s.n_test, s.dtype), seconds


def sweep_block(config, w, s):
    return _gd(int(w.d), float(w.delta), s, s.trials)


def long_run(data, s):
    """A long run at its dataset's geometry (``data``: the dataset's settings, its d, δ, n_test,
    dtype and m), one trial of ``s.steps`` steps."""
    mb = gd_cell_mem_mb(data.d, data.delta, data.n_test, data.dtype)
    return mb, gd_cell_seconds(data.d, data.delta, data.dtype, s.steps, 1, data.m)


def dataset(config, w, s):
    return gd_cell_mem_mb(s.d, s.delta, s.n_test, s.dtype), JOB_START


def _plateau_cell(w, s, spectra):
    delta = float(w.delta)
    return restricted_mem_mb(s.d, delta, s.m), restricted_seconds(s.d, delta, s.steps, s.seeds, spectra, s.m)


def plateau(config, w, s):
    """Restricted GD to the plateau, with a spectrum at each checkpoint and at the end."""
    return _plateau_cell(w, s, s.checkpoints + 1)


def threshold_scan(config, w, s):
    """A spectral-threshold cell: restricted GD to the plateau, one spectrum at the end."""
    return _plateau_cell(w, s, 1)


EIGH_FLOPS = 2e9
"""Floating-point operations per second of one core forming a dense Hessian and diagonalising it
(conservative: 2000 × 2000 took 3.9 s, 1000 × 1000 0.6 s, on this project's machine)."""


def anatomy(config, w, s):
    """An anatomy cell (``cells.anatomy``): per trial three unrestricted runs (its own and the two
    reseeded ones) and a restricted one over the budget, and at ≤ 2·(dense_steps + anatomy_points +
    window) + 1 states a dense Hessian, n·d² to form and ≈ 10·d³ to diagonalise."""
    d, delta = int(w.d), float(w.delta)
    states = 2 * (s.dense_steps + s.anatomy_points + s.window) + 1
    flops = states * (round(delta * d) * d * d + 10 * d**3)
    seconds = gd_cell_seconds(d, delta, s.dtype, s.steps, 4 * s.trials) + s.trials * flops / EIGH_FLOPS
    return gd_cell_mem_mb(d, delta, s.n_test, s.dtype) + _mb(spectrum_workspace_bytes(d)) - BASE_MB, seconds


def landscape(config, w, s):
    """A Fig 3 cell: restricted GD to the plateau and unrestricted GD over the budget (two budgets
    of passes over X) and one Lanczos."""
    delta = float(w.delta)
    return restricted_mem_mb(s.d, delta, s.m), restricted_seconds(s.d, delta, 2 * s.steps, 1, 1, s.m)


def referee(config, w, s):
    delta = float(w.delta)
    seconds = restricted_seconds(s.d, delta, s.steps, s.seeds, len(s.spectrum_steps))
    return restricted_mem_mb(s.d, delta), seconds


def dmft(config, w, s):
    """One DMFT solve per δ of the model and replica."""
    n, horizon = int(w.n_paths), config["theory"]["horizon"]
    solves = len(config["theory"]["models"][w.model]["delta"]) * config["theory"]["replicas"]
    return dmft_mem_mb(n, horizon), dmft_seconds(n, horizon, solves)


BRENT_SOLVES = 20
"""Fixed-point solves charged for refining δ_NN(∞) by Brent's method (xtol 1e-4 on a scan interval
of ratio ≤ 1.2 takes about ten; charged twice)."""


def fixed_point(config, w, s):
    level, deltas = config["theory"]["fixed_point_level"], config["theory"]["models"][w.model]["delta"]
    seconds = fixed_point_seconds(level, len(deltas) + BRENT_SOLVES) + fixed_point_seconds(
        level + 1, REFINE_SOLVES
    )
    return fixed_point_mem_mb(level), seconds


FAMILY_PROCESS_SECONDS = 30.0
"""Start-up of one family evaluation's process: imports and the numba compilation of σ_α's kernels."""


def design(config, w, s):
    """A design: its fixed-point scan and root, and the DMFT at each δ factor and replica."""
    level, spec = config["theory"]["fixed_point_level"], config["design"]
    n, horizon = spec["dmft"]["n_paths"], spec["dmft"]["horizon"]
    seconds = fixed_point_seconds(level, spec["search"]["points"] + BRENT_SOLVES)
    seconds += dmft_seconds(n, horizon, len(spec["dmft"]["factors"]) * spec["dmft"]["replicas"])
    return dmft_mem_mb(n, horizon), seconds


def family_evaluations(bounds, xatol):
    """Upper bound of the evaluations of Brent's bounded minimisation: 5 to start, then at most 3 per
    halving of the interval down to ``xatol`` (golden-section steps when parabolic ones fail)."""
    return 5 + 3 * math.ceil(math.log2((bounds[1] - bounds[0]) / xatol))


def design_family(config, w, s):
    """Each evaluation of the family: a process start and a design's fixed-point scan and root."""
    level, spec = config["theory"]["fixed_point_level"], config["design"]
    per = fixed_point_seconds(level, spec["search"]["points"] + BRENT_SOLVES) + FAMILY_PROCESS_SECONDS
    evaluations = family_evaluations(spec["family"]["bounds"], spec["family"]["xatol"])
    return fixed_point_mem_mb(level), evaluations * per


def escape(kind):
    """The cost of an escape cell of ``kind``.  Memory: restricted-GD arrays at (d, δ), the runs'
    trajectory (horizon × d) and the DMFT of the hard coordinate.  Time: ``runs`` passes over X per
    step and trial (linear stage: the unrestricted and restricted runs and the linearisation's HVP,
    3, and one DMFT over ``dmft_steps``; signal: one planted run and one DMFT per m₀, over
    ``steps``)."""

    def cost(config, w, s):
        m0s, delta = config["escape"]["signal"]["m0"], float(w.delta)
        runs, solves = (3, 1) if kind == "linear" else (len(m0s), len(m0s))
        dmft_horizon = s.dmft_steps if kind == "linear" else s.steps
        trajectory = _mb((s.steps + 1) * s.d * 8)
        mb = restricted_mem_mb(s.d, delta) + trajectory + dmft_mem_mb(s.n_paths, dmft_horizon) - BASE_MB
        seconds = restricted_seconds(s.d, delta, runs * s.steps, s.trials, 0)
        return mb, seconds + dmft_seconds(s.n_paths, dmft_horizon, solves)

    return cost


def prediction(config, w, s):
    """A prediction cell: one DMFT solve plus the sampled paths of the process (u, ρ and a mask),
    ~10 passes over the samples × (T+1) paths per (d, ρ_c)."""
    paths = s.samples * (s.horizon + 1)
    mb = dmft_mem_mb(s.n_paths, s.horizon) + int(math.ceil(SAFETY * 3 * paths * 8 / 1e6))
    seconds = JOB_START + dmft_seconds(s.n_paths, s.horizon, 1) + 10 * paths * len(s.d) * len(s.rho_c) * 1e-9
    return mb, seconds


def finite_n(config, w, s):
    """A finite-n window cell (``theory.finite_n``): ``path_sets`` DMFT solves with N = δd paths, the
    outlier equations at every step (~5 ms each), the finite Hessian (E24) at up to every step (n·d²
    to form, ≈ 2·d³ to reduce for its k smallest eigenpairs; the scan stops at the window's close,
    charged here at the horizon) and the sampled paths of
    the process (negligible); the rows and the weighted copy of their transpose (n × d, twice; a third
    for the product's workspace) and the Hessian (d × d, twice) in memory.  The finite Hessian only
    where d is one of ``hessian_d``; the success level (E25) where d is also one of ``level_d``: a
    bisection of DMFT-with-signal solves on 2n paths over ``level_horizon`` steps per path set; the
    trial's own DMFT (E27) where d is one of ``init_d``: ``init_quantiles`` such solves on n paths per
    path set."""
    n, d, steps = round(float(w.delta) * int(w.d)), int(w.d), (s.horizon + 1) * s.path_sets
    hessian = int(d in s.hessian_d)
    seconds = JOB_START + dmft_seconds(n, s.horizon, s.path_sets) + 0.005 * steps
    seconds += hessian * steps * (n * d * d + 2 * d**3) / EIGH_FLOPS
    memory = dmft_mem_mb(n, s.horizon) + hessian * (_mb(8 * (3 * n * d + 2 * d * d)) - BASE_MB)
    if hessian and d in s.level_d:  # (E25): a bisection over the grid per path set, 2n twin paths
        solves = s.path_sets * (math.ceil(math.log2(len(s.level_m0) + 1)) + 1)
        seconds += dmft_seconds(2 * n, s.level_horizon, solves)
        memory = max(memory, dmft_mem_mb(2 * n, s.level_horizon))
    if d in s.init_d:  # (E27): init_quantiles solves on the path set's n paths
        seconds += dmft_seconds(n, s.level_horizon, s.path_sets * s.init_quantiles)
        memory = max(memory, dmft_mem_mb(n, s.level_horizon))
    return memory, seconds


def two_stage(config, w, s):
    """A two-stage cell: one DMFT-with-signal solve per kick (m₀, t₀); the draws are negligible."""
    seconds = JOB_START + dmft_seconds(s.n_paths, s.horizon, len(s.m0) * len(s.t0))
    return dmft_mem_mb(s.n_paths, s.horizon), seconds


def convention_scan(config, w, s):
    """An auto-refined scan (``cells.conventions.scan``): the coarse grid plus one cell per
    refinement factor, each charged at the largest δ, at most the grid's end times the largest factor."""
    coarse, refine = config["conventions"]["coarse"][w.activation], config["conventions"]["refine"]
    cells, largest, d = len(coarse) + len(refine), max(coarse) * max(1.0, *refine), int(w.d)
    mb = gd_cell_mem_mb(d, largest, s.n_test, s.dtype)
    return mb, cells * gd_cell_seconds(d, largest, s.dtype, s.steps, s.trials, s.m)


def convention_plateau(config, w, s):
    p = config["conventions"]["plateau"]
    return _gd(p["d"], p["delta"], s, 1)


def spectral(config, w, s):
    """X in float64 at the largest δ (and its copy); Lanczos for the top eigenvector: about 100
    products with (1/n) Σ T(y_i) x_i x_iᵀ, two passes over X each, per δ and trial."""
    d = int(w.d)
    seconds = sum(200 * round(delta * d) * d * 8 for delta in s.delta) * s.trials / BANDWIDTH
    return _mb(round(max(s.delta) * d) * d * 8 * 2), seconds
