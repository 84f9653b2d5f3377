#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# valgrind.sh: the core's unit and differential tests, built without
# sanitizers (user/build/test_*), under valgrind memcheck: any invalid
# access, use of uninitialized memory or leak fails.  The differential test
# runs 50 rule sets here, enough for each kind of set to show what it is
# there for (updates given up, builds cut short, changes refused past the
# flatten bound); under ASan it runs its full count.
here=$(cd "$(dirname "$0")/.." && pwd)
command -v valgrind >/dev/null || { echo "ok 1 - valgrind # SKIP not installed"; exit 0; }
n=0
rc=0
for t in "test_core" "test_diff 50"; do
	n=$((n + 1))
	log=$(mktemp)
	# shellcheck disable=SC2086
	if valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect \
		"$here"/build/$t >"$log" 2>&1; then
		echo "ok $n - valgrind $t"
	else
		echo "not ok $n - valgrind $t"
		grep -v '^ok' "$log" | tail -30 | sed 's/^/# /'
		rc=1
	fi
	rm -f "$log"
done
exit $rc
