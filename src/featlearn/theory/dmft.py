"""Discrete-time DMFT of restricted full-batch GD for one neuron (docs/dmft.md, eqs. (D1)–(D10); the
code labels (Rθ), (Cθ), (z), (J), (Cr, Rr) below are its (D3), (D4), (D5), (D6), (D7)).

Restricted dynamics (hard coordinate removed; y independent of A ∈ R^{n×p}, iid N(0, 1) entries,
n/p = δ, loss ℓ(y, z) = (aσ(z + b) − y)²/2, r = ℓ′, w = ℓ″):

    θ^{t+1} = θ^t − (η/n) Aᵀ r^t,   r^t = ℓ′(y, Aθ^t),   θ⁰ ~ N(0, r₀² I/p).

As p → ∞ the dynamics reduces to two scalar processes coupled by correlation (C) and response (R)
kernels.  Parameter side (linear, ϑ = √p θ_j):

    R_θ(t+1, s) = R_θ(t, s) − η Σ_{u=s}^{t} R_r(t, u) R_θ(u, s),   R_θ(s, s) = 1          (Rθ)
    C_θ(t, t) = r₀² R_θ(t, 0)² + (η²/δ) Σ_{s,s′<t} R_θ(t, s+1) R_θ(t, s′+1) C_r(s, s′)   (Cθ)

(C_θ(t, t) = ‖θ^t‖²).  Sample side (non-linear; N Monte-Carlo paths, g ~ N(0, 1), y = h(g)):

    z^t = ω^t − (η/δ) Σ_{s<t} R_θ(t, s+1) r^s,   r^t = ℓ′(y, z^t),   w^t = ℓ″(y, z^t)      (z)
    J^t_t = 1,   J^t_s = −(η/δ) Σ_{u=s}^{t−1} R_θ(t, u+1) w^u J^u_s                      (J)
    C_r(t, s) = E[r^t r^s],   R_r(t, s) = E[w^t J^t_s]                                     (Cr, Rr)

with ω ~ GP(0, C_θ).  ω is built as docs/dmft.md, eq. (D8), prescribes, without factorising C_θ:

    ω^t = R_θ(t, 0) u₀ − (η/√δ) Σ_{s<t} R_θ(t, s+1) v^s,   u₀ ~ N(0, r₀²),   v^s = G r^s,

G ∈ R^{N×N} with iid N(0, 1/N) entries, so that v has exactly the empirical covariance C_r given
the paths.  G is never formed: with q₀, q₁, … the Gram–Schmidt basis of r⁰, r¹, … (unit vectors
of R^N), G q₀, G q₁, … are iid N(0, I/N) vectors, each independent of the paths that precede it
(rotation invariance of G), so v^t = Σ_j c_j Ξ_j with r^t = Σ_j c_j q_j and Ξ an N×(T+1) matrix
of iid N(0, 1/N): the same law as G r at O(N T) memory instead of O(N²).

Trainable second layer (``train`` with "a" and/or "b", docs/dmft.md, eq. (D13)): a and b are two
numbers moved by averages over the n samples, so in the limit they are deterministic order
parameters, a^t and b^t, updated by the same averages over the paths,

    a^{t+1} = a^t − η E[ψ(e^t) σ(z^t + b^t)],   b^{t+1} = b^t − η E[r^t],   e^t = a^tσ(z^t + b^t) − y,

(ψ(e) = e for the square loss) and ℓ, r^t = ℓ′ and w^t = ℓ″ at step t use (a^t, b^t).  A kick to one
sample's field moves a and b by O(1/n), one to a coordinate of θ by O(1/√n), so the second layer does
not enter the response kernels.

Outputs per t (docs/dmft.md, eqs. (D9)–(D10)): ‖θ^t‖², the train loss E[ℓ(y, z^t)], H₁₁ = E[g² w^t]
(the hard diagonal entry of the Hessian; equal to E[y w^t] for y = g²) and E[y w^t]; the law of
(g², w^t) as N samples feeds the outlier equations (``outlier``); the g²-weighted kernels C_g, R_g
drive the hard coordinate (``escape``).  Cost O(N T³/6) for (J) in a numba kernel, memory O(N T²/2).
"""

