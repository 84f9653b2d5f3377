# SPDX-License-Identifier: GPL-2.0
#
# tap.sh: TAP lines for the shell tests of user/tests (sourced).  result
# prints "ok N - NAME" or "not ok N - NAME" with the first 20 lines of
# DETAIL as comments, and a failure sets rc, the script's exit status.

n=0
rc=0

result() {	# result OK NAME [DETAIL]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && printf '%s\n' "$3" | head -20 | sed 's/^/# /'
		rc=1
	fi
}
