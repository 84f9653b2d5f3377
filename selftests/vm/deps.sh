#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh - install the Debian packages in packages.txt that are missing.
# Quick and silent when everything is present; runs apt-get update only when
# something has to be installed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/packages.txt")

installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${pkgs[@]}" 2>/dev/null |
	    awk '$NF == "installed" && $(NF-1) == "ok" { print $1 }' || true)
missing=()
for p in "${pkgs[@]}"; do
	grep -qxF "$p" <<< "$installed" || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

echo "deps: installing ${missing[*]}"
sudo=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || {
		echo "deps: need root (or sudo) to install packages" >&2
		exit 1
	}
	sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
