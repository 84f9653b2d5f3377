#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# not-run.sh LOG - print the TAP results that selftests/nf_hipac/run_tests.sh
# planned in LOG ("# planned: N NAME") but never reported ("ok N ...",
# "not ok N ..."), one NAME a line; a test that started but did not finish
# gets " (started, cut short)".  Prints nothing for a complete run or a log
# without a plan.  A run stops early when the VM's time budget or watchdog
# ends it, or the guest dies.
set -uo pipefail

tr -d '\r' < "$1" | awk '
	/^# planned: [0-9]+ / {
		n = $3
		name[n] = $0
		sub(/^# planned: [0-9]+ /, "", name[n])
		order[++k] = n
		next
	}
	/^(not )?ok [0-9]+( |$)/ {
		done[$1 == "not" ? $3 : $2] = 1
		next
	}
	# run_tests.sh: "# T.sh (timeout Ns)" before, "# T.sh: exit N after"
	# after a test.
	/^# [^ ]+\.sh \(timeout [0-9]+s\)$/ { started[$2] = 1; next }
	/^# [^ ]+\.sh: exit [0-9]+ after / { t = $2; sub(/:$/, "", t); ended[t] = 1 }
	END {
		for (i = 1; i <= k; i++) {
			n = order[i]
			if (n in done)
				continue
			t = name[n]
			sub(/.* /, "", t)
			cut = (t in started) && !(t in ended)
			print name[n] (cut ? " (started, cut short)" : "")
		}
	}'
