#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# layering.sh [BUILD]: each tool links only what it calls (default build
# directory user/build).  nf-hipac, the CLI, talks to the kernel: it holds
# no symbol of the classifier core, of the shim or of the linear reference,
# which only nf-hipac-sim and the tests link; nf-hipac-sim holds no
# netlink client.  Symbols are compared with those the objects of the same
# build define.  One TAP line per case.
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
cli=$build/nf-hipac
sim=$build/nf-hipac-sim
# shellcheck source=tap.sh
. "$here/tests/tap.sh"

# The global symbols FILE... define, one a line, sorted.
defined() {
	nm --defined-only -g "$@" 2>/dev/null | awk 'NF == 3 { print $3 }' |
		sort -u
}

# check NAME BINARY OBJECT...: BINARY defines none of the OBJECTs' symbols.
check() {
	local name=$1 bin=$2 both
	shift 2

	if [ ! -f "$bin" ] || [ $# -eq 0 ] || [ ! -f "$1" ]; then
		result 1 "$name" "missing: $bin or the objects ($*)"
		return
	fi
	both=$(comm -12 <(defined "$bin") <(defined "$@"))
	result "$([ -z "$both" ]; echo $?)" "$name" "$both"
}

core=$(ls "$build"/kernel/*.o 2>/dev/null)
# shellcheck disable=SC2086
check "nf-hipac links no classifier core (kernel/*.c)" "$cli" $core
check "nf-hipac links no shim (shim/shim.c)" "$cli" \
	"$build/user/shim/shim.o"
check "nf-hipac links no reference (sim/ref.c)" "$cli" \
	"$build/user/sim/ref.o"
bad=$(nm "$cli" 2>/dev/null |
	grep -E ' [A-Za-z] nfhp_(tree|txn|ref|ruleset|chain|rule|box|shim)_')
result "$( [ -f "$cli" ] && [ -z "$bad" ]; echo $?)" \
	"nf-hipac: no nfhp_tree_, nfhp_txn_, nfhp_ref_ ... symbol" "$bad"
check "nf-hipac-sim links no netlink client (lib/nl.c)" "$sim" \
	"$build/user/lib/nl.o"
exit $rc
