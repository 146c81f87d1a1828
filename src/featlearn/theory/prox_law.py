"""The law of (g, z, w) at the static fixed point, integrated exactly across the prox's jumps
(docs/outlier.md, "Quadrature across the prox's jumps", eqs. (O15)–(O18)).

The fixed point's expectations are over ω ~ N(0, q) independent of g ~ N(0, 1), y = h(g), of
functions of z = prox(ω), the GLOBAL minimiser of F(u) = ℓ(y, u) + (u − ω)²/(2κ).  With

    Φ(u) = u²/2 + κℓ(y, u),   Φ′(u) = u + κℓ′(y, u),   Φ″(u) = 1 + κw(u),                    (O15)

κF(u) = Φ(u) − ωu + ω²/2, so z(ω) = argmin_u [Φ(u) − ωu]: z is the subgradient of the convex
conjugate of Φ.  The z that are global minimisers for some ω are the contact points of Φ with its
lower convex hull; each segment of the hull, a bitangent (a, b) with

    Φ′(a) = Φ′(b) = ω*,   Φ(b) − Φ(a) = ω*(b − a),                                            (O16)

is a jump of the prox at ω = ω* from a to b (Maxwell's equal-area rule).  On a contact interval ω
= Φ′(z) is increasing and smooth, so an expectation over ω becomes, for each y, an integral over z
of smooth pieces,

    E_ω[f(z(ω))] = Σ_pieces ∫ f(z) φ_q(Φ′(z)) Φ″(z) dz,   φ_q the N(0, q) density,            (O17)

which composite Gauss–Legendre panels integrate with spectral accuracy: no node straddles a jump.
The panel edges are equally spaced in ω/√q over [−L, L] (mapped to z on their contact interval)
plus the bitangents' ends.  The jumps' own mass, which the Stein form of an expectation sees and the
smooth w does not, is returned too:

    J = E_y Σ_jumps φ_q(ω*) (b − a)       (E[ξ z]/√q = E[1/(1 + κw)] + J)                     (O18)

Outer integral in g: composite Gauss–Legendre panels over [0, G] (even link, weight doubled) or
[−G, G] with the N(0, 1) density.  Every numerical parameter is a field of :class:`Quadrature`;
``refined(k)`` doubles each k times (the refinement study).
"""

import math
from dataclasses import dataclass, replace

import numpy as np
from numba import njit, prange

from featlearn.model.loss import derivatives

_NEWTON = 60
_SMALL_CURVATURE = 0.25
"""Φ″ below which a point of a piece gets graded panels: there 1/Φ″ (in AT and the outlier
integrands) peaks with a width ~ √Φ″."""
_MAX_SPECIAL = 6
_MAX_KINKS = 8
_MAX_GRADES = 24


@njit(cache=True, fastmath=False)
def _graded(edges, count, point, curvature, lo, hi, spacing):
    """Append edges point ± 4·spacing·4^−k (k = 0 … K, inside (lo, hi)), K such that the finest
    is below √Φ″/4 of the peak at ``point`` (at most ``_MAX_GRADES``); returns the new count."""
    grades = min(_MAX_GRADES, int(math.ceil(0.5 * math.log(1.0 / max(curvature, 1e-16)) / math.log(4.0))) + 2)
    for k in range(grades + 1):
        step = 4.0 * spacing * 4.0**-k
        for edge in (point - step, point + step):
            if lo < edge < hi:
                edges[count] = edge
                count += 1
    return count


