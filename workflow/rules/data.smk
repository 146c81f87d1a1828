# Stage 1: shared datasets, the kernels of the config activations and losses and the numba kernel cache.
# Each job writes its own benchmark record, the log named `usage` (featlearn.io.usage).


rule model_kernel:
    message:
        "Generating the model kernel {wildcards.tag}.py of a config activation or loss"
    localrule: True
    input:
        code=code("model_kernel"),
    output:
        f"{KERNELS}/{{tag}}.py",
    log:
        f"{RESULTS}/logs/model_kernel/{{tag}}.log",
        usage=f"{RESULTS}/benchmarks/model_kernel/{{tag}}.tsv",
    wildcard_constraints:
        tag=kernel_tag_constraint(),
    params:
        activation=lambda w: kernels.kernel_tags(config)[w.tag][0],
        loss=lambda w: kernels.kernel_tags(config)[w.tag][1],
    conda:
        ENV
    script:
        "../scripts/model_kernel.py"


# One numba cache per program (jobs.Kind.program: a script, or a kind that names its function), the
# wildcard `script`.
rule numba_cache:
    message:
        "Compiling the numba kernels of {wildcards.script} into the on-disk cache"
    input:
        code=lambda w: warmed_code(w.script),
        bases=lambda w: sorted({f"{NUMBA_CACHE}/{b}.ready" for b in kernel_bases(w.script).values()}),
    output:
        ready=touch(f"{NUMBA_CACHE}/{{script}}.ready"),
    log:
        f"{RESULTS}/logs/numba_cache/{{script}}.log",
        usage=f"{RESULTS}/benchmarks/numba_cache/{{script}}.tsv",
    wildcard_constraints:
        script=kernel_scripts(leaders=True),
    params:
        cache_dir=lambda w, output: kernel_cache_dir(output.ready),
        # {module: cache folder to copy its compiled kernels from}, of the warm-ups among its inputs
        # (none for a model kernel's warm-up, whose input replaces them)
        bases=lambda w, input: {
            m: kernel_cache_dir(ready)
            for m, b in kernel_bases(w.script).items()
            if (ready := f"{NUMBA_CACHE}/{b}.ready") in input
        },
        modules=lambda w: kernels.program_kernel_modules(w.script, ROOT),
    resources:
        runtime=10,  # the profile's default is 5: a warm-up compiles every kernel of a program
    conda:
        ENV
    script:
        "../scripts/warm_numba.py"


# A program whose kernel modules are its leader's (kernel_leader) shares the leader's cache: its cache
# folder is a link to the leader's, made once the leader's warm-up is done, so those kernels compile
# once per build.
rule numba_cache_link:
    message:
        "Sharing the numba cache of {wildcards.script} with the program of the same kernels"
    input:
        code=lambda w: [LINK_CODE, code(w.script)],
        leader=lambda w: f"{NUMBA_CACHE}/{kernel_leader(w.script)}.ready",
    output:
        ready=touch(f"{NUMBA_CACHE}/{{script}}.ready"),
    log:
        f"{RESULTS}/logs/numba_cache/{{script}}.log",
    wildcard_constraints:
        script=kernel_scripts(leaders=False),
    params:
        cache_dir=lambda w, output: kernel_cache_dir(output.ready),
        leader=lambda w: kernel_leader(w.script),
    localrule: True
    conda:
        ENV
    script:
        "../scripts/link_numba.py"


use rule numba_cache as model_numba_cache with:
    message:
        "Compiling the numba kernels of {wildcards.script} with the model kernel {wildcards.tag}"
    input:
        code=lambda w: warmed_code(w.script),
        kernel=f"{KERNELS}/{{tag}}.py",
    output:
        ready=touch(f"{NUMBA_CACHE}/{{tag}}/{{script}}.ready"),
    log:
        f"{RESULTS}/logs/numba_cache/{{tag}}/{{script}}.log",
        usage=f"{RESULTS}/benchmarks/numba_cache/{{tag}}/{{script}}.tsv",
    wildcard_constraints:
        tag=kernel_tag_constraint(),
        script=r"\w+",
