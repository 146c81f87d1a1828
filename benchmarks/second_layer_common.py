"""What the trained-second-layer benchmarks (second_layer_dmft.py, second_layer_outlier.py) share: the
model's command-line options and the restricted GD problem of one dataset.

A dataset's identity is ("second-layer", link, d, δ, seed); θ⁰ ~ N(0, I/d), a⁰ = 1, b⁰ = ``--b0``;
the hard coordinate is projected out (restricted GD, docs/dmft.md (D1)).
"""

import numpy as np

from featlearn.gd import engine as gd
from featlearn.model import data as data_mod
from featlearn.model import seeds
from featlearn.model.links import get_link


def add_model_arguments(parser, seeds_default):
    """The model's options: σ, link, δ, η, GD steps T, datasets per d and b⁰."""
    parser.add_argument("--activation", default="gelu")
    parser.add_argument("--link", default="he2")
    parser.add_argument("--delta", type=float, default=8.0)
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--seeds", type=int, default=seeds_default)
    parser.add_argument("--b0", type=float, default=0.3)


def restricted_problem(args, d, seed):
    """(data, hard directions U, network at its start) of dataset ``seed`` at dimension ``d``."""
    gens = seeds.trial_generators("second-layer", args.link, d, args.delta, seed)
    data = data_mod.trial_data(gens, int(round(args.delta * d)), d, 10, args.link)
    hard = data["theta_star"][:, list(get_link(args.link).hard)]
    theta0 = gens["init"].standard_normal((1, d)) / np.sqrt(d)
    return data, hard, gd.Network(args.activation, theta0, np.ones(1), np.full(1, args.b0))


def restricted_run(args, d, seed, train, grid):
    """Restricted GD of ``args.steps`` steps training ``train``, recorded on ``grid`` (a Trajectory)."""
    data, hard, net = restricted_problem(args, d, seed)
    schedule = gd.Schedule(lr=args.lr, steps=args.steps, grid=grid, restrict=hard, train=train)
    return data, hard, gd.run(data, net, schedule)