@dataclass(frozen=True)
class Quadrature:
    """The numerical parameters of (O17): ``panels`` ω-panels over [−``cutoff``, ``cutoff``]·√q with
    ``nodes`` Gauss–Legendre nodes each, ``g_panels`` × ``g_nodes`` in g over [0, ``g_cutoff``]
    (or [−g_cutoff, g_cutoff]), and ``scan`` grid intervals for the convex hull of Φ."""

    panels: int = 12
    nodes: int = 6
    g_panels: int = 16
    g_nodes: int = 6
    scan: int = 256
    cutoff: float = 8.0
    g_cutoff: float = 8.0

    def refined(self, level=1):
        """Every count scaled by 2^level (at least 2; a negative level coarsens, for quick checks);
        the cutoffs moved by ``level`` (their Gaussian tails are below 1e−15 at 8)."""

        def scaled(count):
            return max(2, round(count * 2.0**level))

        return replace(
            self,
            panels=scaled(self.panels),
            nodes=scaled(self.nodes),
            g_panels=scaled(self.g_panels),
            g_nodes=scaled(self.g_nodes),
            scan=scaled(self.scan),
            cutoff=self.cutoff + level,
            g_cutoff=self.g_cutoff + level,
        )

    def per_y(self):
        """Most nodes one y can carry: every panel, up to 8 extra pieces at jumps, the kinks, and
        the graded panels of up to 16 points of small Φ″."""
        return (self.panels + 8 + _MAX_KINKS + 16 * 2 * (_MAX_GRADES + 1)) * self.nodes


@njit(cache=True, fastmath=False)
def _phi(code, a, b, y, u, kappa, loss):
    """(Φ, Φ′, Φ″)(u) of (O15)."""
    ell, d1, d2 = derivatives(code, a, b, y, u, loss)
    return 0.5 * u * u + kappa * ell, u + kappa * d1, 1.0 + kappa * d2


@njit(cache=True, fastmath=False)
def _global_prox(code, a, b, y, omega, kappa, loss, scan):
    """argmin_u [Φ(u) − ωu]: a grid scan over |u − ω| ≤ √(2κℓ(y, ω)) (outside it F(u) > F(ω)), every
    grid-local minimum polished by guarded Newton, the lowest kept."""
    p0, _, _ = _phi(code, a, b, y, omega, kappa, loss)
    ell0 = (p0 - 0.5 * omega * omega) / kappa
    radius = math.sqrt(2.0 * kappa * max(ell0, 0.0)) + 1e-12
    h = 2.0 * radius / scan
    best_f, best_u = np.inf, omega
    prev2, prev1 = np.inf, np.inf
    for j in range(scan + 2):
        if j <= scan:
            u = omega - radius + h * j
            p, _, _ = _phi(code, a, b, y, u, kappa, loss)
            f = p - omega * u
        else:
            f = np.inf
        if j >= 1 and prev1 <= prev2 and prev1 <= f:  # grid point j − 1 is a local minimum
            u = omega - radius + h * (j - 1)
            lo, hi = u - h, u + h
            for _ in range(_NEWTON):
                _, d1, d2 = _phi(code, a, b, y, u, kappa, loss)
                if d2 <= 0.0:
                    break
                step = (d1 - omega) / d2
                u_new = min(max(u - step, lo), hi)
                if abs(u_new - u) < 1e-14 * (1.0 + abs(u)):
                    u = u_new
                    break
                u = u_new
            p, _, _ = _phi(code, a, b, y, u, kappa, loss)
            if p - omega * u < best_f:
                best_f, best_u = p - omega * u, u
        prev2, prev1 = prev1, f
    return best_u


@njit(cache=True, fastmath=False)
def _invert(code, a, b, y, kappa, loss, omega, lo, hi):
    """z in [lo, hi] with Φ′(z) = ω, Φ′ increasing there: safeguarded Newton–bisection."""
    u = 0.5 * (lo + hi)
    for _ in range(200):
        _, d1, d2 = _phi(code, a, b, y, u, kappa, loss)
        r = d1 - omega
        if r > 0.0:
            hi = u
        else:
            lo = u
        if d2 > 0.0:
            u_new = u - r / d2
        else:
            u_new = 0.5 * (lo + hi)
        if not lo < u_new < hi:
            u_new = 0.5 * (lo + hi)
        if abs(u_new - u) <= 1e-15 * (1.0 + abs(u)) or hi - lo <= 1e-15 * (1.0 + abs(u)):
            return u_new
        u = u_new
    return u


