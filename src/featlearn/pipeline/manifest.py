"""The figure and table manifest: every figure and results table a build writes, with its caption.

The entries are data, in ``manifest.yaml`` beside this module (its header says what each field
means); this module reads them and answers what a config's build holds.  One list, used by the rules
(targets, wildcard constraints, which theory figure to draw, the report captions), the config check
(no two figures may share a stem), the results index and the claims' inputs, and the tests (the
README names every stem).  Stems of sweep phase figures come from the config
(``sweeps.<name>.figure``, with the paper figure in ``sweeps.<name>.paper``).
"""

import sys
from dataclasses import dataclass, replace
from pathlib import Path, PurePath

import yaml


@dataclass(frozen=True)
class FigureEntry:
    """A figure's manifest entry: its file stem ("{stem}": its section's ``stem`` key; "{name}": one
    figure per key of its section), the rule that draws it, its caption, the paper figure it
    reproduces ("Fig 4", "Fig 10b", or "" for a figure the workflow adds) and the optional config
    section without which it is not drawn."""

    stem: str
    rule: str
    caption: str
    paper: str = ""
    section: str | None = None


@dataclass(frozen=True)
class TableEntry:
    """A results table's manifest entry (``results/tables/<name>``, the one place its file name is
    written): the rule that writes it and its name among the rule's outputs (None: unnamed), its
    caption, whether a build targets it (the others are inputs of a target), the optional config
    section without which it is not built, and whether the claims read it (True; or the claims'
    role key of the one sweep whose table they read, ``claims.sweeps``).  ``{sweep}``,
    ``{activation}`` and ``{easy_hard}`` in a name stand for each sweep, each Hessian activation
    and the easy/hard figure's stem."""

    name: str
    rule: str
    caption: str
    output: str | None = None
    target: bool = False
    section: str | None = None
    claims: bool | str = False

    def names(self, config):
        """The file names of this table in ``config``'s build (none without its section)."""
        if self.section and not section_of(config, self.section):
            return []
        values = {
            "sweep": list(config["sweeps"]),
            "activation": list(config["hessian"]["delta"]),
            "easy_hard": [config["easy_hard"]["stem"]],
        }
        field = next((k for k in values if f"{{{k}}}" in self.name), None)
        return [self.name.format(**{field: v}) for v in values[field]] if field else [self.name]

    def pattern(self, config):
        """The file name as its rule's output: ``{easy_hard}`` filled from the config, ``{sweep}``
        and ``{activation}`` left as the rule's wildcards."""
        return self.name.replace("{easy_hard}", config["easy_hard"]["stem"])


def section_of(config, dotted):
    """The config section at the dotted path (None where it is absent or empty)."""
    node = config
    for part in dotted.split("."):
        node = (node or {}).get(part)
    return node or None


_ENTRIES = yaml.safe_load(Path(__file__).with_name("manifest.yaml").read_text(encoding="utf-8"))
FIXED = tuple(FigureEntry(**entry) for entry in _ENTRIES["figures"])
"""Every figure but the sweeps' phase figures."""
TABLES = tuple(TableEntry(**entry) for entry in _ENTRIES["tables"])
"""Every results table of a build, in the order of the results index."""


THEORY_KINDS = {
    "fig9_dmft_vs_simulation": "dmft_vs_simulation",
    "fig10a_outlier_vs_time": "outlier_vs_time",
    "fig10b_delta_nn": "delta_nn",
}
"""Which theory figure a ``theory_figure`` job draws."""


def figures(config):
    """Every figure of ``config``: the manifest's own (less those of an absent section) and one
    phase figure per sweep."""
    out = []
    for f in FIXED:
        node = section_of(config, f.section) if f.section else {}
        if f.section and not node:
            continue
        stems = list(node) if f.stem == "{name}" else [f.stem.format(stem=node.get("stem"))]
        out += [replace(f, stem=stem) for stem in stems]
    for name, spec in config["sweeps"].items():
        out.append(
            FigureEntry(
                spec["figure"],
                "phase_figure",
                f"Success rate and final ρ vs δ per d, sweep {name}.",
                spec.get("paper", ""),
            )
        )
    return out


def markdown_table(config):
    """The manifest as the README's figure table (the README block is checked against it)."""
    lines = ["| stem | paper | rule | what it shows |", "|---|---|---|---|"]

    def order(f):
        number = "".join(c for c in f.paper if c.isdigit())
        return (f.paper == "", int(number or 0), f.paper, f.stem)

    for f in sorted(figures(config), key=order):
        lines.append(f"| `{f.stem}` | {f.paper or '(added)'} | `{f.rule}` | {f.caption} |")
    return "\n".join(lines)


def tables(config):
    """[(TableEntry, [file names])] of every table ``config``'s build writes."""
    out = [(table, table.names(config)) for table in TABLES]
    return [(table, names) for table, names in out if names]


def tables_of(rule):
    """The manifest entries of the tables ``rule`` writes, in manifest order."""
    return [table for table in TABLES if table.rule == rule]


def target_tables(config):
    """The file names of the tables a build targets."""
    return [name for table, names in tables(config) if table.target for name in names]


def claim_tables(config):
    """The file names of the tables the claims read: every one of a table they read whole, and of a
    per-sweep table the one of the sweep their role key names (``claims.sweeps``)."""
    out = []
    for table, names in tables(config):
        if table.claims is True:
            out += names
        elif table.claims:
            out.append(table.name.format(sweep=config["claims"]["sweeps"][table.claims]))
    return out


def claim_roles(config):
    """Which sweeps and models of ``config`` each claim reads: the GeLU and Quad sweeps by their role
    keys (``claims.sweeps``), Fig 1's spectral sweep, each width group's narrowest and widest sweep,
    the Hessian activations, and the theory model of each activation (``theory.hessian_overlay``)."""
    overlay = config["theory"]["hessian_overlay"]
    return {
        "gelu": config["claims"]["sweeps"]["gelu"],
        "quad": config["claims"]["sweeps"]["quad"],
        "gelu_spectral": config["figure1"]["spectral"],
        "width": [(group[0], group[-1]) for group in config["width"]["groups"].values()],
        "hessian": list(config["hessian"]["delta"]),
        "theory_gelu": overlay.get("gelu"),
        "theory_quad": overlay.get("quad"),
        "easy_hard_table": f"{config['easy_hard']['stem']}_learning_steps.csv",
    }


def caption_of(config, path):
    """The report caption of a figure (its PNG) or a results table of ``config``'s build, from its
    file name."""
    name = PurePath(path).name
    captions = {f"{f.stem}.png": f.caption for f in figures(config)}
    captions |= {file: table.caption for table, names in tables(config) for file in names}
    if name not in captions:
        raise KeyError(f"no caption for {name!r}: add it to the manifest (manifest.yaml)")
    return captions[name]


if __name__ == "__main__":
    print(markdown_table(yaml.safe_load(open(sys.argv[1] if len(sys.argv) > 1 else "config.yaml"))))
