import numpy as np

from featlearn.model import data, metrics, seeds
from featlearn.model.links import get_link


def test_identity_seeds_are_stable_and_distinct():
    assert seeds.identity_entropy(1, "gelu", 500, 6.0, 3) == seeds.identity_entropy(1, "gelu", 500, 6.0, 3)
    assert seeds.identity_entropy(1, "gelu", 500, 6.0, 3) != seeds.identity_entropy(1, "gelu", 500, 6.0, 4)
    g1 = seeds.trial_generators(1, "x", 3)
    g2 = seeds.trial_generators(1, "x", 3)
    assert g1["train"].standard_normal() == g2["train"].standard_normal()
    assert g1["train"].standard_normal() != g1["init"].standard_normal()


def hermite_coefficients(link, n=400_000, seed=0):
    """Monte Carlo E[h(g) g_l] (first Hermite coefficient along each direction l) with 4-σ tolerances."""
    rng = np.random.default_rng(seed)
    g = rng.standard_normal((n, link.k))
    y = link.h(g)
    prod = y[:, None] * g
    return prod.mean(axis=0), 4 * prod.std(axis=0) / np.sqrt(n), y


def test_easy_hard_link_has_designed_hermite_coefficients():
    coef, tol, _ = hermite_coefficients(get_link("easy_hard"))
    assert abs(coef[0] - 1.0) < tol[0]  # easy: E[h g1] = 1
    assert abs(coef[1]) < tol[1]  # hard: E[h g2] = 0


def test_even_links_have_no_first_hermite_coefficient_and_known_means():
    for name, mean in {"he2": 0.0, "square": 1.0, "abs": np.sqrt(2 / np.pi), "bump": 0.0}.items():
        coef, tol, y = hermite_coefficients(get_link(name))
        assert abs(coef[0]) < tol[0], name
        assert abs(y.mean() - mean) < 4 * y.std() / np.sqrt(y.size), name


def test_bump_link_is_bounded():
    g = np.linspace(-10, 10, 1001)[:, None]
    y = get_link("bump").h(g)
    assert y.min() >= 1 - np.sqrt(2) - 1e-12 and y.max() <= 1


def test_random_teacher_frame_is_orthonormal(rng):
    frame = data.teacher_frame(30, 2, "random", rng)
    np.testing.assert_allclose(frame.T @ frame, np.eye(2), atol=1e-12)


def test_alignment_is_one_in_span_and_small_for_random_weights(rng):
    d = 4000
    star = data.teacher_frame(d, 2, "random", rng)
    in_span = (star @ rng.standard_normal((2, 3))).T
    assert abs(metrics.alignment(in_span, star) - 1) < 1e-12
    np.testing.assert_allclose(metrics.neuron_alignments(in_span, star), 1.0, atol=1e-12)
    random = rng.standard_normal((3, d))
    assert metrics.alignment(random, star) < 0.1
    single = star[:, :1].T + 0.0
    assert abs(metrics.alignment(single, star[:, :1]) - 1) < 1e-12


def test_direction_overlaps_tell_which_direction_is_learned(rng):
    star = data.teacher_frame(50, 2, "e1", rng)
    theta = np.zeros((2, 50))
    theta[0, 0] = 1.0
    theta[1, 5] = 1.0
    np.testing.assert_allclose(metrics.direction_overlaps(theta, star), [1.0, 0.0])