@njit(cache=True, fastmath=False)
def _bitangent(code, a, b, y, kappa, loss, za, zb):
    """Newton polish of (O16) from (za, zb); the start where it does not converge."""
    a0, b0 = za, zb
    for _ in range(_NEWTON):
        pa, da, sa = _phi(code, a, b, y, za, kappa, loss)
        pb, db, sb = _phi(code, a, b, y, zb, kappa, loss)
        r1, r2 = da - db, pb - pa - da * (zb - za)
        j11, j12, j21, j22 = sa, -sb, -sa * (zb - za), db - da  # ∂(r1, r2)/∂(za, zb)
        det = j11 * j22 - j12 * j21
        if det == 0.0 or not math.isfinite(det):
            break
        step_a, step_b = (r1 * j22 - j12 * r2) / det, (j11 * r2 - j21 * r1) / det
        za, zb = za - step_a, zb - step_b
        if abs(step_a) + abs(step_b) < 1e-14 * (1.0 + abs(za) + abs(zb)):
            return za, zb
    return a0, b0


@njit(cache=True, fastmath=False)
def _tilted(code, a, b, y, kappa, loss, s, lo, hi):
    """(u, Φ(u) − su) at the solution u in [lo, hi] of Φ′(u) = s (Φ′ increasing there)."""
    u = _invert(code, a, b, y, kappa, loss, s, lo, hi)
    p, _, _ = _phi(code, a, b, y, u, kappa, loss)
    return u, p - s * u


@njit(cache=True, fastmath=False)
def _maxwell(code, a, b, y, kappa, loss, la, u1, u2, rb):
    """The bitangent (O16) over the non-convex stretch [u1, u2] of Φ, its left end in [la, u1] and
    its right end in [u2, rb]: the slope s where the two tilted minima are equal (their difference
    D(s) increases, dD/ds = b(s) − a(s)), by bisection, then Newton; (NaN, NaN) if D has no root."""
    _, s_la, _ = _phi(code, a, b, y, la, kappa, loss)
    _, s_u1, _ = _phi(code, a, b, y, u1, kappa, loss)
    _, s_u2, _ = _phi(code, a, b, y, u2, kappa, loss)
    _, s_rb, _ = _phi(code, a, b, y, rb, kappa, loss)
    s_lo, s_hi = max(s_la, s_u2), min(s_u1, s_rb)
    if not s_lo < s_hi:
        return math.nan, math.nan
    za, zb = u1, u2
    for it in range(200):
        s = 0.5 * (s_lo + s_hi)
        za, fa = _tilted(code, a, b, y, kappa, loss, s, la, u1)
        zb, fb = _tilted(code, a, b, y, kappa, loss, s, u2, rb)
        if fa - fb > 0.0:
            s_hi = s
        else:
            s_lo = s
        if s_hi - s_lo <= 1e-13 * (1.0 + abs(s)):
            break
        if it == 0:
            za0, fa0 = _tilted(code, a, b, y, kappa, loss, s_lo, la, u1)
            zb0, fb0 = _tilted(code, a, b, y, kappa, loss, s_lo, u2, rb)
            if fa0 - fb0 > 0.0:
                return math.nan, math.nan
    return _bitangent(code, a, b, y, kappa, loss, za, zb)


@njit(cache=True, fastmath=False)
def _curvature_zero(code, a, b, y, kappa, loss, inside, outside):
    """The zero of Φ″ between ``inside`` (Φ″ < 0) and ``outside`` (Φ″ ≥ 0), by bisection."""
    for _ in range(100):
        mid = 0.5 * (inside + outside)
        _, _, c = _phi(code, a, b, y, mid, kappa, loss)
        if c < 0.0:
            inside = mid
        else:
            outside = mid
        if abs(outside - inside) <= 1e-15 * (1.0 + abs(mid)):
            break
    return outside


