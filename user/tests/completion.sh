#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# completion.sh - drive the bash completion of user/completion/nf-hipac
# as bash would (COMP_WORDS, COMP_CWORD, then the function complete
# registered) and check what it offers.  The chains and sets come from
# stand-ins for nf-hipac and nf-hipac-set in a temporary directory, so no
# module is needed.  Prints TAP-like "ok N - ..." lines.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/bin" "$tmp/files"
cat > "$tmp/bin/nf-hipac" <<'EOF'
#!/bin/sh
[ "$1" = -S ] || exit 1
printf '%s\n' '-P INPUT DROP' '-P FORWARD ACCEPT' '-P OUTPUT ACCEPT' \
	'-N web' '-N ssh-in' '-A INPUT -j web'
EOF
cat > "$tmp/bin/nf-hipac-set" <<'EOF'
#!/bin/sh
[ "$1 $2" = "list -name" ] || exit 1
printf '%s\n' blocklist allowed
EOF
chmod +x "$tmp/bin/nf-hipac" "$tmp/bin/nf-hipac-set"
ln -s nf-hipac "$tmp/bin/nf-hipac6"
touch "$tmp/files/rules.v4" "$tmp/files/rules.v6" "$tmp/files/other"
PATH=$tmp/bin:$PATH
# Where the completion looks for the loaded module: first nowhere.
_nf_hipac_module=$tmp/no-module

# shellcheck source=/dev/null
. "$top/user/completion/nf-hipac"

n=0
failed=0

# check NAME EXPECTED LINE - complete LINE (the last word is the one being
# completed; a trailing space starts an empty word) and compare the sorted
# offers, space-separated, with EXPECTED.  EXPECTED "has: WORD ..." only
# needs each WORD among the offers, "lacks: WORD ..." each absent.
check()
{
	local name=$1 want=$2 line=$3 fn got w ok=1 words

	read -r -a words <<< "$line"
	# As bash splits them (COMP_WORDBREAKS): each ':' is a word.
	COMP_WORDS=()
	for w in "${words[@]}"; do
		while [[ $w == *:* ]]; do
			[ -z "${w%%:*}" ] || COMP_WORDS+=("${w%%:*}")
			COMP_WORDS+=(:)
			w=${w#*:}
		done
		[ -z "$w" ] || COMP_WORDS+=("$w")
	done
	[ "${line% }" = "$line" ] || COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	fn=$(complete -p "${COMP_WORDS[0]##*/}" 2>/dev/null |
	     sed -n 's/.*-F \([^ ]*\) .*/\1/p')
	if [ -z "$fn" ]; then
		got="(no completion registered)"
		ok=0
	else
		"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" \
			"${COMP_WORDS[COMP_CWORD - 1]}"
		got=$(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | xargs)
		case $want in
		has:*)
			for w in ${want#has:}; do
				[[ " $got " == *" $w "* ]] || ok=0
			done;;
		lacks:*)
			for w in ${want#lacks:}; do
				[[ " $got " != *" $w "* ]] || ok=0
			done;;
		*)
			[ "$got" = "$want" ] || ok=0;;
		esac
	fi
	n=$((n + 1))
	if [ $ok = 1 ]; then
		echo "ok $n - $name"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name"
		echo "#   line: '$line'"
		echo "#   want: $want"
		echo "#   got:  $got"
	fi
}

check "no module: built-in chains" "FORWARD INPUT OUTPUT" "nf-hipac -A "
check "no module: no sets" "" "nf-hipac-set add "
_nf_hipac_module=$tmp
check "chains after -A" "FORWARD INPUT OUTPUT ssh-in web" "nf-hipac -A "
check "chains by prefix" "INPUT" "nf-hipac -I IN"
check "user chains only after -X" "ssh-in web" "nf-hipac -X "
check "targets and user chains after -j" \
	"has: ACCEPT DROP REJECT LOG web ssh-in" \
	"nf-hipac -A INPUT -p tcp -j "
check "targets by prefix" "REJECT RETURN" "nf-hipac -A INPUT -j RE"
check "policy targets" "ACCEPT DROP" "nf-hipac -P FORWARD "
check "native and xtables matches" "has: tcp udp conntrack set limit" \
	"nf-hipac -A INPUT -m "
check "matches by prefix" "connbytes connlabel connlimit connmark conntrack" \
	"nf-hipac -A INPUT -m con"
check "options of -p tcp" "--destination --destination-port" \
	"nf-hipac -A INPUT -p tcp --dest"
check "options of -m multiport" "has: --dports --sports --ports" \
	"nf-hipac -A INPUT -p tcp -m multiport --"
check "no tcp options without tcp" "--destination" \
	"nf-hipac -A INPUT --dest"
check "no -m set options elsewhere" "lacks: --match-set" \
	"nf-hipac -A INPUT -p tcp --"
check "protocols" "has: tcp udp icmp all" "nf-hipac -A INPUT -p "
check "states" "ESTABLISHED" "nf-hipac -A INPUT -m state --state EST"
check "commands" "--list --list-rules" "nf-hipac --list"
check "subcommands" "import set state" "nf-hipac "
check "import options" "--table --takeover" "nf-hipac import --ta"
check "sets after --match-set" "allowed blocklist" \
	"nf-hipac -A INPUT -m set --match-set "