import math
from dataclasses import dataclass

import numpy as np
from numba import njit, prange
from scipy import special

from featlearn.model import seeds
from featlearn.model.layers import check_train
from featlearn.model.links import get_link
from featlearn.model.loss import SQUARE, loss_derivatives, loss_of, second_layer_derivatives

_BLOCKS = 64  # fixed path blocks: sums do not depend on the thread count


@dataclass
class DMFTResult:
    """Kernels and per-step observables of one DMFT solution (arrays indexed by t = 0..T)."""

    delta: float
    lr: float
    norm2: np.ndarray  # ‖θ^t‖² = C_θ(t, t)
    train_loss: np.ndarray  # E[ℓ(y, z^t)]
    h11: np.ndarray  # E[g² w^t]
    yw: np.ndarray  # E[y w^t]
    c_r: np.ndarray  # C_r(t, s)
    r_r: np.ndarray  # R_r(t, s), lower triangle
    r_theta: np.ndarray  # R_θ(t, s), lower triangle
    c_g: np.ndarray  # C_g(t, s) = E[g² r^t r^s]  (hard-coordinate noise, docs/escape.md (E2))
    r_g: np.ndarray  # R_g(t, s) = E[g² w^t J^t_s], lower triangle (hard-coordinate memory)
    g2: np.ndarray  # g² of each path, shape (N,)
    y: np.ndarray  # y of each path, shape (N,)
    w: np.ndarray  # w^t of each path, shape (T + 1, N)
    m: np.ndarray  # teacher overlap m^t (zero for restricted GD)
    gr: np.ndarray  # E[g r^t]: the overlap's drift, m^{t+1} = m^t − η E[g r^t]
    a: np.ndarray  # the second layer a^t (constant unless trained, (D13))
    b: np.ndarray  # the bias b^t (constant unless trained, (D13))

    @property
    def rho(self):
        """ρ^t = |m^t| / ‖θ^t‖."""
        return np.abs(self.m) / np.sqrt(self.norm2)


@njit(cache=True, fastmath=False)
def _tri(t):
    """Offset of row t in a packed lower-triangular (t, s ≤ t) array."""
    return t * (t + 1) // 2


@njit(cache=True, fastmath=False)
def _row_combination(jac_k, w_k, coef, t, acc):
    """acc[s] = Σ_{u=s}^{t−1} coef[u] w^u J^u_s for s < t (the right side of (J)) for one path whose
    rows J^u (u < t) are packed in ``jac_k``; terms are added in increasing u.  acc is a buffer of
    its own, not row t of ``jac_k``: with reads and writes in one array the compiler cannot prove
    that they do not overlap, and the loop stays scalar."""
    for s in range(t):
        acc[s] = 0.0
    for u in range(t):
        c = coef[u] * w_k[u]
        start = _tri(u)
        row_u = jac_k[start : start + u + 1]
        for s in range(u + 1):
            acc[s] += c * row_u[s]