@njit(cache=True, fastmath=False)
def _local_min_curvature(code, a, b, y, kappa, loss, lo, hi):
    """(u, Φ″(u)) at the minimum of Φ″ on [lo, hi] by golden-section search."""
    r = 0.5 * (math.sqrt(5.0) - 1.0)
    c, d = hi - r * (hi - lo), lo + r * (hi - lo)
    _, _, fc = _phi(code, a, b, y, c, kappa, loss)
    _, _, fd = _phi(code, a, b, y, d, kappa, loss)
    for _ in range(80):
        if fc < fd:
            hi, d, fd = d, c, fc
            c = hi - r * (hi - lo)
            _, _, fc = _phi(code, a, b, y, c, kappa, loss)
        else:
            lo, c, fc = c, d, fd
            d = lo + r * (hi - lo)
            _, _, fd = _phi(code, a, b, y, d, kappa, loss)
        if hi - lo <= 1e-13 * (1.0 + abs(lo)):
            break
    return (c, fc) if fc < fd else (d, fd)


@njit(cache=True, fastmath=False)
def _concave_stretches(code, a, b, y, kappa, loss, us, cs):
    """The stretches [u1, u2] where Φ″ < 0: every grid-local minimum of Φ″ refined (golden
    section), and those below zero widened to the zeros of Φ″ on either side.  Returns (u1, u2)
    arrays in increasing order (stretches that meet are merged)."""
    n = us.size
    u1s, u2s = np.empty(n), np.empty(n)
    count = 0
    for k in range(n):
        left = cs[k - 1] if k > 0 else np.inf
        right = cs[k + 1] if k < n - 1 else np.inf
        if not (cs[k] <= left and cs[k] <= right):
            continue
        u_min, c_min = _local_min_curvature(
            code, a, b, y, kappa, loss, us[max(k - 1, 0)], us[min(k + 1, n - 1)]
        )
        if c_min >= 0.0:
            continue
        i = k
        while i > 0 and cs[i] < 0.0:
            i -= 1
        j = k
        while j < n - 1 and cs[j] < 0.0:
            j += 1
        lo = _curvature_zero(code, a, b, y, kappa, loss, u_min, us[i]) if cs[i] >= 0.0 else us[i]
        hi = _curvature_zero(code, a, b, y, kappa, loss, u_min, us[j]) if cs[j] >= 0.0 else us[j]
        if count > 0 and lo <= u2s[count - 1]:
            u2s[count - 1] = max(u2s[count - 1], hi)
        else:
            u1s[count], u2s[count] = lo, hi
            count += 1
    return u1s[:count], u2s[:count]


@njit(cache=True, fastmath=False)
def _window(code, a, b, y, kappa, sqrt_q, loss, cutoff, scan):
    """The contact window of ω ∈ [−L√q, L√q]: ``scan`` + 1 grid points us from z(−L√q) to z(L√q)
    (global proxes), and Φ, Φ″ there."""
    z_lo = _global_prox(code, a, b, y, -cutoff * sqrt_q, kappa, loss, 128)
    z_hi = _global_prox(code, a, b, y, cutoff * sqrt_q, kappa, loss, 128)
    us = np.linspace(z_lo, z_hi, scan + 1)
    ps, cs = np.empty(scan + 1), np.empty(scan + 1)
    for k in range(scan + 1):
        ps[k], _, cs[k] = _phi(code, a, b, y, us[k], kappa, loss)
    return us, ps, cs