check "direction after the set" "has: src dst" \
	"nf-hipac -A INPUT -m set --match-set blocklist "
check "counter options of -m set" "--packets-eq --packets-gt --packets-lt" \
	"nf-hipac -A INPUT -m set --match-set blocklist src --pack"
check "keep-state among the matches" "keep-state" \
	"nf-hipac -A INPUT -m keep"
check "options of -m keep-state" "--state-limit --state-limit-by" \
	"nf-hipac -A INPUT -m keep-state --state-l"
check "no keep-state options elsewhere" "lacks: --state-limit" \
	"nf-hipac -A INPUT -m state --"
check "CHECK-STATE among the targets" "CHECK-STATE CHECKSUM" \
	"nf-hipac -A INPUT -j CH"
check "fields after --state-limit-by" "dst-addr dst-port src-addr src-port" \
	"nf-hipac -A INPUT -m keep-state --state-limit 5 --state-limit-by "
check "more fields after a comma" "src-addr,dst-addr src-addr,dst-port" \
	"nf-hipac -A INPUT -m keep-state --state-limit 5 --state-limit-by src-addr,d"
check "no field twice" "src-addr,dst-port,src-port" \
	"nf-hipac -A INPUT -m keep-state --state-limit 5 --state-limit-by src-addr,dst-port,s"
check "nothing to offer for a limit" "" \
	"nf-hipac -A INPUT -m keep-state --state-limit "
check "nf-hipac6 chains" "has: INPUT web" "nf-hipac6 -A "
check "nf-hipac-set commands" "save swap" "nf-hipac-set s"
check "nf-hipac-set set names" "allowed blocklist" "nf-hipac-set add "
check "nf-hipac-set types" \
	"bitmap:port hash:iface hash:ip hash:ip,port hash:net hash:net,port" \
	"nf-hipac-set create s "
check "a type after its colon" "iface ip ip,port net net,port" \
	"nf-hipac-set create s hash:"
check "a type within its colon" "net net,port" "nf-hipac-set create s hash:n"
check "nf-hipac-set types after hash:i" "iface ip ip,port" \
	"nf-hipac-set create s hash:i"
check "options after a type with a colon" "has: family maxelem" \
	"nf-hipac-set create s hash:net "
check "import's tables after the colon" "filter" \
	"nf-hipac import --table inet:f"
check "nf-hipac-set entries are not sets" "" "nf-hipac-set add blocklist "
check "an add's options after the entry" "bytes nomatch packets value" \
	"nf-hipac-set add blocklist 10.0.0.1 "
check "no option offered for a count" "" \
	"nf-hipac-set add blocklist 10.0.0.1 packets "
check "options after a count" "has: bytes" \
	"nf-hipac-set add blocklist 10.0.0.1 packets 5 "
check "a del's entry takes no counts" "" "nf-hipac-set del blocklist 10.0.0.1 "
check "a test's entry takes nomatch" "nomatch" \
	"nf-hipac-set test blocklist 10.0.0.0/8 "
check "a test's set names" "allowed blocklist" "nf-hipac-set test "
check "create offers counters" "counters" "nf-hipac-set create s hash:ip cou"
check "nf-hipac set as nf-hipac-set" "allowed blocklist" \
	"nf-hipac set flush "
check "state commands" "add delete flush get help list monitor restore save" \
	"nf-hipac state "
check "state commands as options" "--delete" "nf-hipac state --de"
check "state -6 commands" "save" "nf-hipac -6 state sa"
check "state flow options" "--dport --id --sport" "nf-hipac state -D -p tcp --"
check "state get's flow options" "--dport --id --sport" "nf-hipac state get -p udp --"
check "state flush by rule" "--rule" "nf-hipac state -F --r"
check "state add options" "has: --rule --timeout --tcp-flags --counters" \
	"nf-hipac state -A --"
check "state protocols" "has: tcp udp icmp icmpv6" "nf-hipac state -D -p "
check "state rules" "FORWARD: INPUT: OUTPUT: ssh-in: web:" \
	"nf-hipac6 state -A --rule "
check "state tcp flags both ways" "SYN SYN,ACK" \
	"nf-hipac state -A --tcp-flags ACK SY"
check "state restore takes a file" "$tmp/files/rules.v4 $tmp/files/rules.v6" \
	"nf-hipac state restore $tmp/files/rules"
check "restore takes a file" "$tmp/files/rules.v4 $tmp/files/rules.v6" \
	"nf-hipac-restore $tmp/files/rules"
check "restore options" "--noflush" "nf-hipac-restore --nof"
check "save --file takes a file" "$tmp/files/other" \
	"nf-hipac-save --file $tmp/files/o"
check "save options" "--counters" "nf-hipac6-save --cou"
check "sim options" "--sets --shadow --stats" "nf-hipac-sim --s"

[ "$failed" -eq 0 ]
