"""Fused numba kernel for the empirical-risk gradient: reads X once per GD step (docs/model.md, eq. (M6)).

For each row x_i the kernel forms z_ij = θ_jᵀx_i + b_j, the residual e_i = f(x_i) − y_i and accumulates
g_j += e_i c_j σ′(z_ij) x_i (c_j = a_j/m) while the row is still in cache, i.e. it evaluates eq. (G) of
``network`` ((M6)) in a single pass over X. The same pass sums the second layer's gradients (Ga), (Gb)
of ``network`` ((M6a)): e_i σ(z_ij)/m and e_i c_j σ′(z_ij), O(nm) beside the O(nmd) of (G), so they are
always computed and used only when a and b are trained. With a loss other than the square loss
(Huber's or a config loss, docs/model.md, eq. (M3a)) e_i is replaced by ψ(e_i) = ρ′(e_i) in every
sum. Rows are taken four at a time (four dot products share one pass over Θ, four axpys share one
pass over g), which keeps the loop memory-bound rather than latency-bound.

The rows are split into ``N_BLOCKS`` fixed blocks whose partial gradients are summed in block order, so
the result is bit-identical for any number of threads. X may be float32 or float64; all arithmetic is
float64. fastmath keeps NaN/inf semantics (no ``nnan``/``ninf``) so that a diverging trial is detected.
"""

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from featlearn.model.activations import activation as _precise_activation
from featlearn.model.compiled import rho as _precise_rho
from featlearn.model.loss import SQUARE

SQUARE_CODE = SQUARE.code

N_BLOCKS = 64
FASTMATH = {"reassoc", "contract", "arcp", "nsz"}

# σ and ρ as this kernel evaluates them: the model kernel's functions compiled with FASTMATH.  The
# model kernel declares fastmath=False, so every other caller gets the same precise code whichever
# kernel compiled first (numba passes a caller's fastmath on to a callee that sets none, and caches
# the callee's code under its signature alone).  These twins are not cached: a cached twin would
# share, and overwrite, the model kernel's own cache entries.  Cached kernels of this module carry
# their code inside them.
activation = njit(fastmath=FASTMATH)(_precise_activation.py_func)
rho = njit(fastmath=FASTMATH)(_precise_rho.py_func)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _row_output(q, b, a_over_m, code, z, coef, values):
    """f(x_q) = Σ_j c_j σ(z_qj); sets coef[q, j] = c_j σ′(z_qj), values[q] = (σ(z_qj)/m, c_j σ′(z_qj))."""
    m = z.shape[1]
    f = 0.0
    for j in range(m):
        s, ds, _ = activation(code, z[q, j] + b[j])
        f += a_over_m[j] * s
        coef[q, j] = a_over_m[j] * ds
        values[q, 0, j] = s / m
        values[q, 1, j] = a_over_m[j] * ds
    return f


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _scale_row(q, factor, coef, values):
    """Row q of coef and values times the row's residual factor (e, or ψ(e))."""
    for j in range(coef.shape[1]):
        coef[q, j] *= factor
        values[q, 0, j] *= factor
        values[q, 1, j] *= factor


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _square_residuals(i, r, b, a_over_m, code, y, z, coef, values):
    """The square loss's residuals of rows i..i+r−1 (see :func:`_rows_forward`); returns Σ_q e_q²."""
    sq = 0.0
    for q in range(r):
        f = _row_output(q, b, a_over_m, code, z, coef, values)
        e = f - y[i + q]
        sq += e * e
        _scale_row(q, e, coef, values)
    return sq


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _loss_residuals(i, r, b, a_over_m, code, y, loss, z, coef, values):
    """The residuals ψ(e) of rows i..i+r−1 for the :class:`featlearn.model.loss.Loss` ``loss`` (see
    :func:`_rows_forward`); returns Σ_q 2ρ(e_q)."""
    total = 0.0
    for q in range(r):
        f = _row_output(q, b, a_over_m, code, z, coef, values)
        value, psi, _ = rho(loss.code, f - y[i + q], loss.kappa)
        total += 2.0 * value
        _scale_row(q, psi, coef, values)
    return total


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _rows_forward(x, i, r, theta, b, a_over_m, code, y, loss, z, coef, values, zero):
    """For rows i..i+r−1 (r ≤ 4): coef[q, j] = e c_j σ′(z_qj) in the dtype of X, and in float64
    values[q, 0, j] = e σ(z_qj)/m and values[q, 1, j] = e c_j σ′(z_qj); returns Σ_q e_q².  For a
    ``loss`` other than the square loss, e is replaced by ψ(e) and e² by 2ρ(e) (a function of its
    own, so that the square loss's arithmetic is exactly what it was before other losses)."""
    m, d = theta.shape
    for j in range(m):
        th = theta[j]
        if r == 4:
            s0 = s1 = s2 = s3 = zero
            for k in range(d):
                t = th[k]
                s0 += x[i, k] * t
                s1 += x[i + 1, k] * t
                s2 += x[i + 2, k] * t
                s3 += x[i + 3, k] * t
            z[0, j], z[1, j], z[2, j], z[3, j] = s0, s1, s2, s3
        else:
            for q in range(r):
                xq = x[i + q]
                s = zero
                for k in range(d):
                    s += xq[k] * th[k]
                z[q, j] = s
    if loss.code == SQUARE_CODE:
        return _square_residuals(i, r, b, a_over_m, code, y, z, coef, values)
    return _loss_residuals(i, r, b, a_over_m, code, y, loss, z, coef, values)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _rows_accumulate(x, i, r, coef, values, g, ab):
    """g_j += Σ_q coef[q, j] x_{i+q} and ab[:, j] += Σ_q values[q, :, j] for rows i..i+r−1 (r ≤ 4)."""
    m, d = g.shape
    for q in range(r):
        for j in range(m):
            ab[0, j] += values[q, 0, j]
            ab[1, j] += values[q, 1, j]
    for j in range(m):
        gj = g[j]
        if r == 4:
            c0, c1, c2, c3 = coef[0, j], coef[1, j], coef[2, j], coef[3, j]
            for k in range(d):
                gj[k] += c0 * x[i, k] + c1 * x[i + 1, k] + c2 * x[i + 2, k] + c3 * x[i + 3, k]
        else:
            for q in range(r):
                c = coef[q, j]
                xq = x[i + q]
                for k in range(d):
                    gj[k] += c * xq[k]


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def _risk_and_gradient(x, y, theta, a, b, code, loss, grad, grad_ab, partial, partial_ab, zero):
    n = x.shape[0]
    m = theta.shape[0]
    a_over_m = a / m
    n_blocks = partial.shape[0]
    block_sq = np.zeros(n_blocks)
    z_blocks = np.empty((n_blocks, 4, m))
    coef_blocks = np.empty((n_blocks, 4, m), dtype=partial.dtype)
    values_blocks = np.empty((n_blocks, 4, 2, m))
    for blk in prange(n_blocks):
        lo = blk * n // n_blocks
        hi = (blk + 1) * n // n_blocks
        g = partial[blk]
        g[:] = 0.0
        ab = partial_ab[blk]
        ab[:] = 0.0
        z, coef, values = z_blocks[blk], coef_blocks[blk], values_blocks[blk]
        sq = 0.0
        i = lo
        while i < hi:
            r = min(4, hi - i)
            sq += _rows_forward(x, i, r, theta, b, a_over_m, code, y, loss, z, coef, values, zero)
            _rows_accumulate(x, i, r, coef, values, g, ab)
            i += r
        block_sq[blk] = sq
    return 0.5 * _sum_blocks(partial, partial_ab, block_sq, grad, grad_ab, n) / n