@njit(cache=True, fastmath=False)
def _kinks(code, a, b, y, kappa, loss, us, cs, out):
    """Where Φ″ jumps (a kink of σ′ or ψ, e.g. Huber's |e| = κ_H): grid intervals whose step in Φ″
    (above 1e−3) differs by more than half itself from both neighbouring steps (a smooth Φ″ changes
    its step by O(h²) only), each located by bisection on which side's value the midpoint's is
    nearer.  Fills ``out``; returns the count."""
    count = 0
    for k in range(1, us.size - 2):
        step = cs[k + 1] - cs[k]
        left, right = cs[k] - cs[k - 1], cs[k + 2] - cs[k + 1]
        if abs(step) <= 1e-3 or min(abs(step - left), abs(step - right)) <= 0.5 * abs(step):
            continue
        lo, hi, c_lo, c_hi = us[k], us[k + 1], cs[k], cs[k + 1]
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            _, _, c = _phi(code, a, b, y, mid, kappa, loss)
            if abs(c - c_lo) < abs(c - c_hi):
                lo = mid
            else:
                hi = mid
        if count < out.size:
            out[count] = 0.5 * (lo + hi)
            count += 1
    return count


@njit(cache=True, fastmath=False)
def _inner(code, a, b, y, kappa, sqrt_q, loss, panels, cutoff, scan, gl_x, gl_w, z, weight):
    """(O17) for one y: fills z[:] and weight[:] (zero past the nodes used) with the nodes and the
    weights of E_ω over ω ~ N(0, q); returns (J-term of (O18), min Φ″ over the contact set seen,
    jumps found; −1 when the buffer is too small)."""
    weight[:] = 0.0
    z[:] = 0.0
    w_lo, w_hi = -cutoff * sqrt_q, cutoff * sqrt_q
    us, ps, cs = _window(code, a, b, y, kappa, sqrt_q, loss, cutoff, scan)
    z_lo, z_hi = us[0], us[-1]
    # the lower convex hull of Φ on the grid (monotone chain) groups the non-convex stretches
    hull = np.empty(scan + 1, np.int64)
    top = 0
    for k in range(scan + 1):
        while top >= 2:
            i, j = hull[top - 2], hull[top - 1]
            if (us[j] - us[i]) * (ps[k] - ps[i]) - (ps[j] - ps[i]) * (us[k] - us[i]) <= 0.0:
                top -= 1
            else:
                break
        hull[top] = k
        top += 1
    u1s, u2s = _concave_stretches(code, a, b, y, kappa, loss, us, cs)
    kinks = np.empty(_MAX_KINKS)
    n_kinks = _kinks(code, a, b, y, kappa, loss, us, cs, kinks)
    # one gap per hull segment holding stretches, or per stretch no segment holds
    g1, g2 = np.empty(u1s.size), np.empty(u1s.size)
    n_gaps = 0
    for r in range(u1s.size):
        seg = -1
        for t in range(top - 1):
            if us[hull[t]] < u1s[r] and u2s[r] < us[hull[t + 1]]:
                seg = t
        if n_gaps > 0 and seg >= 0 and us[hull[seg]] < g2[n_gaps - 1]:
            g2[n_gaps - 1] = u2s[r]  # the same hull segment as the last gap
        else:
            g1[n_gaps], g2[n_gaps] = u1s[r], u2s[r]
            n_gaps += 1
    starts, ends = np.empty(n_gaps + 1), np.empty(n_gaps + 1)
    n_pieces = 0
    current = z_lo
    jump_mass = 0.0
    for r in range(n_gaps):
        rb = g1[r + 1] if r + 1 < n_gaps else z_hi
        za, zb = _maxwell(code, a, b, y, kappa, loss, current, g1[r], g2[r], rb)
        if not (math.isfinite(za) and current <= za < zb <= z_hi):
            continue
        starts[n_pieces], ends[n_pieces] = current, za
        n_pieces += 1
        current = zb
        _, omega_star, _ = _phi(code, a, b, y, za, kappa, loss)
        density = math.exp(-0.5 * (omega_star / sqrt_q) ** 2) / (sqrt_q * math.sqrt(2 * math.pi))
        jump_mass += density * (zb - za)
    starts[n_pieces], ends[n_pieces] = current, z_hi
    n_pieces += 1
    # panels: ω-edges equally spaced in ω/√q mapped onto each piece, the piece ends, and edges graded
    # geometrically toward every point of small Φ″ (a piece end, an interior minimum of Φ″)
    n_gl = gl_x.size
    used = 0
    min_curv = np.inf
    edges = np.empty(panels + 2 + _MAX_KINKS + _MAX_SPECIAL * 2 * (_MAX_GRADES + 1))
    for p in range(n_pieces):
        lo, hi = starts[p], ends[p]
        _, om_lo, c_lo = _phi(code, a, b, y, lo, kappa, loss)
        _, om_hi, c_hi = _phi(code, a, b, y, hi, kappa, loss)
        count = 0
        edges[count] = lo
        count += 1
        for m in range(1, panels):
            om = w_lo + (w_hi - w_lo) * m / panels
            if om_lo < om < om_hi:
                edges[count] = _invert(code, a, b, y, kappa, loss, om, edges[count - 1], hi)
                count += 1
        edges[count] = hi
        count += 1
        for k in range(n_kinks):
            if lo < kinks[k] < hi:
                edges[count] = kinks[k]
                count += 1
        special = 0
        for k in range(scan + 1):
            if special >= _MAX_SPECIAL:
                break
            if k == 0 or k == scan or not (lo < us[k] < hi):
                continue
            if cs[k] <= cs[k - 1] and cs[k] <= cs[k + 1] and cs[k] < _SMALL_CURVATURE:
                u_min, c_min = _local_min_curvature(code, a, b, y, kappa, loss, us[k - 1], us[k + 1])
                if lo < u_min < hi:
                    count = _graded(edges, count, u_min, max(c_min, 0.0), lo, hi, us[1] - us[0])
                    special += 1
        if c_lo < _SMALL_CURVATURE and special < _MAX_SPECIAL:
            count = _graded(edges, count, lo, max(c_lo, 0.0), lo, hi, us[1] - us[0])
            special += 1
        if c_hi < _SMALL_CURVATURE and special < _MAX_SPECIAL:
            count = _graded(edges, count, hi, max(c_hi, 0.0), lo, hi, us[1] - us[0])
        piece_edges = np.sort(edges[:count])
        for e in range(count - 1):
            left, right = piece_edges[e], piece_edges[e + 1]
            half, mid = 0.5 * (right - left), 0.5 * (right + left)
            if half <= 0.0:
                continue
            if used + n_gl > z.size:
                return jump_mass, min_curv, -1
            for k in range(n_gl):
                u = mid + half * gl_x[k]
                _, om, curv = _phi(code, a, b, y, u, kappa, loss)
                min_curv = min(min_curv, curv)
                density = math.exp(-0.5 * (om / sqrt_q) ** 2) / (sqrt_q * math.sqrt(2 * math.pi))
                z[used] = u
                weight[used] = half * gl_w[k] * density * max(curv, 0.0)
                used += 1
    for p in range(n_pieces - 1):  # the bitangents' ends
        for u in (ends[p], starts[p + 1]):
            _, _, curv = _phi(code, a, b, y, u, kappa, loss)
            min_curv = min(min_curv, curv)
    return jump_mass, min_curv, n_pieces - 1


