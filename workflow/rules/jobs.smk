# The compute jobs: one rule per kind of the job registry (featlearn.pipeline.jobs), which declares
# each kind's paths, script, inputs, params, threads and resources.  A job writes its own benchmark
# record, the log named `usage` (featlearn.io.usage), instead of Snakemake's `benchmark:` polling it.
# A rule is found by its name where it is declared: `grep -rn 'rule="<name>"' src`.
#
# The loop variable is called `rule` on purpose: Snakemake evaluates the script directive again
# when a job runs, inside a function whose argument `rule` is the job's rule name, so the directive
# names the right script then too (with any other name it would see the loop's last kind).
for rule in registry.KIND:

    rule:
        name:
            rule
        message:
            registry.KIND[rule].message()
        input:
            unpack(job_inputs(registry.KIND[rule])),
        output:
            job_output(rule),
        log:
            registry.KIND[rule].pattern("log"),
            usage=registry.KIND[rule].pattern("benchmark"),
        wildcard_constraints:
            **registry.KIND[rule].wildcard_constraints(),
        params:
            **job_params(registry.KIND[rule]),
        threads: registry.KIND[rule].job_threads(config)
        resources:
            **job_resources(rule),
        conda:
            ENV
        script:
            f"../scripts/{registry.KIND[rule].script}.py"
