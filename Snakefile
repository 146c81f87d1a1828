# featlearn: rebuilds the figures and tables of "Phase Transitions for Feature Learning in Neural
# Networks" (Montanari & Wang, 2026).  `snakemake --cores all` builds the default target.
from snakemake.utils import min_version

min_version("8.0")


configfile: "config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/spectral.smk"
include: "workflow/rules/hessian.smk"
include: "workflow/rules/theory.smk"
include: "workflow/rules/width.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/figures.smk"


rule all:
    input:
        all_targets(),
    default_target: True