@njit(parallel=True, cache=True, fastmath=False)
def _law(code, a, b, ys, g_weights, kappa, sqrt_q, loss, panels, cutoff, scan, gl_x, gl_w, per_y):
    """(O17) for every g node: z, weight (g weight × ω weight), per-y jump mass, min Φ″, jumps."""
    n = ys.size
    z = np.zeros((n, per_y))
    weight = np.zeros((n, per_y))
    mass = np.empty(n)
    curv = np.empty(n)
    jumps = np.empty(n, np.int64)
    for i in prange(n):
        mass[i], curv[i], jumps[i] = _inner(
            code, a, b, ys[i], kappa, sqrt_q, loss, panels, cutoff, scan, gl_x, gl_w, z[i], weight[i]
        )
        for k in range(per_y):
            weight[i, k] *= g_weights[i]
    return z, weight, mass, curv, jumps


@njit(cache=True, fastmath=False)
def _stretches(code, a, b, y, kappa, sqrt_q, loss, cutoff, scan):
    """How many non-convex stretches Φ has on the contact window of ω ∈ [−L√q, L√q], and the local
    minimum of Φ″ on the window nearest to zero (a birth of a stretch: ≈ 0)."""
    us, _, cs = _window(code, a, b, y, kappa, sqrt_q, loss, cutoff, scan)
    nearest = np.inf
    for k in range(1, scan):
        if cs[k] <= cs[k - 1] and cs[k] <= cs[k + 1]:
            _, c = _local_min_curvature(code, a, b, y, kappa, loss, us[k - 1], us[k + 1])
            if abs(c) < abs(nearest):
                nearest = c
    return _concave_stretches(code, a, b, y, kappa, loss, us, cs)[0].size, nearest


