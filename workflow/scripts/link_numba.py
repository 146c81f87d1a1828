import os
import shutil

from featlearn.io.job import logger

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
cache_dir, leader = sm.params.cache_dir, sm.params.leader
if os.path.islink(cache_dir):
    os.unlink(cache_dir)
elif os.path.isdir(cache_dir):  # the folder an earlier build compiled into
    shutil.rmtree(cache_dir)
os.symlink(leader, cache_dir)  # relative: the leader's folder beside it
log(f"{cache_dir} -> {leader}: the kernels of {sm.wildcards.script}.py are those of {leader}.py")
