#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-service.sh - run in the VM by check-packaging.sh: the commands of
# nf-hipac.service (/usr/libexec/nf-hipac/nf-hipac-persistent start and
# save, what ExecStart and ExecReload run) in the root the packages were
# installed into (NFHP_PKG_ROOT, read-only here), with the module DKMS built
# there (NFHP_PKG_KVER) and rules files in a tmpfs over its /etc/nf-hipac.
# Writes "ok N - ..." lines to $NFHP_VM_OUT/service.tap.
set -uo pipefail

root=$NFHP_PKG_ROOT
kver=$NFHP_PKG_KVER
version=$NFHP_PKG_VERSION
tap=$NFHP_VM_OUT/service.tap
ko=$root/lib/modules/$kver/updates/dkms/nf_hipac.ko
dir=$root/etc/nf-hipac
n=0
failed=0
: > "$tap"

report()
{
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2" | tee -a "$tap"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2" | tee -a "$tap"
	fi
}

# t NAME CMD... - a test on CMD's exit status
t()
{
	local name=$1

	shift
	echo "=== $name"
	"$@"
	report $? "$name"
}

inroot()
{
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		LC_ALL=C.UTF-8 "$@"
}

service() { inroot /usr/libexec/nf-hipac/nf-hipac-persistent "$@"; }

# in_force FAMILY - the rules of rules.FAMILY are those in force (no
# process substitution: the VM's /dev has no /dev/fd)
in_force()
{
	grep -v '^#' "$dir/rules.$1" > /tmp/want
	rules "$1" > /tmp/got
	diff /tmp/want /tmp/got
}

# rules FAMILY - the rule set in force, without comments
rules()
{
	if [ "$1" = v4 ]; then
		inroot nf-hipac-save
	else
		inroot nf-hipac6-save
	fi | grep -v '^#'
}

mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --bind /dev "$root/dev"
for d in tmp run etc/nf-hipac; do
	mount -t tmpfs -o mode=0755 tmpfs "$root/$d"
done

# The module's dependencies come from the VM's kernel tree; nf_hipac.ko
# itself from the root's DKMS build, through the service's modprobe.
for m in $(modinfo -F depends "$ko" | tr , ' '); do
	modprobe "$m"
done

no_module() { service start && ! [ -d /sys/module/nf_hipac ]; }
t "start without rules files loads nothing" no_module

cat > "$dir/rules.v4" <<'EOF'
# saved rules
*filter
:INPUT DROP [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:ssh-in - [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A INPUT -s 192.0.2.0/24 -p tcp -m tcp --dport 22 -j ssh-in
-A INPUT -p icmp -m icmp --icmp-type 8 -j ACCEPT
-A ssh-in -m comment --comment "admins only" -j ACCEPT
COMMIT
EOF
cat > "$dir/rules.v6" <<'EOF'
*filter
:INPUT ACCEPT [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -s 2001:db8::/32 -p tcp -m tcp --dport 80 -j ACCEPT
COMMIT
EOF
t "start restores rules.v4 and rules.v6" service start
dkms_module()
{
	[ "$(cat /sys/module/nf_hipac/version)" = "$version" ] &&
	[ "$(cat /sys/module/nf_hipac/srcversion)" = \
	  "$(modinfo -F srcversion "$ko")" ]
}
t "the module loaded is DKMS's build of $version" dkms_module
t "the IPv4 rules are in force" in_force v4
t "the IPv6 rules are in force" in_force v6

before4=$(rules v4)
before6=$(rules v6)
cp "$dir/rules.v4" "$dir/good.v4"
sed -i 's/^COMMIT$/-A INPUT -p tcp -m tcp --dport 99999 -j ACCEPT\nCOMMIT/' \
	"$dir/rules.v4"
sed -i 's/--dport 80/--dport 443/' "$dir/rules.v6"
bad_start()
{
	local rc=0

	service start 2> "$root/tmp/err" || rc=$?
	cat "$root/tmp/err"
	[ "$rc" != 0 ]
}

unchanged()
{
	[ "$before4" = "$(rules v4)" ] && [ "$before6" = "$(rules v6)" ]
}
t "start fails on a bad rules.v4" bad_start
t "and says which file" grep -q "rules.v4 is refused" "$root/tmp/err"
t "and changes no rule, IPv6 neither" unchanged

t "a rule added by hand" inroot nf-hipac -A INPUT -p udp -m udp --dport 53 \
	-j ACCEPT
t "save (ExecReload) writes the rules in force" service save
t "rules.v4 holds the new rule" grep -qx -- \
	"-A INPUT -p udp -m udp --dport 53 -j ACCEPT" "$dir/rules.v4"
t "rules.v6 holds the IPv6 rules" grep -q -- "--dport 80 -j ACCEPT" \
	"$dir/rules.v6"
t "the saved files are root's alone" \
	test "$(stat -c %a "$dir/rules.v4")" = 600
inroot nf-hipac -F
back() { service start && inroot nf-hipac -S INPUT | grep -q -- '--dport 53'; }
t "start after a flush puts the saved rules back" back

for d in etc/nf-hipac run tmp dev sys proc; do
	umount "$root/$d"
done
[ "$failed" = 0 ]
