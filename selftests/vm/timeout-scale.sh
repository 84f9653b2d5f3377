#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# timeout-scale.sh [VCPUS] - print the factor by which the VM tests' time
# limits are stretched on this host now (NFHP_TIMEOUT_SCALE, see
# run_tests.sh): NFHP_TIMEOUT_SCALE itself if set, else measured.  How it
# was found goes to standard error.
#
# Under TCG each of the guest's VCPUS (default 2) is a busy host thread,
# so the guest runs slower by the share of the host's CPUs it does not
# get.  Over 2 s, /proc/stat says what the host runs without the VM: the
# threads that want a CPU (procs_running, sampled every 0.1 s, less the
# sampling shell itself) and the CPUs kept busy (user, nice, system, irq,
# softirq and steal time; steal is a hypervisor's load).  The busy CPUs
# alone cannot see past the CPUs there are: beside another VM and a nice
# 19 kernel build they said 2.0 of 2 while tests ran 3 to 4 times slower
# than on an idle host, with 8 threads runnable.  OTHERS is the larger of
# the two, and the factor is (OTHERS + VCPUS) / CPUS, at least 1, rounded
# up to a tenth.  A nice job counts fully: in another session's scheduler
# autogroup it competes almost fully, and counting too much only makes a
# limit longer.  A loaded host so gets longer time limits: a slower green
# instead of a red.
set -euo pipefail

vcpus=${1:-2}

if [ -n "${NFHP_TIMEOUT_SCALE:-}" ]; then
	if [[ $NFHP_TIMEOUT_SCALE =~ ^[0-9]+(\.[0-9]+)?$ ]] &&
	   ! [[ $NFHP_TIMEOUT_SCALE =~ ^[0.]+$ ]]; then
		echo "timeout-scale: $NFHP_TIMEOUT_SCALE (NFHP_TIMEOUT_SCALE)" >&2
		echo "$NFHP_TIMEOUT_SCALE"
	else
		echo "timeout-scale: NFHP_TIMEOUT_SCALE=$NFHP_TIMEOUT_SCALE" \
		     "is no positive number: 1" >&2
		echo 1
	fi
	exit 0
fi

# cpu_ticks - "BUSY TOTAL" jiffies of all CPUs since boot.
cpu_ticks()
{
	awk '$1 == "cpu" {
		busy = $2 + $3 + $4 + $7 + $8 + $9
		print busy, busy + $5 + $6
	}' /proc/stat
}

read -r b0 t0 < <(cpu_ticks)
runnable=0
for ((i = 0; i < 20; i++)); do
	# In this shell (no fork): it is the one running thread of ours.
	while read -r key val _; do
		[ "$key" != procs_running ] || runnable=$((runnable + val - 1))
	done < /proc/stat
	sleep 0.1
done
read -r b1 t1 < <(cpu_ticks)
ncpu=$(nproc)
awk -v db=$((b1 - b0)) -v dt=$((t1 - t0)) -v r="$runnable" -v n="$ncpu" \
    -v v="$vcpus" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
	busy = dt > 0 ? db / dt * n : 0
	r /= 20
	others = r > busy ? r : busy
	s = (others + v) / n
	s = s < 1 ? 1 : int(s * 10 + 0.999) / 10
	printf "timeout-scale: %s (%.1f threads runnable and %.1f of %d" \
	       " CPUs busy over 2 s, plus the VM'"'"'s %d; load average %s)\n",
	       s, r, busy, n, v, load > "/dev/stderr"
	print s
}'
