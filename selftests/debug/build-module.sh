#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-module.sh KOBJ [OUTDIR] - build nf_hipac.ko against the kernel tree
# KOBJ (a "make O=" tree after "make modules_prepare" or a full build, such
# as the debug kernel's, see build-kernel.sh) and print the module's path.
#
#	selftests/debug/build-module.sh "$(dirname "$(selftests/debug/build-kernel.sh)")/obj"
#
# The build runs on a copy of Kbuild, kernel/ and include/ in OUTDIR/src
# (default build/debug-module/src), so the normal build's objects at the top
# level are never touched.  The copy keeps the sources' timestamps, so only
# what changed is rebuilt; switching to another KOBJ starts afresh.  The
# module gets debug info (-g) for scripts/faddr2line on KASAN or lockdep
# reports, and UBSAN's checks; the code is otherwise the normal build's.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 KOBJ [OUTDIR]" >&2
	exit 2
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
kobj=$(cd "$1" && pwd)
out=${2:-$top/build/debug-module}
src=$out/src

[ -f "$kobj/Module.symvers" ] || {
	echo "build-module: $kobj has no Module.symvers (not built?)" >&2
	exit 1
}
mkdir -p "$out"
if [ "$(cat "$out/kobj" 2>/dev/null)" != "$kobj" ]; then
	rm -rf "$src"
	echo "$kobj" > "$out/kobj"
fi
mkdir -p "$src"
# Sources only: the top level may hold objects of the normal build.
(cd "$top" && find Kbuild kernel include -type f \
	\( -name Kbuild -o -name '*.[ch]' \) -print0 |
	xargs -0 cp -a --parents -t "$src")

# The debug kernel has UBSAN for the modules that ask (debug.config): ask.
nice -n 10 make -C "$kobj" M="$src" KCFLAGS=-g UBSAN_SANITIZE=y \
	-j"$(nproc)" modules >&2
if grep -qx CONFIG_UBSAN=y "$kobj/.config" &&
   ! nm "$src/nf_hipac.ko" | grep __ubsan_handle_ >/dev/null; then
	echo "build-module: nf_hipac.ko has no UBSAN checks" >&2
	exit 1
fi
cp "$src/nf_hipac.ko" "$out/nf_hipac.ko"
echo "$out/nf_hipac.ko"