@njit(parallel=True, cache=True, fastmath=False)
def _stretch_counts(code, a, b, ys, kappa, sqrt_q, loss, cutoff, scan):
    """:func:`_stretches`' count at every y of ``ys``."""
    counts = np.empty(ys.size, np.int64)
    for i in prange(ys.size):
        counts[i] = _stretches(code, a, b, ys[i], kappa, sqrt_q, loss, cutoff, scan)[0]
    return counts


def cusps(code, a, b, link_h, kappa, q, loss, quadrature, lo, hi):
    """The g in (lo, hi) where the count of non-convex stretches of Φ on the window changes: a
    stretch born or gone (a cusp of the prox, a jump of zero size), or one crossing the window's
    end.  There the integrals over ω are singular in g.  Counts on a scan of g_panels·g_nodes + 1
    points (a stretch living between two of them is missed: the refinement study doubles them),
    each change located by bisection to 1e−11.  Returns (breaks, born): ``born`` when some
    break is a birth (the local minimum of Φ″ there is 0 within 1e−8), where the infimum of
    Φ″ = 1 + κw over the contact sets is 0 (O18a)."""

    def stretches(g):
        y = float(link_h(np.array([[g]]))[0])
        return _stretches(code, a, b, y, kappa, math.sqrt(q), loss, quadrature.cutoff, quadrature.scan)

    grid = np.linspace(lo, hi, quadrature.g_panels * quadrature.g_nodes + 1)
    ys = np.ascontiguousarray(link_h(grid[:, None]).ravel(), dtype=float)
    counts = _stretch_counts(code, a, b, ys, kappa, math.sqrt(q), loss, quadrature.cutoff, quadrature.scan)
    breaks, born = [], False
    for left, right, c_left, c_right in zip(grid[:-1], grid[1:], counts[:-1], counts[1:], strict=True):
        if c_left == c_right:
            continue
        while right - left > 1e-11 * (1.0 + abs(left)):
            mid = 0.5 * (left + right)
            if stretches(mid)[0] == c_left:
                left = mid
            else:
                right = mid
        breaks.append(0.5 * (left + right))
        born = born or abs(stretches(breaks[-1])[1]) < 1e-8
    return breaks, born