@njit(cache=True, fastmath=FASTMATH)
def _sum_blocks(partial, partial_ab, block_sq, grad, grad_ab, n):
    """grad = (Σ_blk partial[blk])/n and grad_ab = (Σ_blk partial_ab[blk])/n, summed in block order;
    returns Σ_blk block_sq[blk].  Explicit loops outside the parallel kernel: written there as array
    expressions, each ``grad += partial[blk]`` was a parallel region of its own, and their 64 launches
    cost more than the whole gradient at the quick scale's sizes (benchmarks/gd_step.py)."""
    m, d = grad.shape
    grad[:, :] = 0.0
    grad_ab[:, :] = 0.0
    total = 0.0
    for blk in range(partial.shape[0]):
        for j in range(m):
            for k in range(d):
                grad[j, k] += partial[blk, j, k]
            grad_ab[0, j] += partial_ab[blk, 0, j]
            grad_ab[1, j] += partial_ab[blk, 1, j]
        total += block_sq[blk]
    for j in range(m):
        for k in range(d):
            grad[j, k] /= n
        grad_ab[0, j] /= n
        grad_ab[1, j] /= n
    return total


class Scratch(NamedTuple):
    """Output and scratch buffers of :func:`risk_and_gradient` (see :func:`scratch`)."""

    grad: np.ndarray  # ∇_Θ R̂, (m, d) float64
    grad_ab: np.ndarray  # rows ∇_a R̂ and ∇_b R̂, (2, m) float64
    partial: np.ndarray  # per-block gradient sums, (N_BLOCKS, m, d) in the dtype of X
    partial_ab: np.ndarray  # per-block second-layer sums, (N_BLOCKS, 2, m) float64


def risk_and_gradient(x, y, theta, a, b, code, buffers, loss=SQUARE):
    """Write ∇_Θ R̂ (eq. G) into ``buffers.grad`` and (∇_a R̂, ∇_b R̂) (eqs. Ga, Gb) into
    ``buffers.grad_ab``; return R̂ = (1/n) Σ ρ(e_i) for the :class:`featlearn.model.loss.Loss`
    ``loss`` (ρ(e) = e²/2 for the square loss, docs/model.md, eq. (M3a)).

    Dot products and per-block gradient sums of ∇_Θ are done in the dtype of X (Θ is rounded to
    it); activations, residuals, the second layer's sums, the block reduction and the result are
    float64.  ``buffers`` come from :func:`scratch`.
    """
    return _risk_and_gradient(x, y, theta.astype(x.dtype), a, b, code, loss, *buffers, x.dtype.type(0))


def scratch(m, d, dtype=np.float64):
    """The buffers of :func:`risk_and_gradient` for m neurons in dimension d with X of ``dtype``."""
    return Scratch(
        np.empty((m, d)),
        np.empty((2, m)),
        np.empty((N_BLOCKS, m, d), dtype=dtype),
        np.empty((N_BLOCKS, 2, m)),
    )


def warm():
    """Compile the kernel for float32 and float64 X (``io.warmup``)."""
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal((9, 5)).astype(dtype)
        risk_and_gradient(
            x,
            rng.standard_normal(9),
            rng.standard_normal((2, 5)),
            np.ones(2),
            np.zeros(2),
            0,
            scratch(2, 5, dtype),
        )
