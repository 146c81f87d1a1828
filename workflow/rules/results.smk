# Every table and figure rule, one per declaration of featlearn.pipeline.result_rules (what it reads,
# writes, and the config key each param comes from), as the compute rules are from the job registry
# (jobs.smk; a rule is found by `grep -rn 'rule="<name>"'`).  Here the rule gains its code stamp,
# the report wrappers of its tables and figures, its log and usage record, and the report caption.
#
# The loop variable is called `rule` for the reason given in jobs.smk (the script directive is
# evaluated again when a job runs, with `rule` the job's rule name;
# tests/test_workflow.py::test_every_rule_runs_the_script_it_declares).
for rule in result_rules.RESULT_RULE:

    rule:
        name:
            rule
        message:
            result_rules.RESULT_RULE[rule].what
        localrule: result_rules.RESULT_RULE[rule].local
        input:
            unpack(result_inputs(result_rules.RESULT_RULE[rule])),
            code=code(result_rules.RESULT_RULE[rule].script),
        output:
            *result_outputs(result_rules.RESULT_RULE[rule])[0],
            **result_outputs(result_rules.RESULT_RULE[rule])[1],
        log:
            f"{RESULTS}/logs/{result_rules.RESULT_RULE[rule].log_path(config)}.log",
        benchmark:
            f"{RESULTS}/benchmarks/{result_rules.RESULT_RULE[rule].log_path(config)}.tsv"
        wildcard_constraints:
            **result_rules.RESULT_RULE[rule].constraints(config),
        params:
            report_caption=report_caption,
            **result_params(result_rules.RESULT_RULE[rule]),
        resources:
            **result_rules.RESULT_RULE[rule].resources,
        conda:
            ENV
        script:
            f"../scripts/{result_rules.RESULT_RULE[rule].script}.py"
