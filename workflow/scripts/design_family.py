import json

from featlearn.io.job import logger
from featlearn.io.settings import JobSettings
from featlearn.theory.design_family import family_minimum

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
settings, p = JobSettings.from_dict(sm.params.settings), sm.params
log(f"family {p.expression} over {p.parameter} in {p.bounds}: {settings}")
best, evaluations = family_minimum(
    p.expression,
    p.parameter,
    p.bounds,
    settings.link,
    settings.a,
    settings.b,
    p.level,
    p.bracket,
    p.points,
    p.xatol,
    log,
)
log(f"minimum: {best}")
out = {"expression": p.expression, "parameter": p.parameter, "bounds": list(p.bounds), "best": best}
with open(sm.output[0], "w") as f:
    json.dump({**out, "evaluations": evaluations, "settings": settings.asdict()}, f, indent=1)
