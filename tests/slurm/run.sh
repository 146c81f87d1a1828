#!/usr/bin/env bash
# Build the tiny config on a real single-node SLURM cluster through the SLURM profile, build it
# locally, and check that every result is byte-identical.
#
# Needs root: it installs Debian's slurm-wlm and munge when missing, and starts munged,
# slurmctld and slurmd (no slurmdbd: job states come from squeue, with a long MinJobAge).
# .ci/run calls it when it runs as root with CI=true; `python -m pytest` never needs it.
# Usage: bash tests/slurm/run.sh            (prints the SLURM version and both wall times)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" != 0 ]; then
    echo "SLURM test SKIPPED: it needs root (installs and starts munged, slurmctld, slurmd)"
    exit 0
fi
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi
WORK=$(mktemp -d /tmp/featlearn-slurm.XXXXXX)
HOST=$(hostname -s)
PARTITION=$(python -c "import yaml; print(yaml.safe_load(open('$ROOT/workflow/profiles/slurm/config.yaml'))['default-resources']['slurm_partition'])")

# The test's slurm.conf replaces any existing one only while it runs: with a slurm.conf whose
# controller is down, every Snakemake start waits ~10 s (the SLURM plugin queries scontrol).
[ -f /etc/slurm/slurm.conf ] && cp /etc/slurm/slurm.conf "$WORK/slurm.conf.saved"
cleanup() {
    scancel --quiet --user root 2>/dev/null || true
    [ -f "$WORK/slurmd.pid" ] && kill "$(cat "$WORK/slurmd.pid")" 2>/dev/null || true
    [ -f "$WORK/slurmctld.pid" ] && kill "$(cat "$WORK/slurmctld.pid")" 2>/dev/null || true
    if [ -f "$WORK/slurm.conf.saved" ]; then
        cp "$WORK/slurm.conf.saved" /etc/slurm/slurm.conf
    else
        rm -f /etc/slurm/slurm.conf
    fi
}
trap cleanup EXIT

# munge: one key, the daemon as the munge user
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
[ -s /etc/munge/munge.key ] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
chmod 400 /etc/munge/munge.key
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged

# a single-node cluster whose one partition is the profile's
mkdir -p /etc/slurm "$WORK/state" "$WORK/spool"
MEM=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024))
cat >/etc/slurm/slurm.conf <<CONF
ClusterName=featlearn
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=86400
ReturnToService=2
NodeName=$HOST CPUs=$(nproc) RealMemory=$MEM State=UNKNOWN
PartitionName=$PARTITION Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -c
slurmd -c
for _ in $(seq 60); do
    state=$(sinfo -h -o %T 2>/dev/null | head -1)
    [ "$state" = idle ] && break
    sleep 1
done
[ "$state" = idle ] || { echo "the node did not come up ($state)"; cat "$WORK"/slurm*.log; exit 1; }
echo "SLURM $(sinfo --version | awk '{print $2}') up: $(sinfo -h -o '%P %D %c %m %T')"

copy() {
    mkdir -p "$1"
    cp -r "$ROOT/Snakefile" "$ROOT/workflow" "$ROOT/src" "$ROOT/envs" "$ROOT/paper" "$1/"
    ln -s workflow/profiles "$1/profiles"
}
copy "$WORK/slurm"
# the local reference: the tiny build, copied from $FEATLEARN_TINY_STORE where this CI job's pytest
# run left it for these sources (tests/tiny_build.py), else built here
start=$(date +%s)
mkdir -p "$WORK/local"
python "$ROOT/tests/tiny_build.py" "$WORK/local" >"$WORK/local.log" 2>&1 || { tail -50 "$WORK/local.log"; exit 1; }
local_s=$(($(date +%s) - start))
start=$(date +%s)
(cd "$WORK/slurm" && timeout 1800 snakemake --workflow-profile workflow/profiles/slurm \
    --configfile workflow/configs/tiny.yaml \
    --slurm-init-seconds-before-status-checks 5 --seconds-between-status-checks 5 \
    >"$WORK/slurm.log" 2>&1) || { tail -80 "$WORK/slurm.log"; tail -20 "$WORK/slurmctld.log"; exit 1; }
slurm_s=$(($(date +%s) - start))
submitted=$(grep -c "Job .* has been submitted with SLURM jobid" "$WORK/slurm.log" || true)
echo "tiny config: local build ${local_s}s ($(tail -1 "$WORK/local.log" | sed 's/.*: //')), SLURM build ${slurm_s}s (${submitted} jobs through sbatch)"
[ "$submitted" -gt 0 ] || { echo "no job went through SLURM"; exit 1; }

# every result, byte for byte (logs, benchmark timings and the numba cache are not results, nor is
# the manuscript: its performance section reports the timings of the run that built it)
diff -r -q -x logs -x benchmarks -x .numba_cache -x paper "$WORK/local/results" "$WORK/slurm/results"
echo "SLURM test PASSED: $(find "$WORK/local/results" -type f -not -path '*/logs/*' -not -path '*/benchmarks/*' -not -path '*/.numba_cache/*' -not -path '*/paper/*' | wc -l) result files identical"

# A job that fails under keep-going (the profile's): Snakemake must report it and exit, not wait.
# (A job missing from the status query stays "active" in the SLURM plugin: with `sacct` and no
# slurmdbd, or `squeue` and a MinJobAge shorter than the polling interval, a run never ends.)
mkdir -p "$WORK/failing"
cat >"$WORK/failing/Snakefile" <<'SMK'
rule all:
    input:
        "ok.txt",
        "bad.txt",


rule ok:
    output:
        "ok.txt",
    shell:
        "echo ok > {output}"


rule bad:
    output:
        "bad.txt",
    shell:
        "exit 3"
SMK
start=$(date +%s)
set +e
(cd "$WORK/failing" && timeout 600 snakemake --workflow-profile "$ROOT/workflow/profiles/slurm" \
    --slurm-init-seconds-before-status-checks 5 --seconds-between-status-checks 5 >"$WORK/failing.log" 2>&1)
rc=$?
set -e
if [ "$rc" = 0 ] || [ "$rc" = 124 ] || [ ! -f "$WORK/failing/ok.txt" ]; then
    echo "a failing SLURM job under keep-going: exit code $rc (0: not reported, 124: never exited)"
    tail -40 "$WORK/failing.log"
    exit 1
fi
echo "a failing SLURM job under keep-going: reported, the other job finished, exit code $rc after $(($(date +%s) - start))s"
