#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run test programs: user/tests/run.sh BIN...
#
# Each program prints TAP-like "ok N - name" / "not ok N - name" lines and
# exits 0 when everything passed.  Its output is shown indented, followed by
# one "ok N - program" or "not ok N - program" line; the last line is
# "N passed, N failed" (programs).  The exit status is 1 if any failed.

if [ $# -eq 0 ]; then
	echo "usage: $0 TEST-BINARY..." >&2
	exit 2
fi

n=0
passed=0
failed=0
for bin in "$@"; do
	n=$((n + 1))
	name=$(basename "$bin")
	out=$(mktemp)
	if [ -x "$bin" ]; then
		"$bin" >"$out" 2>&1
		rc=$?
	else
		echo "cannot execute $bin" >"$out"
		rc=127
	fi
	sed 's/^/    /' "$out"
	bad=$(grep -c '^not ok' "$out")
	good=$(grep -c '^ok' "$out")
	rm -f "$out"
	if [ "$rc" -eq 0 ] && [ "$bad" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok $n - $name ($good cases)"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name (exit $rc, $bad of $((good + bad)) cases failed)"
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
