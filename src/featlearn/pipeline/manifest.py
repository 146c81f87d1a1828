"""What a config's build writes: every figure and results table, with its caption.

Each table and figure is declared, with its caption, by the rule that writes it
(``featlearn.pipeline.result_rules``: ``TableEntry``, ``FigureEntry``); this module answers, for a
config, which of them its build holds.  One list, used by the rules (targets, the report captions),
the config check (no two figures may share a stem), the results index and the tests (the README's
figure table is :func:`markdown_table` of the paper's figures).  Stems of sweep phase figures come
from the config (``sweeps.<name>.figure``, with the paper figure in ``sweeps.<name>.paper``).
"""

import sys
from dataclasses import replace
from pathlib import PurePath

import yaml

from featlearn.pipeline.result_rules import RESULT_RULES, phase_figures

TABLES = tuple(t for rule in RESULT_RULES for t in rule.tables)
"""Every results table of a build, in the order of the results index (the rules' order)."""
FIXED = tuple(f for rule in RESULT_RULES for f in rule.figures)
"""Every figure but the sweeps' phase figures."""


def figures(config):
    """Every figure of ``config``: the rules' own (less those of an absent section, one per stem) and
    one phase figure per sweep."""
    return [replace(f, stem=stem) for f in FIXED for stem in f.stems(config)] + phase_figures(config)


def markdown_table(config, paper_only=False):
    """The figures (or only those that reproduce a paper figure) as a markdown table: the paper's
    first, in the paper's order, then the added ones by stem.  The README's figure table is the
    paper's figures (checked); ``python -m featlearn.pipeline.manifest CONFIG`` prints them all."""
    lines = ["| stem | paper | rule | what it shows |", "|---|---|---|---|"]

    def order(f):
        number = "".join(c for c in f.paper if c.isdigit())
        return (f.paper == "", int(number or 0), f.paper, f.stem)

    for f in sorted((f for f in figures(config) if f.paper or not paper_only), key=order):
        lines.append(f"| `{f.stem}` | {f.paper or '(added)'} | `{f.rule}` | {f.caption} |")
    return "\n".join(lines)


def tables(config):
    """[(TableEntry, [file names])] of every table ``config``'s build writes."""
    out = [(table, table.names(config)) for table in TABLES]
    return [(table, names) for table, names in out if names]


def target_tables(config):
    """The file names of the tables a build targets."""
    return [name for table, names in tables(config) if table.target for name in names]


def caption_of(config, path):
    """The report caption of a figure (its PNG) or a results table of ``config``'s build, from its
    file name."""
    name = PurePath(path).name
    captions = {f"{f.stem}.png": f.caption for f in figures(config)}
    captions |= {file: table.caption for table, names in tables(config) for file in names}
    if name not in captions:
        raise KeyError(f"no caption for {name!r}: declare it in the rule that writes it (result_rules)")
    return captions[name]


if __name__ == "__main__":  # every figure of the build of CONFIG [OVERLAY ...], merged as --configfile
    from snakemake.utils import update_config

    config = {}
    for path in sys.argv[1:] or ["config.yaml"]:
        update_config(config, yaml.safe_load(open(path)))
    print(markdown_table(config))
