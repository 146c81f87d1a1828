# featlearn: rebuilds the figures and tables of "Phase Transitions for Feature Learning in Neural
# Networks" (Montanari & Wang, 2026).  `snakemake --cores all` builds the default target.
from snakemake.utils import min_version

min_version("8.0")


# config.yaml is the default; a --configfile replaces it entirely (several --configfile values
# merge in order, e.g. `--configfile config.yaml workflow/configs/theory_d2000.yaml` for an
# overlay), so a smaller config never inherits cells of the default one.  Job-side Snakemake
# processes (SLURM) receive the same --configfile list and take the same branch.
if not workflow.overwrite_configfiles:

    configfile: "config.yaml"



report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/gd.smk"
include: "workflow/rules/finite_size.smk"
include: "workflow/rules/hessian.smk"
include: "workflow/rules/theory.smk"
include: "workflow/rules/escape.smk"
include: "workflow/rules/conventions.smk"
include: "workflow/rules/design.smk"
include: "workflow/rules/paper.smk"


rule all:
    input:
        all_targets(),
    default_target: True
