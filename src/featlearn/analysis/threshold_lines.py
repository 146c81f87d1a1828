"""The threshold lines a sweep's phase figure draws (Figs 4 and 5), each named for the quantity it is,
written once for the figure's legend and the manuscript's sentence that describes the figure."""

import math

LINES = {
    "rs_long_time": (
        r"$\delta_{NN}^{RS}(\infty)$: long-time theory",
        "the long-time theory's threshold, from the static replica-symmetric fixed point (dotted red)",
        {"color": "C3", "ls": ":", "lw": 1.3},
    ),
    "finite_time": (
        r"$\min_t \delta_{NN}(t)$, N = <n>: finite-time theory",
        "the finite-time theory's threshold at its minimum over the DMFT horizon, with N = <n> paths "
        "(dashed green)",
        {"color": "C2", "ls": "--", "lw": 1.1},
    ),
    "finite_d": (
        r"finite-d prediction (early window, $\rho_c$ = <rho_c>), per d",
        "the finite-d prediction from the early window (the linear process to the window's end, critical "
        "overlap <rho_c>), one dash-dot line per d in that d's colour, where it falls on the model's δ grid",
        {"ls": "-.", "lw": 1.1},
    ),
    "paper": (
        r"paper's $\delta^*$ = <paper>",
        "the paper's δ* = <paper> (thin grey)",
        {"color": "0.35", "ls": "-", "lw": 0.8},
    ),
}
"""Line → (legend label, the manuscript's words, matplotlib style); ``<name>`` marks a value filled in."""


def _fill(template, values):
    for name, value in values.items():
        template = template.replace(f"<{name}>", value)
    return template


def threshold_lines(theory, finite_n, lines, sweep):
    """The threshold lines of ``sweep``'s phase figure, [(key, legend label, x, style, words)]: x one
    value, or {d: δ₅₀ predicted} for ``finite_d`` (the linear reading at the main ρ_c).  ``theory``:
    the sweep's theory model's row of theory_thresholds.csv (or None); ``finite_n``: the rows of
    delta50_finite_n.csv (or None); ``lines``: the figure's ``lines`` param (the paper's value, the
    main ρ_c).  A line whose value is missing everywhere is left out, so nothing is named that is not
    drawn."""
    out = []

    def add(key, x, **values):
        label, words, style = LINES[key]
        values = {k: f"{v:g}" if isinstance(v, float) else str(v) for k, v in values.items()}
        out.append((key, _fill(label, values), x, style, _fill(words, values)))

    if theory is not None:
        add("rs_long_time", theory["delta_nn_long_time"])
        add("finite_time", theory["delta_nn_min"], n=int(theory["n_paths"]))
    if finite_n and lines.get("finite_n", True):
        per_d = {
            int(r["d"]): r["delta50_predicted"]
            for r in finite_n
            if r["sweep"] == sweep and r["reading"] == "linear" and math.isclose(r["rho_c"], lines["rho_c"])
        }
        add("finite_d", per_d, rho_c=float(lines["rho_c"]))
    if lines.get("paper") is not None:
        add("paper", lines["paper"], paper=float(lines["paper"]))
    return [line for line in out if drawable(line[2])]


def drawable(x):
    """Whether a line has a value to draw (any finite value of a per-d line)."""
    values = x.values() if isinstance(x, dict) else [x]
    return any(isinstance(v, int | float) and math.isfinite(v) for v in values)