def g_rule(quadrature, even, breaks=()):
    """Nodes and weights of E_g over g ~ N(0, 1) (O17): composite Gauss–Legendre on [0, G] with the
    density doubled (even link) or on [−G, G], with the panel edges at ``breaks`` too; a panel with
    a break at one end is mapped by g = g_b ± (panel width)·t², which makes the (g − g_b)^{k/2}
    behaviour of the integrals at a cusp polynomial in t."""
    x, w = np.polynomial.legendre.leggauss(quadrature.g_nodes)
    t, wt = 0.5 * (x + 1.0), 0.5 * w
    lo = 0.0 if even else -quadrature.g_cutoff
    uniform = np.linspace(lo, quadrature.g_cutoff, quadrature.g_panels + 1)
    breaks = np.asarray([g for g in breaks if lo < g < quadrature.g_cutoff], float)
    edges = np.unique(np.concatenate([uniform, breaks]))
    nodes, weights = [], []
    for left, right in zip(edges[:-1], edges[1:], strict=True):
        width = right - left
        if np.any(np.isclose(breaks, left, rtol=0, atol=1e-14)):
            nodes.append(left + width * t**2)
            weights.append(2.0 * width * t * wt)
        elif np.any(np.isclose(breaks, right, rtol=0, atol=1e-14)):
            nodes.append(right - width * t**2)
            weights.append(2.0 * width * t * wt)
        else:
            nodes.append(left + width * t)
            weights.append(width * wt)
    g, weight = np.concatenate(nodes), np.concatenate(weights)
    return g, weight * np.exp(-0.5 * g**2) / math.sqrt(2 * math.pi) * (2.0 if even else 1.0)


@dataclass
class ProxLaw:
    """Nodes of the joint law of (g, z, ω) with positive weights (zero-weight padding dropped), the
    jump mass J of (O18), the infimum of Φ″ = 1 + κw over the contact sets (0 where a cusp is
    born inside the support, (O18a); else the least met at the nodes), and the jumps per y."""

    g: np.ndarray
    y: np.ndarray
    z: np.ndarray
    omega: np.ndarray
    w: np.ndarray
    weights: np.ndarray
    jump_mass: float
    min_curvature: float
    jumps: np.ndarray


def prox_law(code, a, b, link_h, even, kappa, q, loss, quadrature):
    """:class:`ProxLaw` at (κ, q) for the activation ``code`` with second layer (a, b), the link
    function ``link_h`` (of an (n, 1) array) and the ``Loss`` ``loss`` ((O17), (O18))."""
    lo = 0.0 if even else -quadrature.g_cutoff
    breaks, born = cusps(code, a, b, link_h, kappa, q, loss, quadrature, lo, quadrature.g_cutoff)
    g, g_weights = g_rule(quadrature, even, breaks)
    ys = np.ascontiguousarray(link_h(g[:, None]).ravel(), dtype=float)
    gl_x, gl_w = np.polynomial.legendre.leggauss(quadrature.nodes)
    sqrt_q = math.sqrt(q)
    z, weight, mass, curv, jumps = _law(
        code, a, b, ys, g_weights, kappa, sqrt_q, loss,
        quadrature.panels, quadrature.cutoff, quadrature.scan, gl_x, gl_w, quadrature.per_y(),
    )  # fmt: skip
    if np.any(jumps < 0):
        raise ValueError("prox law: more pieces than the node buffer holds")
    keep = weight > 0
    rows = np.broadcast_to(np.arange(g.size)[:, None], keep.shape)[keep]
    zk = z[keep]
    _, omega, curvature = _phi_arrays(code, a, b, ys[rows], zk, kappa, loss)
    return ProxLaw(
        g=g[rows],
        y=ys[rows],
        z=zk,
        omega=omega,
        w=(curvature - 1.0) / kappa,
        weights=weight[keep],
        jump_mass=float(g_weights @ mass),
        min_curvature=0.0 if born else float(curv.min()),
        jumps=jumps,
    )


@njit(cache=True, fastmath=False)
def _phi_arrays(code, a, b, ys, zs, kappa, loss):
    out = np.empty((3, zs.size))
    for i in range(zs.size):
        out[0, i], out[1, i], out[2, i] = _phi(code, a, b, ys[i], zs[i], kappa, loss)
    return out[0], out[1], out[2]
