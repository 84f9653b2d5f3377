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
# get.  Over 2 s, /proc/stat says how many CPUs the host keeps busy
# without the VM (user, nice, system, irq, softirq and steal time: a nice
# job in another session's scheduler autogroup competes almost fully, a
# hypervisor's steal fully), and the factor is (BUSY + VCPUS) / CPUS, at
# least 1, rounded up to a tenth.  A loaded host so gets longer time
# limits: a slower green instead of a red.
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
sleep 2
read -r b1 t1 < <(cpu_ticks)
ncpu=$(nproc)
awk -v db=$((b1 - b0)) -v dt=$((t1 - t0)) -v n="$ncpu" -v v="$vcpus" \
    -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
	busy = dt > 0 ? db / dt * n : 0
	s = (busy + v) / n
	s = s < 1 ? 1 : int(s * 10 + 0.999) / 10
	printf "timeout-scale: %s (%.1f of %d CPUs busy over 2 s," \
	       " plus the VM'"'"'s %d; load average %s)\n",
	       s, busy, n, v, load > "/dev/stderr"
	print s
}'