@njit(parallel=True, cache=True, fastmath=False)
def response_step(t, jac, w_paths, coef, weight):
    """Fill J^t_s (s ≤ t) of every path by (J); return R_r(t, s) = E[w^t J^t_s] by (Rr) and its
    weighted twin E[weight · w^t J^t_s] (weight = g²: the hard-coordinate kernel R_g, docs/dmft.md
    (D10) and docs/escape.md (E2)).

    ``jac`` is path-major, shape (N, ≥ (t+1)(t+2)/2), packed lower triangle (rows u < t are read, row
    t is written); ``w_paths`` has shape (N, T+1); ``coef[u]`` = −(η/δ) R_θ(t, u+1) for u < t.
    """
    n = jac.shape[0]
    base = _tri(t)
    partial = np.zeros((_BLOCKS, t + 1))
    weighted = np.zeros((_BLOCKS, t + 1))
    for blk in prange(_BLOCKS):
        acc = np.empty(t + 1)
        for k in range(blk * n // _BLOCKS, (blk + 1) * n // _BLOCKS):
            jac_k = jac[k]
            _row_combination(jac_k, w_paths[k], coef, t, acc)
            acc[t] = 1.0
            jac_k[base : base + t + 1] = acc
            wt = w_paths[k, t]
            for s in range(t + 1):
                partial[blk, s] += wt * acc[s]
                weighted[blk, s] += weight[k] * wt * acc[s]
    out = np.zeros(t + 1)
    out_weighted = np.zeros(t + 1)
    for blk in range(_BLOCKS):  # explicit loops: an array expression here is a parallel region each
        for s in range(t + 1):
            out[s] += partial[blk, s]
            out_weighted[s] += weighted[blk, s]
    return out / n, out_weighted / n


class _GaussianImage:
    """v = G r for a fixed (never formed) N×N Gaussian G, by Gram–Schmidt (see module docstring)."""

    def __init__(self, xi):
        self.xi = xi  # N × (T+1), iid N(0, 1/N)
        self.store = np.empty_like(xi)  # orthonormal basis q_0, q_1, … in its first ``rank`` columns
        self.rank = 0

    def __call__(self, r):
        basis = self.store[:, : self.rank]
        coef = basis.T @ r
        resid = r - basis @ coef
        coef2 = basis.T @ resid  # second pass: numerically orthogonal
        coef += coef2
        resid -= basis @ coef2
        v = self.xi[:, : self.rank] @ coef
        norm = np.linalg.norm(resid)
        if norm > 1e-12 * np.linalg.norm(r):
            v += norm * self.xi[:, self.rank]
            self.store[:, self.rank] = resid / norm
            self.rank += 1
        return v


def stratified_normal(rng, size):
    """N(0, 1) draws stratified by quantile: Φ⁻¹((k + U_k)/N), k = 0..N−1, in random order.

    Each draw is exactly N(0, 1) (a uniform position inside a random stratum); the empirical law
    matches the Gaussian far better than iid draws, which removes most of the Monte-Carlo noise of
    heavy moments such as E[g⁸] entering E[g² w] for y = g² − 1.
    """
    u = (np.arange(size) + rng.random(size)) / size
    return rng.permutation(special.ndtri(u))


SAMPLINGS = ("stratified", "iid")
"""How a solve draws its paths' g and u⁰: ``stratified`` (:func:`stratified_normal`, the law's
Monte-Carlo estimate with the least noise) or ``iid`` (independent N(0, 1) draws: a finite sample of
size N with its own extreme tail and its own first Hermite coefficient E_N[y g] ≠ 0, as a GD trial's
data set has)."""


def normal_draws(rng, size, sampling):
    """``size`` N(0, 1) draws by ``sampling`` (one of :data:`SAMPLINGS`)."""
    if sampling == "stratified":
        return stratified_normal(rng, size)
    if sampling == "iid":
        return rng.standard_normal(size)
    raise ValueError(f"sampling must be one of {SAMPLINGS}, got {sampling!r}")


def path_law(rng, paths, link, noise=0.0, sampling="stratified"):
    """(g, y) of ``paths`` Monte-Carlo paths: g ~ N(0, 1) drawn by ``sampling``, y = h(g) + noise·ε."""
    lk = get_link(link)
    if lk.k != 1:
        raise ValueError(f"the DMFT is implemented for single-index links; {link!r} has k = {lk.k}")
    g = normal_draws(rng, paths, sampling)
    y = lk.h(g[:, None])
    if noise > 0:
        y = y + noise * rng.standard_normal(paths)
    return g, y


_WORKSPACE = [np.empty(0)]


def _response_workspace(paths, width):
    """An uninitialised (paths, width) array for the packed J^t_s of (J), on one buffer that every
    solve of the process reuses (``response_step`` writes row t before any later row reads it).  The
    buffer is N·T²/2 doubles (0.4 GB at N = 4·10⁴, T = 50), and memory touched for the first time
    costs about 10 µs per 4 kB page on the machines this workflow runs on: a fresh array per solve
    spent more time in page faults than in the recursion."""
    size = paths * width
    if _WORKSPACE[0].size < size:
        _WORKSPACE[0] = np.empty(size)
    return _WORKSPACE[0][:size].reshape(paths, width)


def solve(
    activation,
    link,
    delta,
    lr,
    steps,
    paths,
    seed,
    a=1.0,
    b=0.0,
    r0=1.0,
    noise=0.0,
    m0=0.0,
    kick=0,
    twins=False,
    train=("theta",),
    loss=SQUARE,
    sampling="stratified",
):
    """Solve the DMFT up to GD time ``steps`` with ``paths`` Monte-Carlo paths.

    ``seed`` is any identity tuple (hashed by ``seeds.identity_entropy``); the same identity gives
    the same paths bit for bit.

    With signal (docs/escape.md, eq. (E8)): the teacher overlap m^t = ⟨θ^t, θ*⟩ is set to
    ``m0`` at step ``kick`` (0: the start) and then follows

        z^t = m^t g + ω^t − (η/δ) Σ_{s<t} R_θ(t, s+1) r^s,     m^{t+1} = m^t − η E[g r^t],

    with ‖θ^t‖² = (m^t)² + C_θ(t, t) and ρ^t = |m^t| / ‖θ^t‖.  ``m0 = 0`` is restricted GD.

    ``twins``: paths come in sign-flipped pairs (g, −g) with the same y, u⁰ and Gaussian-image row,
    so the pair's restricted trajectories coincide and E[g r^t] = 0 exactly at m = 0 (for an even
    link).  Without them that mean is a Monte-Carlo error of size (E[g² r²]/N)^{1/2}, a spurious
    forcing of m (docs/escape.md, "Twin paths" before eq. (E9)).  ``paths`` must then be even.

    ``sampling``: how g and u⁰ are drawn (:data:`SAMPLINGS`): stratified by default; ``iid`` makes the
    N paths a finite sample, whose E_N[g r] forces m as a data set of N samples forces GD's hard
    coordinate (docs/escape.md, (E27)).

    ``train``: the trained layers, ``("theta",)`` or with "a" and/or "b" ((D13): a^t and b^t move by
    the path averages of ∂ℓ/∂a and ∂ℓ/∂b).  ``loss``: the loss ρ (a ``featlearn.model.loss.Loss``:
    the square loss by default, Huber's or a config loss; docs/model.md, eq. (M3a)).
    """
    check_train(train)
    rng = np.random.default_rng(seeds.identity_entropy(*seed))
    if twins:
        if paths % 2:
            raise ValueError(f"twin paths need an even number of paths, got {paths}")
        g, y = path_law(rng, paths // 2, link, noise, sampling)
        g, y = np.concatenate([g, -g]), np.concatenate([y, y])
        u0 = np.tile(r0 * normal_draws(rng, paths // 2, sampling), 2)
        xi = np.tile(rng.standard_normal((paths // 2, steps + 1)), (2, 1))
    else:
        g, y = path_law(rng, paths, link, noise, sampling)
        u0 = r0 * normal_draws(rng, paths, sampling)  # independent of g (own random order)
        xi = rng.standard_normal((paths, steps + 1))
    image = _GaussianImage(xi / math.sqrt(paths))
    big_t = steps + 1
    r_theta = np.zeros((big_t + 1, big_t + 1))
    r_r, c_r, r_g, c_g = (np.zeros((big_t, big_t)) for _ in range(4))
    g2 = g**2
    r_paths = np.zeros((big_t, paths))
    w_paths = np.zeros((paths, big_t))
    push = np.zeros((paths, big_t))  # column s: (η/√δ) v^s + (η/δ) r^s
    jac = _response_workspace(paths, _tri(big_t))
    norm2, train_loss, h11, yw, overlap, gr = (np.zeros(big_t) for _ in range(6))
    r_theta[0, 0] = 1.0
    m = 0.0
    a_t, b_t = np.full(big_t, float(a)), np.full(big_t, float(b))
    for t in range(big_t):
        if t == kick:
            m = float(m0)
        rt = r_theta[t, 1 : t + 1]
        z = m * g + r_theta[t, 0] * u0 - push[:, :t] @ rt
        overlap[t] = m
        norm2[t] = m**2 + r0**2 * r_theta[t, 0] ** 2 + lr**2 / delta * rt @ c_r[:t, :t] @ rt
        ell, r, w = loss_derivatives(activation, a_t[t], b_t[t], y, z, loss)
        train_loss[t], h11[t], yw[t], gr[t] = ell.mean(), np.mean(g2 * w), np.mean(y * w), np.mean(g * r)
        r_paths[t], w_paths[:, t] = r, w
        coef = -(lr / delta) * rt
        r_r[t, : t + 1], r_g[t, : t + 1] = response_step(t, jac, w_paths, coef, g2)
        c_r[t, : t + 1] = r_paths[: t + 1] @ r / paths
        c_r[: t + 1, t] = c_r[t, : t + 1]
        c_g[t, : t + 1] = r_paths[: t + 1] @ (g2 * r) / paths
        c_g[: t + 1, t] = c_g[t, : t + 1]
        push[:, t] = lr / math.sqrt(delta) * image(r) + (lr / delta) * r
        # (Rθ): R_θ(t+1, s) for s ≤ t
        r_theta[t + 1, : t + 1] = r_theta[t, : t + 1] - lr * (r_r[t, : t + 1] @ r_theta[: t + 1, : t + 1])
        r_theta[t + 1, t + 1] = 1.0
        if m != 0.0:
            m -= lr * float(gr[t])
        if t + 1 < big_t:
            a_t[t + 1], b_t[t + 1] = _second_layer_step(activation, a_t[t], b_t[t], y, z, r, lr, train, loss)
    return DMFTResult(
        delta=float(delta),
        lr=float(lr),
        norm2=norm2,
        train_loss=train_loss,
        h11=h11,
        yw=yw,
        c_r=c_r,
        r_r=r_r,
        r_theta=r_theta[:big_t, :big_t],
        c_g=c_g,
        r_g=r_g,
        g2=g2,
        y=y,
        w=np.ascontiguousarray(w_paths.T),
        m=overlap,
        gr=gr,
        a=a_t,
        b=b_t,
    )


def _second_layer_step(activation, a, b, y, z, r, lr, train, loss):
    """(a^{t+1}, b^{t+1}) by (D13): a − η E[∂ℓ/∂a] and b − η E[r] for the trained layers (ℓ′ = r =
    ∂ℓ/∂b); the others unchanged."""
    if "a" in train:
        grad_a, _ = second_layer_derivatives(activation, a, b, y, z, loss)
        a_next = a - lr * float(np.mean(grad_a))
    else:
        a_next = a
    return a_next, (b - lr * float(np.mean(r))) if "b" in train else b


def solve_for(settings, delta, steps, paths, identity, **signal):
    """``solve`` for the model of a settings object (its σ, link, η, a, b, r₀ and noise);
    ``signal``: ``m0``, ``kick``, ``twins``, ``train``."""
    s = settings
    return solve(
        s.activation,
        s.link,
        delta,
        s.lr,
        steps,
        paths,
        identity,
        a=s.a,
        b=s.b,
        r0=s.r0,
        noise=s.noise,
        loss=loss_of(s),
        **signal,
    )


def warm():
    """Compile the response kernel on a tiny problem (``io.warmup``)."""
    solve("gelu", "he2", 2.0, 0.5, 2, 64, ("warmup",))
