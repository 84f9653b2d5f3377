// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the iptables syntax parser (lib/parse.c).
 *
 * Accepted command lines are checked through their canonical save line
 * (whose spellings test_print.c checks against the real iptables) and, for
 * the interesting ones, field by field.  Rejected ones must fail with
 * iptables' exit code and message; the messages were taken from
 * iptables v1.8.9 (nf_tables) on the build machine.  The edge cases follow
 * iptables' extensions/libxt_{tcp,udp,multiport,...}.t.
 */
#include "parse.h"
#include "print.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "tap.h"

static struct nfhp_cmdline *cl;
static char err[512];

/* Parse a command line given as one string (split like a restore line). */
static int parse(const char *line)
{
	char buf[2048], *argv[128];
	int argc;

	snprintf(buf, sizeof(buf), "%s", line);
	argv[0] = "iptables";
	argc = nfhp_split_line(buf, argv + 1, 126);
	if (argc < 0)
		return -1;
	argv[argc + 1] = NULL;
	return nfhp_parse_cmdline(argc + 1, argv, cl, err, sizeof(err));
}

static char *save_line(const char *chain, const struct nfhp_rule_spec *s)
{
	static char out[4096];
	FILE *f = fmemopen(out, sizeof(out), "w");

	nfhp_print_rule_save(f, chain, s, NULL);
	fclose(f);
	out[strcspn(out, "\n")] = 0;
	return out;
}

static const struct nfhp_dim_match *dim(int d)
{
	unsigned int i;

	for (i = 0; i < cl->spec.nmatch; i++)
		if (cl->spec.m[i].dim == d)
			return &cl->spec.m[i];
	return NULL;
}

/* A rule command that must be accepted and print back as expected. */
static const struct {
	const char *in;
	const char *out;
} good[] = {
	{ "-A FORWARD -s 10.11.12.13/8 -j ACCEPT",
	  "-A FORWARD -s 10.0.0.0/8 -j ACCEPT" },
	{ "-A FORWARD -s 10.11.12.13/255.255.0.0 -j ACCEPT",
	  "-A FORWARD -s 10.11.0.0/16 -j ACCEPT" },
	{ "-A FORWARD -d 10.1 -j DROP", "-A FORWARD -d 10.1.0.0/32 -j DROP" },
	{ "-A FORWARD ! -s 1.2.3.4 -j DROP",
	  "-A FORWARD ! -s 1.2.3.4/32 -j DROP" },
	{ "-A FORWARD -s 1.2.3.4/0 -j ACCEPT", "-A FORWARD -j ACCEPT" },
	{ "-A FORWARD ! -s 1.2.3.4/0 -j ACCEPT",
	  "-A FORWARD ! -s 0.0.0.0/0 -j ACCEPT" },
	{ "-A FORWARD -i eth+ -o lo -j ACCEPT",
	  "-A FORWARD -i eth+ -o lo -j ACCEPT" },
	{ "-A FORWARD ! -i eth0 ! -o wlan+",
	  "-A FORWARD ! -i eth0 ! -o wlan+" },
	{ "-A FORWARD -p tcp --dport 22 -j ACCEPT",
	  "-A FORWARD -p tcp -m tcp --dport 22 -j ACCEPT" },
	{ "-A FORWARD -ptcp --dport=22 -jACCEPT",
	  "-A FORWARD -p tcp -m tcp --dport 22 -j ACCEPT" },
	{ "--append FORWARD --protocol tcp --destination-port 22 --jump ACCEPT",
	  "-A FORWARD -p tcp -m tcp --dport 22 -j ACCEPT" },
	{ "--append=FORWARD --proto=TCP --dpor 22 --jum ACCEPT",
	  "-A FORWARD -p tcp -m tcp --dport 22 -j ACCEPT" },
	{ "-A FORWARD -p tcp -m tcp --sport 1 -j ACCEPT",
	  "-A FORWARD -p tcp -m tcp --sport 1 -j ACCEPT" },
	/* bare: still drops short packets and refuses fragments */
	{ "-A FORWARD -p tcp -m tcp -j ACCEPT",
	  "-A FORWARD -p tcp -m tcp -j ACCEPT" },
	{ "-A FORWARD -p udp -m udp -m multiport --sports 5 -j DROP",
	  "-A FORWARD -p udp -m udp -m multiport --sports 5 -j DROP" },
	{ "-A FORWARD -p tcp -m tcp --sport 0:65535 -j ACCEPT",
	  "-A FORWARD -p tcp -m tcp -j ACCEPT" },
	{ "-A FORWARD -p tcp --sport 1024: -j ACCEPT",
	  "-A FORWARD -p tcp -m tcp --sport 1024:65535 -j ACCEPT" },
	{ "-A FORWARD -p tcp --dport :1023 -j ACCEPT",
	  "-A FORWARD -p tcp -m tcp --dport 0:1023 -j ACCEPT" },
	{ "-A FORWARD -p tcp --sport 65535",
	  "-A FORWARD -p tcp -m tcp --sport 65535" },
	{ "-A FORWARD -p tcp --sport 5:5", "-A FORWARD -p tcp -m tcp --sport 5" },
	{ "-A FORWARD -p tcp ! --dport ssh",
	  "-A FORWARD -p tcp -m tcp ! --dport 22" },
	{ "-A FORWARD -p udp --sport ssh --dport domain",
	  "-A FORWARD -p udp -m udp --sport 22 --dport 53" },
	{ "-A FORWARD -p udp -m udp --dport 53 -m udp --sport 1",
	  "-A FORWARD -p udp -m udp --sport 1 --dport 53" },
	{ "-A FORWARD -p tcp --syn", "-A FORWARD -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN" },
	{ "-A FORWARD -p tcp ! --syn",
	  "-A FORWARD -p tcp -m tcp ! --tcp-flags FIN,SYN,RST,ACK SYN" },
	{ "-A FORWARD -p tcp --tcp-flags SYN,ACK SYN",
	  "-A FORWARD -p tcp -m tcp --tcp-flags SYN,ACK SYN" },
	{ "-A FORWARD -p tcp --tcp-flags ALL NONE",
	  "-A FORWARD -p tcp -m tcp --tcp-flags FIN,SYN,RST,PSH,ACK,URG NONE" },
	{ "-A FORWARD -p tcp --tcp-flags syn,ack,fin fin",
	  "-A FORWARD -p tcp -m tcp --tcp-flags FIN,SYN,ACK FIN" },
	{ "-A FORWARD -p tcp -m multiport --dports 22,80:90 -j ACCEPT",
	  "-A FORWARD -p tcp -m multiport --dports 22,80:90 -j ACCEPT" },
	{ "-A FORWARD -p udp -m multiport ! --sports 1,2,3",
	  "-A FORWARD -p udp -m multiport ! --sports 1,2,3" },
	{ "-A FORWARD -p tcp -m multiport --ports 22,https",
	  "-A FORWARD -p tcp -m multiport --ports 22,443" },
	{ "-A FORWARD -m multiport -p tcp --dport 80,81",
	  "-A FORWARD -p tcp -m multiport --dports 80,81" },
	{ "-A FORWARD -p tcp -m multiport --dports 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15",
	  "-A FORWARD -p tcp -m multiport --dports 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15" },
	{ "-A FORWARD -p tcp -m multiport --dports 1:2,3:4,5:6,7:8,9:10,11:12,13:14,15",
	  "-A FORWARD -p tcp -m multiport --dports 1:2,3:4,5:6,7:8,9:10,11:12,13:14,15" },
	{ "-A FORWARD -p tcp --sport 1 -m multiport --dports 2,3",
	  "-A FORWARD -p tcp -m tcp --sport 1 -m multiport --dports 2,3" },
	{ "-A FORWARD -p icmp --icmp-type 8", "-A FORWARD -p icmp -m icmp --icmp-type 8" },
	{ "-A FORWARD -p icmp --icmp-type echo-request",
	  "-A FORWARD -p icmp -m icmp --icmp-type 8" },
	{ "-A FORWARD -p icmp --icmp-type 3/4",
	  "-A FORWARD -p icmp -m icmp --icmp-type 3/4" },
	{ "-A FORWARD -p icmp --icmp-type fragmentation-needed",
	  "-A FORWARD -p icmp -m icmp --icmp-type 3/4" },
	{ "-A FORWARD -p icmp --icmp-type any",
	  "-A FORWARD -p icmp -m icmp --icmp-type any" },
	{ "-A FORWARD -p icmp ! --icmp-type destination-unreachable",
	  "-A FORWARD -p icmp -m icmp ! --icmp-type 3" },
	{ "-A FORWARD -p icmp -m icmp --icmp-type echo-rep",
	  "-A FORWARD -p icmp -m icmp --icmp-type 0" },
	{ "-A FORWARD -m iprange --src-range 10.0.0.1-10.0.0.5",
	  "-A FORWARD -m iprange --src-range 10.0.0.1-10.0.0.5" },
	{ "-A FORWARD -m iprange ! --dst-range 10.0.0.1-10.0.0.5 --src-range 1.1.1.1",
	  "-A FORWARD -m iprange --src-range 1.1.1.1-1.1.1.1 ! --dst-range 10.0.0.1-10.0.0.5" },
	{ "-A FORWARD -m state --state ESTABLISHED,RELATED -j ACCEPT",
	  "-A FORWARD -m state --state RELATED,ESTABLISHED -j ACCEPT" },
	{ "-A FORWARD -m state ! --state INVALID -j DROP",
	  "-A FORWARD -m state ! --state INVALID -j DROP" },
	{ "-A FORWARD -m conntrack --ctstate NEW,UNTRACKED,INVALID,ESTABLISHED,RELATED",
	  "-A FORWARD -m conntrack --ctstate INVALID,NEW,RELATED,ESTABLISHED,UNTRACKED" },
	{ "-A FORWARD -m ttl --ttl-eq 64", "-A FORWARD -m ttl --ttl-eq 64" },
	{ "-A FORWARD -m ttl ! --ttl-eq 64", "-A FORWARD -m ttl ! --ttl-eq 64" },
	{ "-A FORWARD -m ttl --ttl-lt 10", "-A FORWARD -m ttl --ttl-lt 10" },
	{ "-A FORWARD -m ttl --ttl-gt 200", "-A FORWARD -m ttl --ttl-gt 200" },
	{ "-A FORWARD -m length --length 100", "-A FORWARD -m length --length 100" },
	{ "-A FORWARD -m length ! --length 100:200",
	  "-A FORWARD -m length ! --length 100:200" },
	{ "-A FORWARD -m length --length 1000:",
	  "-A FORWARD -m length --length 1000:65535" },
	{ "-A FORWARD -m mark --mark 1", "-A FORWARD -m mark --mark 0x1" },
	{ "-A FORWARD -m mark --mark 5/0xff", "-A FORWARD -m mark --mark 0x5/0xff" },
	{ "-A FORWARD -m mark ! --mark 0x10/0x10",
	  "-A FORWARD -m mark ! --mark 0x10/0x10" },
	{ "-A FORWARD -m comment --comment \"two words\" -j ACCEPT",
	  "-A FORWARD -m comment --comment \"two words\" -j ACCEPT" },
	{ "-A FORWARD -m comment --comment 'it\\'s'",
	  "-A FORWARD -m comment --comment \"it\\'s\"" },
	{ "-A FORWARD -f -j DROP", "-A FORWARD -f -j DROP" },
	/* Netmasks with holes, and the address masked, as iptables. */
	{ "-A FORWARD -s 10.1.2.3/255.0.255.0 -d 1.2.3.4/255.255.0.255 -j ACCEPT",
	  "-A FORWARD -s 10.0.2.0/255.0.255.0 -d 1.2.0.4/255.255.0.255 -j ACCEPT" },
	{ "-A FORWARD ! -s 10.0.0.0/255.0.255.0",
	  "-A FORWARD ! -s 10.0.0.0/255.0.255.0" },
	{ "-A FORWARD -d 10.0.0.0/255.248.0.255",
	  "-A FORWARD -d 10.0.0.0/255.248.0.255" },
	{ "-A FORWARD -s 10.0.0.3/0x18", "-A FORWARD -s 10.0.0.0/24" },
	/* xtables reads each part as strtoul(..., 0) does. */
	{ "-A FORWARD -s 010.0.0.1 -d 0x0a.0.0.2",
	  "-A FORWARD -s 8.0.0.1/32 -d 10.0.0.2/32" },
	{ "-A FORWARD ! -f -j DROP", "-A FORWARD ! -f -j DROP" },
	{ "-A FORWARD -p 47", "-A FORWARD -p gre" },
	{ "-A FORWARD -p all", "-A FORWARD" },
	{ "-A FORWARD -p 0", "-A FORWARD" },
	{ "-A FORWARD ! -p tcp", "-A FORWARD ! -p tcp" },
	{ "-A FORWARD -p sctp", "-A FORWARD -p sctp" },
	{ "-A FORWARD -p tcp -m comment --comment c -s 1.2.3.4 --dport 2 -i eth1 -o eth2 -m state --state NEW -d 5.6.7.8/24 --sport 1 -j DROP",
	  "-A FORWARD -s 1.2.3.4/32 -d 5.6.7.0/24 -i eth1 -o eth2 -p tcp -m comment --comment c -m tcp --sport 1 --dport 2 -m state --state NEW -j DROP" },
	/* The native matches save in the order written (iptables 1.8.9). */
	{ "-A INPUT -m state --state NEW -p tcp --dport 22 -j ACCEPT",
	  "-A INPUT -p tcp -m state --state NEW -m tcp --dport 22 -j ACCEPT" },
	{ "-A INPUT -p tcp --dport 22 -m state --state NEW -j ACCEPT",
	  "-A INPUT -p tcp -m tcp --dport 22 -m state --state NEW -j ACCEPT" },
	{ "-A INPUT -m mark --mark 1 -m comment --comment x -p udp --sport 53 -m ttl --ttl-eq 5",
	  "-A INPUT -p udp -m mark --mark 0x1 -m comment --comment x -m udp --sport 53 -m ttl --ttl-eq 5" },
	{ "-A INPUT -m length --length 10:20 -p tcp -m iprange --src-range 1.1.1.1-1.1.1.9 --sport 5 -m multiport --dports 1,2 -m conntrack --ctstate NEW,ESTABLISHED -m ttl --ttl-lt 9",
	  "-A INPUT -p tcp -m length --length 10:20 -m iprange --src-range 1.1.1.1-1.1.1.9 -m tcp --sport 5 -m multiport --dports 1,2 -m conntrack --ctstate NEW,ESTABLISHED -m ttl --ttl-lt 9" },
	{ "-A INPUT -m length --length 10 -p icmp --icmp-type 8 -m state --state NEW",
	  "-A INPUT -p icmp -m length --length 10 -m icmp --icmp-type 8 -m state --state NEW" },
	{ "-A INPUT -m comment --comment x -m tcp -p tcp --syn",
	  "-A INPUT -p tcp -m comment --comment x -m tcp --tcp-flags FIN,SYN,RST,ACK SYN" },
	{ "-A FORWARD -j foo", "-A FORWARD -j foo" },
	{ "-A FORWARD -g foo", "-A FORWARD -g foo" },
	{ "-A FORWARD -j RETURN", "-A FORWARD -j RETURN" },
	{ "-A FORWARD -p udp -j QUEUE", "-A FORWARD -p udp -j QUEUE" },
	{ "-A INPUT -i lo", "-A INPUT -i lo" },
	{ "-A OUTPUT -o lo", "-A OUTPUT -o lo" },
	{ "-t filter -A FORWARD -j DROP", "-A FORWARD -j DROP" },
	{ "-I FORWARD -j DROP", "-A FORWARD -j DROP" },
	{ "-A FORWARD -w -j DROP", "-A FORWARD -j DROP" },
	/* Set matches: native, after the other native matches. */
	{ "-A INPUT -m set --match-set bl src -j DROP",
	  "-A INPUT -m set --match-set bl src -j DROP" },
	{ "-A INPUT -m set ! --match-set fl src,dst --set-value 2 -j DROP",
	  "-A INPUT -m set ! --match-set fl src,dst --set-value 2 -j DROP" },
	{ "-A INPUT -m set --match-set fl dst,src -j DROP",
	  "-A INPUT -m set --match-set fl dst,src -j DROP" },
	{ "-A INPUT -m set ! --match-set bl dst -j DROP",
	  "-A INPUT -m set ! --match-set bl dst -j DROP" },
	{ "-A INPUT -m set --match-set ! bl dst -j DROP",
	  "-A INPUT -m set ! --match-set bl dst -j DROP" },
	{ "-A INPUT -m set --match-set bl src -p tcp --dport 22 -m comment --comment c",
	  "-A INPUT -p tcp -m tcp --dport 22 -m comment --comment c -m set --match-set bl src" },
	{ "-A INPUT -m set --match-set a src -m set ! --match-set b dst -m set --match-set c src -m set --match-set d dst",
	  "-A INPUT -m set --match-set a src -m set ! --match-set b dst -m set --match-set c src -m set --match-set d dst" },
	{ "-A INPUT -m set --match-set abcdefghijklmnopqrstuvwxyz01234 src",
	  "-A INPUT -m set --match-set abcdefghijklmnopqrstuvwxyz01234 src" },
	{ "-A INPUT -m set --match-set vm src --set-value 7 -j DROP",
	  "-A INPUT -m set --match-set vm src --set-value 7 -j DROP" },
	{ "-A INPUT -m set ! --match-set vm dst --set-value 0x10:20 -j DROP",
	  "-A INPUT -m set ! --match-set vm dst --set-value 16:20 -j DROP" },
	{ "-A INPUT -m set --match-set vm src --set-value 3:3 -m set --match-set bl src",
	  "-A INPUT -m set --match-set vm src --set-value 3 -m set --match-set bl src" },
	{ "-A INPUT -m set --match-set vm src --set-value 0:4294967295",
	  "-A INPUT -m set --match-set vm src --set-value 0:4294967295" },
	/* xt_set's options on the counts, in libxt_set's order. */
	{ "-A INPUT -m set --match-set t src ! --update-counters --packets-gt 5 ! --bytes-eq 100 -j DROP",
	  "-A INPUT -m set --match-set t src ! --update-counters --packets-gt 5 ! --bytes-eq 100 -j DROP" },
	{ "-A INPUT -m set --match-set t src --bytes-lt 7 --update-counters --packets-lt 5",
	  "-A INPUT -m set --match-set t src --packets-lt 5 --bytes-lt 7" },
	{ "-A INPUT -m set --match-set t src --packets-eq 0 ! --update-subcounters --update-subcounters",
	  "-A INPUT -m set --match-set t src --packets-eq 0" },
	{ "-A INPUT -m set ! --match-set t src,dst --set-value 3 ! --packets-eq 0x10 -j DROP",
	  "-A INPUT -m set ! --match-set t src,dst ! --packets-eq 16 --set-value 3 -j DROP" },
	{ "-A INPUT -m set --match-set t src --bytes-gt 18446744073709551615 -m set --match-set u dst ! --update-counters",
	  "-A INPUT -m set --match-set t src --bytes-gt 18446744073709551615 -m set --match-set u dst ! --update-counters" },
	/* keep-state prints after every match, a limit with its fields. */
	{ "-A INPUT -p tcp --dport 22 -m keep-state -j ACCEPT",
	  "-A INPUT -p tcp -m tcp --dport 22 -m keep-state -j ACCEPT" },
	{ "-A INPUT -m keep-state -p tcp --dport 22 -j DROP",
	  "-A INPUT -p tcp -m tcp --dport 22 -m keep-state -j DROP" },
	{ "-A INPUT -m keep-state --state-limit 5 -j ACCEPT",
	  "-A INPUT -m keep-state --state-limit 5 --state-limit-by src-addr -j ACCEPT" },
	{ "-A INPUT -m keep-state --state-limit-by dst-port,src-addr --state-limit 0x10 -j ACCEPT",
	  "-A INPUT -m keep-state --state-limit 16 --state-limit-by src-addr,dst-port -j ACCEPT" },
	{ "-A INPUT -m keep-state --state-limit-by dst-port,dst-addr,src-port,src-addr --state-limit 4294967295 -j DROP",
	  "-A INPUT -m keep-state --state-limit 4294967295 --state-limit-by src-addr,src-port,dst-addr,dst-port -j DROP" },
	{ "-A INPUT -m keep-state --state-limit=3 --state-limit-by=SRC-ADDR,src-addr -j ACCEPT",
	  "-A INPUT -m keep-state --state-limit 3 --state-limit-by src-addr -j ACCEPT" },
	{ "-A INPUT -m keep-state -m set --match-set bl src -m comment --comment c -s 10.0.0.0/8 -j DROP",
	  "-A INPUT -s 10.0.0.0/8 -m comment --comment c -m set --match-set bl src -m keep-state -j DROP" },
	{ "-D INPUT -m keep-state -j ACCEPT",
	  "-A INPUT -m keep-state -j ACCEPT" },
	{ "-A INPUT -j CHECK-STATE", "-A INPUT -j CHECK-STATE" },
	{ "-I INPUT 3 -m comment --comment \"check point\" -j CHECK-STATE",
	  "-A INPUT -m comment --comment \"check point\" -j CHECK-STATE" },
};

/* A command line that must be refused with this code and message. */
static const struct {
	const char *in;
	int code;
	const char *msg;
} bad[] = {
	{ "-A FORWARD --dport 22", 2, "unknown option \"--dport\"" },
	{ "-A FORWARD -W x -j DROP", 2, "wait interval not numeric" },
	{ "-A FORWARD -W 0 -j DROP", 2, "wait interval not numeric" },
	{ "-A FORWARD --wait=1x -j DROP", 2, "wait seconds not numeric" },
	{ "-A FORWARD --numeric=1 -j DROP", 2,
	  "option '--numeric' doesn't allow an argument" },
	{ "-A FORWARD --wait-interval", 2,
	  "option \"--wait-interval\" requires an argument" },
	{ "-A FORWARD -p udp --tcp-flags SYN SYN", 2,
	  "unknown option \"--tcp-flags\"" },
	{ "-A FORWARD -p icmp --dport 22", 2, "unknown option \"--dport\"" },
	{ "-A FORWARD -p tcp --sport 4:3", 2, "invalid portrange (min > max)" },
	/* libxt_udp takes it (test_xt): no native interval for it. */
	{ "-A FORWARD -p udp --dport 60000:29", 2,
	  "nf-hipac: `--dport 60000:29' can never match" },
	{ "-A FORWARD -p tcp --dport 65536", 2,
	  "invalid port/service `65536' specified" },
	{ "-A FORWARD -p tcp --sport -1", 2,
	  "invalid port/service `-1' specified" },
	{ "-A FORWARD -p tcp --dport nosuchservice", 2,
	  "invalid port/service `nosuchservice' specified" },
	{ "-A FORWARD -p tcp -m multiport --dports 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
	  2, "too many ports specified" },
	{ "-A FORWARD -p tcp -m multiport --dports 1:2,3:4,5:6,7:8,9:10,11:12,13:14,15:16",
	  2, "too many ports specified" },
	{ "-A FORWARD -p tcp -m multiport --dports 5:3", 2,
	  "invalid portrange specified" },
	{ "-A FORWARD -p tcp -m multiport --dports 5:5", 2,
	  "invalid portrange specified" },
	{ "-A FORWARD -m multiport --dports 1", 2,
	  "multiport needs `-p tcp', `-p udp', `-p udplite', `-p sctp' or `-p dccp'" },
	{ "-A FORWARD -p icmp -m multiport --dports 1", 2,
	  "multiport only works with TCP, UDP, UDPLITE, SCTP and DCCP" },
	{ "-A FORWARD -p udp -m multiport --sports 1 --dports 2", 2,
	  "multiport: option \"--source-ports\" cannot be used together with \"--destination-ports\"." },
	{ "-A FORWARD -p tcp -m multiport", 2, "multiport: no ports specified" },
	{ "-A FORWARD -s foo.invalid", 2, "host/network `foo.invalid' not found" },
	{ "-A FORWARD -s 10.0.0.0/33", 2, "invalid mask `33' specified" },
	{ "-A FORWARD -s 10.0.0.0/0.0.0.1", 2,
	  "nf-hipac: mask `0.0.0.1' stands for 2147483648 address ranges, more than the 2048 the tree takes" },
	{ "-A FORWARD -d 10.0.0.0/255.240.0.255", 2,
	  "nf-hipac: mask `255.240.0.255' stands for 4096 address ranges, more than the 2048 the tree takes" },
	{ "-A FORWARD -s 10.0.0.0/255.0", 2, "invalid mask `255.0' specified" },
	{ "-A FORWARD -s 10.0.0.08", 2, "host/network `10.0.0.08' not found" },
	{ "-A FORWARD ! -s 1.2.3.4,5.6.7.8", 2,
	  "! not allowed with multiple source or destination IP addresses" },
	{ "-A FORWARD -s 1.2.3.4 ! -d localhost,5.6.7.8", 2,
	  "! not allowed with multiple source or destination IP addresses" },
	{ "-R FORWARD 1 -d 1.2.3.4,5.6.7.8", 2,
	  "Replacement rule does not specify a unique address" },
	{ "-A FORWARD -s 1.2.3.4,", 2, "host/network `' not found" },
	{ "-A FORWARD -s 1.2.3.4,,5.6.7.8", 2, "host/network `' not found" },
	{ "-A FORWARD -m foo", 2,
	  "Couldn't load match `foo':No such file or directory\n" },
	{ "-A FORWARD --foo", 2, "unknown option \"--foo\"" },
	{ "-A FORWARD -y", 2, "unknown option \"-y\"" },
	{ "-A FORWARD -c 1111111111111111111111111111111111111111,2 -j DROP", 2,
	  "-c packet counter not numeric" },
	{ "-A FORWARD -m limit --limit 3/hour", 2,
	  "nf-hipac: match `limit' is not supported yet" },
	{ "-A FORWARD -j LOG", 2, "nf-hipac: target `LOG' is not supported yet" },
	{ "-A FORWARD -j REJECT", 2,
	  "nf-hipac: target `REJECT' is not supported yet" },
	{ "-A FORWARD -p tcp --tcp-option 2", 2,
	  "nf-hipac: option `--tcp-option' is not supported yet" },
	{ "-A FORWARD -m conntrack --ctproto tcp", 2,
	  "nf-hipac: option `--ctproto' is not supported yet" },
	{ "-t nat -A PREROUTING -j ACCEPT", 3,
	  "table `nat' is not available: nf-hipac holds the filter table only" },
	{ "-A FORWARD -p bogus", 2, "unknown protocol \"bogus\" specified" },
	{ "-A FORWARD -p 256", 2, "unknown protocol \"256\" specified" },
	{ "-A FORWARD ! -p all", 2, "rule would never match protocol" },
	{ "-A FORWARD -p tcp --syn --tcp-flags SYN SYN", 2,
	  "Only one of `--syn' or `--tcp-flags'  allowed" },
	{ "-A FORWARD -p tcp --tcp-flags FOO SYN", 2, "Unknown TCP flag `FOO'" },
	{ "-A FORWARD -p tcp --tcp-flags SYN", 2, "--tcp-flags requires two args." },
	{ "-A FORWARD -p tcp --dport 22 --dport 23", 2,
	  "Only one `--destination-port' allowed" },
	{ "-A FORWARD -m state --state FOO", 2, "Bad state \"FOO\"" },
	{ "-A FORWARD -m state --state ''", 2,
	  "\"--state\" requires a list of states with no spaces, e.g. ESTABLISHED,RELATED" },
	{ "-A FORWARD -m conntrack --ctstate BAR", 2, "Bad ctstate \"BAR\"" },
	{ "-A FORWARD -m state", 2, "state: option \"--state\" must be specified" },
	{ "-A FORWARD -m ttl --ttl-eq 300", 2,
	  "ttl: bad value for option \"--ttl-eq\", or out of range (0-255)." },
	{ "-A FORWARD -m ttl ! --ttl-lt 5", 2,
	  "ttl: option \"--ttl-lt\" cannot be inverted." },
	{ "-A FORWARD -m ttl --ttl-eq 5 --ttl-lt 3", 2,
	  "ttl: option \"--ttl-lt\" cannot be used together with \"--ttl-eq\"." },
	{ "-A FORWARD -m ttl", 2,
	  "TTL match: You must specify one of `--ttl-eq', `--ttl-lt', `--ttl-gt" },
	{ "-A FORWARD -m length --length 70000", 2,
	  "length: bad value for option \"--length\", or out of range (0-65535)." },
	{ "-A FORWARD -m mark --mark x", 2,
	  "mark: bad integer value for option \"--mark\", or out of range." },
	{ "-A FORWARD -m comment", 2,
	  "comment: option \"--comment\" must be specified" },
	{ "-A FORWARD -p icmp --icmp-type foo", 2, "Unknown ICMP type `foo'" },
	{ "-A FORWARD -p icmp --icmp-type 3/300", 2, "Unknown ICMP code `3/300'" },
	{ "-A FORWARD -i eth0 -i eth1", 2, "multiple -i flags not allowed" },
	{ "-A FORWARD -f -f", 2, "multiple -f flags not allowed" },
	{ "-A FORWARD -i abcdefghijklmnopq", 2,
	  "interface name `abcdefghijklmnopq' must be shorter than IFNAMSIZ (15)" },
	{ "-A INPUT -o eth0", 2, "Can't use -o with INPUT" },
	{ "-A OUTPUT -i eth0", 2, "Can't use -i with OUTPUT" },
	{ "-A FORWARD -j ACCEPT extra", 2, "Bad argument `extra'" },
	{ "-I FORWARD 0 -j ACCEPT", 2, "Invalid rule number `0'" },
	{ "-A", 2, "option \"-A\" requires an argument" },
	{ "-F FORWARD 1", 2, "Bad argument `1'" },
	{ "-N 'a b'", 2, "Invalid chain name `a b'" },
	{ "-N -foo", 2, "chain name not allowed to start with `-'" },
	{ "-N LOG", 2, "chain name may not clash with target name" },
	{ "-N abcdefghijklmnopqrstuvwxyz0123", 2,
	  "chain name `abcdefghijklmnopqrstuvwxyz0123' too long (must be under 29 chars)" },
	{ "! ! -p tcp -A FORWARD", 2, "multiple consecutive ! not allowed" },
	{ "-A FORWARD ! -j ACCEPT", 2, "cannot have ! before -j" },
	{ "-A FORWARD -j ACCEPT -g foo", 2, "multiple -j flags not allowed" },
	{ "-A FORWARD -s 1.2.3.4 -m iprange --src-range 1.1.1.1-2.2.2.2", 2,
	  "multiple matches on the same dimension are not supported" },
	{ "-A FORWARD -m state --state NEW -m conntrack --ctstate NEW", 2,
	  "multiple matches on the same dimension are not supported" },
	{ "-A FORWARD -D FORWARD 1", 2, "Cannot use -D with -A" },
	{ "-P FORWARD RETURN", 1, "Bad policy name" },
	{ "-P foo ACCEPT", 1, "Bad built-in chain name." },
	{ "-L -s 1.2.3.4", 2, "Illegal option with this command" },
	{ "-A FORWARD ! -p tcp --dport 22", 2, "nf-hipac: match `tcp' needs `-p tcp'" },
	{ "-A FORWARD -g ACCEPT", 2,
	  "nf-hipac: goto 'ACCEPT' is not a chain" },
	{ "-A FORWARD -g QUEUE", 2,
	  "nf-hipac: goto 'QUEUE' is not a chain" },
	{ "-A FORWARD -j abcdefghijklmnopqrstuvwxyz0123", 2,
	  "Invalid target name `abcdefghijklmnopqrstuvwxyz0123' (28 chars max)" },
	{ "-A FORWARD -c 1", 2, "-c requires packet and byte counter" },
	{ "-A FORWARD -c x 2", 2, "-c packet counter not numeric" },
	{ "", 2, "no command specified" },
	{ "-A INPUT -m set -j DROP", 2,
	  "You must specify `--match-set' with proper arguments" },
	{ "-A INPUT -m set -m set --match-set bl src -j DROP", 2,
	  "You must specify `--match-set' with proper arguments" },
	{ "-A INPUT -m set --match-set bl -j DROP", 2,
	  "--match-set requires two args." },
	{ "-A INPUT -m set --match-set bl", 2,
	  "--match-set requires two args." },
	{ "-A INPUT -m set --match-set bl foo", 2,
	  "You must spefify (the comma separated list of) 'src' or 'dst'." },
	{ "-A INPUT -m set --match-set bl src,dst,src", 2,
	  "nf-hipac: --match-set takes one or two directions, src or dst, not `src,dst,src'" },
	{ "-A INPUT -m set --match-set bl src,", 2,
	  "nf-hipac: --match-set takes one or two directions, src or dst, not `src,'" },
	{ "-A INPUT -m set --match-set bl src --match-set bl2 src", 2,
	  "--match-set can be specified only once" },
	{ "-A INPUT -m set --match-set abcdefghijklmnopqrstuvwxyz012345 src", 2,
	  "setname `abcdefghijklmnopqrstuvwxyz012345' too long, max 31 characters." },
	{ "-A INPUT -m set --match-set a src -m set --match-set b src -m set --match-set c src -m set --match-set d src -m set --match-set e src",
	  2, "nf-hipac: at most 4 set matches in a rule" },
	{ "-A INPUT --match-set bl src", 2, "unknown option \"--match-set\"" },
	{ "-A INPUT -m set --set-value 3 --match-set bl src", 2,
	  "nf-hipac: --set-value needs a --match-set before it" },
	{ "-A INPUT -m set --packets-gt 3 --match-set bl src", 2,
	  "nf-hipac: --packets-gt needs a --match-set before it" },
	{ "-A INPUT -m set --match-set bl src --packets-gt 1 --packets-lt 3", 2,
	  "only one of the --packets-[eq|lt|gt] is allowed" },
	{ "-A INPUT -m set --match-set bl src --bytes-eq 1 --bytes-eq 1", 2,
	  "only one of the --bytes-[eq|lt|gt] is allowed" },
	{ "-A INPUT -m set --match-set bl src ! --packets-gt 1", 2,
	  "--packets-gt option cannot be inverted" },
	{ "-A INPUT -m set --match-set bl src ! --bytes-lt 1", 2,
	  "--bytes-lt option cannot be inverted" },
	{ "-A INPUT -m set --match-set bl src --packets-gt 1x", 2,
	  "Cannot parse 1x as a counter value" },
	{ "-A INPUT -m set --match-set bl src --bytes-eq 18446744073709551616", 2,
	  "Cannot parse 18446744073709551616 as a counter value" },
	{ "-A INPUT -m set --match-set bl src --return-nomatch", 2,
	  "nf-hipac: --return-nomatch is not supported" },
	{ "-A INPUT -m set --match-set bl src --set-value 3 --set-value 4", 2,
	  "nf-hipac: --set-value can be specified only once" },
	{ "-A INPUT -m set --match-set bl src ! --set-value 3", 2,
	  "nf-hipac: --set-value cannot be inverted: put ! before --match-set" },
	{ "-A INPUT -m set --match-set bl src --set-value 5:4", 2,
	  "nf-hipac: bad --set-value `5:4': N or N:M, N <= M, up to 4294967295" },
	{ "-A INPUT -m set --match-set bl src --set-value 4294967296", 2,
	  "nf-hipac: bad --set-value `4294967296': N or N:M, N <= M, up to 4294967295" },
	{ "-A INPUT -m set --match-set bl src --set-value x", 2,
	  "nf-hipac: bad --set-value `x': N or N:M, N <= M, up to 4294967295" },
	{ "-A INPUT -m set ! ! --match-set bl src", 2,
	  "multiple consecutive ! not allowed" },
	{ "-D INPUT 1 -m set --match-set bl src", 2,
	  "Illegal option with this command" },
	/* keep-state gives its states the rule's verdict. */
	{ "-A INPUT -m keep-state", 2,
	  "nf-hipac: keep-state needs `-j ACCEPT' or `-j DROP' (the verdict its states give)" },
	{ "-A INPUT -m keep-state -j RETURN", 2,
	  "nf-hipac: keep-state needs `-j ACCEPT' or `-j DROP' (the verdict its states give)" },
	{ "-A INPUT -m keep-state -j QUEUE", 2,
	  "nf-hipac: keep-state needs `-j ACCEPT' or `-j DROP' (the verdict its states give)" },
	{ "-A INPUT -m keep-state -j foo", 2,
	  "nf-hipac: keep-state needs `-j ACCEPT' or `-j DROP' (the verdict its states give)" },
	{ "-A INPUT -m keep-state -g foo", 2,
	  "nf-hipac: keep-state needs `-j ACCEPT' or `-j DROP' (the verdict its states give)" },
	{ "-A INPUT -m keep-state -m keep-state -j ACCEPT", 2,
	  "nf-hipac: keep-state can be specified only once" },
	{ "-A INPUT --state-limit 2 -j ACCEPT", 2,
	  "unknown option \"--state-limit\"" },
	{ "-A INPUT -m keep-state --state-limit 0 -j ACCEPT", 2,
	  "keep-state: bad value for option \"--state-limit\", or out of range (1-4294967295)." },
	{ "-A INPUT -m keep-state --state-limit 4294967296 -j ACCEPT", 2,
	  "keep-state: bad value for option \"--state-limit\", or out of range (1-4294967295)." },
	{ "-A INPUT -m keep-state --state-limit 5x -j ACCEPT", 2,
	  "keep-state: bad value for option \"--state-limit\", or out of range (1-4294967295)." },
	{ "-A INPUT -m keep-state --state-limit 2 --state-limit 3 -j ACCEPT", 2,
	  "keep-state: option \"--state-limit\" can only be used once." },
	{ "-A INPUT -m keep-state ! --state-limit 2 -j ACCEPT", 2,
	  "keep-state: option \"--state-limit\" cannot be inverted." },
	{ "-A INPUT -m keep-state --state-limit-by src-addr -j ACCEPT", 2,
	  "keep-state: option \"--state-limit-by\" also requires \"--state-limit\"." },
	{ "-A INPUT -m keep-state --state-limit 2 --state-limit-by src -j ACCEPT", 2,
	  "keep-state: Bad value for \"--state-limit-by\" option: \"src\"" },
	{ "-A INPUT -m keep-state --state-limit 2 --state-limit-by src-addr, -j ACCEPT", 2,
	  "keep-state: Bad value for \"--state-limit-by\" option: \"src-addr,\"" },
	{ "-A INPUT -m keep-state --state-limit 2 --state-limit-by '' -j ACCEPT", 2,
	  "keep-state: Bad value for \"--state-limit-by\" option: \"\"" },
	{ "-A INPUT -m keep-state --state-limit 2 --state-limit-by src-addr,src-addr,src-addr,src-addr,src-addr,src-addr,src-addr,src-addr -j ACCEPT", 2,
	  "keep-state: Bad value for \"--state-limit-by\" option: \"src-addr,src-addr,src-addr,src-addr,src-addr,src-addr,src-addr,src-addr\"" },
	{ "-A INPUT -m keep-state --state-limit 2 --state-limit-by dst-port --state-limit-by dst-addr -j ACCEPT", 2,
	  "keep-state: option \"--state-limit-by\" can only be used once." },
	{ "-A INPUT -m keep-state --state -j ACCEPT", 2,
	  "unknown option \"--state\"" },
	{ "-L INPUT -m keep-state", 2, "Illegal option with this command" },
	/* CHECK-STATE is a check point for every packet that reaches it. */
	{ "-A INPUT -m keep-state -j CHECK-STATE", 2,
	  "CHECK-STATE takes no match: it checks every packet that reaches it" },
	{ "-A INPUT -s 10.0.0.1 -j CHECK-STATE", 2,
	  "CHECK-STATE takes no match: it checks every packet that reaches it" },
	{ "-A INPUT -p all -j CHECK-STATE", 2,
	  "CHECK-STATE takes no match: it checks every packet that reaches it" },
	{ "-A INPUT -j CHECK-STATE -i eth0", 2,
	  "CHECK-STATE takes no match: it checks every packet that reaches it" },
	{ "-A INPUT -f -j CHECK-STATE", 2,
	  "CHECK-STATE takes no match: it checks every packet that reaches it" },
	{ "-A INPUT -p tcp --dport 22 -j CHECK-STATE", 2,
	  "CHECK-STATE takes no match: it checks every packet that reaches it" },
	{ "-A INPUT -m mark --mark 1 -j CHECK-STATE", 2,
	  "CHECK-STATE takes no match: it checks every packet that reaches it" },
	{ "-A INPUT -m set --match-set bl src -j CHECK-STATE", 2,
	  "CHECK-STATE takes no match: it checks every packet that reaches it" },
	{ "-A INPUT -g CHECK-STATE", 2,
	  "nf-hipac: goto 'CHECK-STATE' is not a chain" },
	{ "-A INPUT -j CHECK-STATE -j ACCEPT", 2,
	  "multiple -j flags not allowed" },
	{ "-D INPUT 1 -j CHECK-STATE", 2, "Illegal option with this command" },
	{ "-N CHECK-STATE", 2, "chain name may not clash with target name" },
};

static void test_good(void)
{
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ret = parse(good[i].in);
		if (ret) {
			check(false, "accept: %s (got %d: %s)", good[i].in, ret,
			      err);
			continue;
		}
		check(!strcmp(save_line(cl->chain, &cl->spec), good[i].out),
		      "accept: %s -> %s%s%s", good[i].in, good[i].out,
		      strcmp(save_line(cl->chain, &cl->spec), good[i].out) ?
		      " GOT " : "",
		      strcmp(save_line(cl->chain, &cl->spec), good[i].out) ?
		      save_line(cl->chain, &cl->spec) : "");
	}
}

static void test_bad(void)
{
	size_t i;
	char *nl;
	bool ok;
	int ret;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ret = parse(bad[i].in);
		ok = ret == bad[i].code && !strcmp(err, bad[i].msg);
		while ((nl = strchr(err, '\n')))
			*nl = '|';
		if (ok)
			check(ok, "reject: %s -> exit %d", bad[i].in,
			      bad[i].code);
		else
			check(ok, "reject: %s -> exit %d GOT %d %s", bad[i].in,
			      bad[i].code, ret, err);
	}
}

static void test_fields(void)
{
	const struct nfhp_dim_match *m;

	check(!parse("-A INPUT -m set ! --match-set bl dst -m set --match-set x src -j DROP") &&
	      cl->spec.nsetm == 2 && !cl->spec.nmatch &&
	      !strcmp(cl->spec.setm[0].name, "bl") &&
	      cl->spec.setm[0].dir == NFHP_SETM_DST && cl->spec.setm[0].invert &&
	      !strcmp(cl->spec.setm[1].name, "x") &&
	      cl->spec.setm[1].dir == NFHP_SETM_SRC &&
	      !cl->spec.setm[1].invert && !cl->spec.norder,
	      "-m set: two set matches in order, no native match, no order");
	check(!parse("-A INPUT -j DROP") && !cl->spec.nsetm,
	      "a rule after one with set matches has none");
	check(!parse("-A INPUT -m set --match-set a src -m set --match-set b src --set-value 2:9") &&
	      cl->spec.nsetm == 2 && !cl->spec.setm[0].has_value &&
	      cl->spec.setm[1].has_value && cl->spec.setm[1].value_min == 2 &&
	      cl->spec.setm[1].value_max == 9,
	      "--set-value goes to the last --match-set only");

	check(!parse("-A INPUT -p udp -m keep-state --state-limit 7 --state-limit-by dst-addr,src-port -j DROP") &&
	      cl->spec.state.mode == NFHP_RSTATE_KEEP &&
	      cl->spec.state.limit == 7 &&
	      cl->spec.state.limit_by == (NFHP_STATE_LIMIT_DST_ADDR |
					  NFHP_STATE_LIMIT_SRC_PORT) &&
	      cl->spec.action == NFHP_ACT_DROP && cl->spec.nmatch == 1 &&
	      !cl->spec.norder, "keep-state: mode, limit and fields");
	check(!parse("-A INPUT -m keep-state --state-limit 1 -j ACCEPT") &&
	      cl->spec.state.limit == 1 &&
	      cl->spec.state.limit_by == NFHP_STATE_LIMIT_SRC_ADDR,
	      "keep-state: a limit counts by src-addr unless told");
	check(!parse("-A INPUT -m keep-state -j ACCEPT") &&
	      cl->spec.state.mode == NFHP_RSTATE_KEEP &&
	      !cl->spec.state.limit && !cl->spec.state.limit_by,
	      "keep-state: no limit, no fields");
	check(!parse("-A INPUT -j CHECK-STATE") &&
	      cl->spec.state.mode == NFHP_RSTATE_CHECK &&
	      cl->spec.action == NFHP_ACT_NONE && !cl->spec.nmatch &&
	      !cl->spec.target[0], "CHECK-STATE: mode CHECK, no action");
	check(!parse("-A INPUT -j DROP") && !cl->spec.state.mode &&
	      !cl->spec.state.limit && !cl->spec.state.limit_by,
	      "a rule after a keep-state rule has no state part");

	check(!parse("-A FORWARD -w 5 -W 20000 -j DROP") && cl->wait &&
	      cl->wait_seconds == 5 && cl->wait_interval_us == 20000,
	      "-w 5 -W 20000: wait 5 s, try every 20 ms");
	check(!parse("-A FORWARD --wait -j DROP") && cl->wait &&
	      !cl->wait_seconds, "--wait alone waits for ever");
	check(!parse("-A FORWARD --wait=3 -j DROP") && cl->wait &&
	      cl->wait_seconds == 3, "--wait=3");
	check(!parse("-A FORWARD -j DROP") && !cl->wait, "no -w: no wait");

	/* Names and lists, as xtables_ipparse_multiple() reads them. */
	check(!parse("-A FORWARD -s localhost -j DROP") &&
	      nfhp_cmdline_rules(cl) == 1 && (m = dim(NFHP_DIM_SRC)) &&
	      m->form == NFHP_FORM_PREFIX && m->nranges == 32 &&
	      m->ranges[0].lo == 0x7f000001, "-s localhost is 127.0.0.1");
	check(!parse("-A FORWARD -s '1.1.1.1, 2.2.2.2' -d 3.3.3.3,4.4.4.9/24") &&
	      nfhp_cmdline_rules(cl) == 4, "2 sources, 2 destinations: 4 rules");
	nfhp_cmdline_select(cl, 1);
	check(cl->spec.nmatch == 2 && (m = dim(NFHP_DIM_SRC)) &&
	      m->ranges[0].lo == 0x01010101 && (m = dim(NFHP_DIM_DST)) &&
	      m->nranges == 24 && m->ranges[0].lo == 0x04040400,
	      "rule 2 is 1.1.1.1 to 4.4.4.0/24");
	nfhp_cmdline_select(cl, 2);
	check(cl->spec.nmatch == 2 && (m = dim(NFHP_DIM_SRC)) &&
	      m->ranges[0].lo == 0x02020202 && (m = dim(NFHP_DIM_DST)) &&
	      m->nranges == 32 && m->ranges[0].lo == 0x03030303,
	      "rule 3 is 2.2.2.2 to 3.3.3.3");
	check(!parse("-A FORWARD -p tcp -s 7.7.7.7/0,8.8.8.8 --dport 1") &&
	      nfhp_cmdline_rules(cl) == 2, "x/0 in a list: 2 rules");
	nfhp_cmdline_select(cl, 0);
	check(!dim(NFHP_DIM_SRC) && dim(NFHP_DIM_DPORT) && dim(NFHP_DIM_PROTO),
	      "x/0 in a list is no match, as iptables");
	nfhp_cmdline_select(cl, 1);
	check((m = dim(NFHP_DIM_SRC)) && m->ranges[0].lo == 0x08080808 &&
	      dim(NFHP_DIM_DPORT) && cl->spec.nmatch == 3,
	      "then 8.8.8.8 with the other matches");
	check(!parse("-A FORWARD -s 10.11.12.13/8") &&
	      (m = dim(NFHP_DIM_SRC)) && m->form == NFHP_FORM_PREFIX &&
	      m->nranges == 8 && m->ranges[0].lo == 0x0A000000 && !m->invert,
	      "-s 10.11.12.13/8 is prefix 10.0.0.0 length 8");
	check(!parse("-A FORWARD ! -s 1.2.3.4") &&
	      (m = dim(NFHP_DIM_SRC)) && m->invert && m->nranges == 32 &&
	      m->ranges[0].lo == 0x01020304, "! -s sets invert");
	check(!parse("-A FORWARD -p tcp --sport 1024:") &&
	      (m = dim(NFHP_DIM_SPORT)) && m->form == NFHP_FORM_RANGES &&
	      m->nranges == 1 && m->ranges[0].lo == 1024 &&
	      m->ranges[0].hi == 65535 && (m = dim(NFHP_DIM_PROTO)) &&
	      m->ranges[0].lo == 6 && m->ranges[0].hi == 6,
	      "--sport 1024: is 1024..65535, proto 6");
	check(!parse("-A FORWARD -p tcp --syn") &&
	      (m = dim(NFHP_DIM_TCPFLAGS)) && m->form == NFHP_FORM_MASK &&
	      m->syntax == NFHP_SYN_SYN && m->ranges[0].lo == 0x02 &&
	      m->ranges[0].hi == 0x17, "--syn is value 0x02 mask 0x17");
	check(!parse("-A FORWARD -p tcp --tcp-flags SYN,ACK SYN") &&
	      (m = dim(NFHP_DIM_TCPFLAGS)) && m->syntax == NFHP_SYN_TCPFLAGS &&
	      m->ranges[0].lo == 0x02 && m->ranges[0].hi == 0x12,
	      "--tcp-flags SYN,ACK SYN is value 0x02 mask 0x12");
	check(!parse("-A FORWARD -i eth+") && (m = dim(NFHP_DIM_IIF)) &&
	      m->form == NFHP_FORM_IFNAME && !strcmp(m->ifname, "eth+"),
	      "-i eth+ keeps the +");
	check(!parse("-A FORWARD -p tcp -m multiport --dports 22,80:90") &&
	      (m = dim(NFHP_DIM_DPORT)) && m->syntax == NFHP_SYN_MULTIPORT &&
	      m->nranges == 2 && m->ranges[0].lo == 22 &&
	      m->ranges[0].hi == 22 && m->ranges[1].lo == 80 &&
	      m->ranges[1].hi == 90, "multiport 22,80:90 is two ranges");
	check(!parse("-A FORWARD -p tcp -m multiport --ports 22") &&
	      (m = dim(NFHP_DIM_DPORT)) &&
	      m->syntax == NFHP_SYN_MULTIPORT_BOTH && !dim(NFHP_DIM_SPORT),
	      "multiport --ports lands on dport with syntax MULTIPORT_BOTH");
	check(!parse("-A FORWARD -p icmp --icmp-type echo-request") &&
	      (m = dim(NFHP_DIM_ICMP)) && m->ranges[0].lo == 0x800 &&
	      m->ranges[0].hi == 0x8FF, "icmp type 8 is 0x800..0x8ff");
	check(!parse("-A FORWARD -p icmp --icmp-type 3/4") &&
	      (m = dim(NFHP_DIM_ICMP)) && m->ranges[0].lo == 0x304 &&
	      m->ranges[0].hi == 0x304, "icmp 3/4 is 0x304");
	check(!parse("-A FORWARD -p icmp --icmp-type any") &&
	      (m = dim(NFHP_DIM_ICMP)) && m->ranges[0].lo == 0 &&
	      m->ranges[0].hi == 0xFFFF, "icmp any is 0..0xffff");
	check(!parse("-A FORWARD -m state --state NEW,ESTABLISHED,RELATED") &&
	      (m = dim(NFHP_DIM_STATE)) && m->nranges == 1 &&
	      m->ranges[0].lo == NFHP_CT_ESTABLISHED &&
	      m->ranges[0].hi == NFHP_CT_NEW, "states merge into intervals");
	check(!parse("-A FORWARD -m ttl --ttl-lt 10") &&
	      (m = dim(NFHP_DIM_TTL)) && m->ranges[0].lo == 0 &&
	      m->ranges[0].hi == 9 && m->syntax == NFHP_SYN_TTL_LT,
	      "--ttl-lt 10 is 0..9");
	check(!parse("-A FORWARD -m ttl --ttl-gt 200") &&
	      (m = dim(NFHP_DIM_TTL)) && m->ranges[0].lo == 201 &&
	      m->ranges[0].hi == 255, "--ttl-gt 200 is 201..255");
	check(!parse("-A FORWARD -m mark --mark 5/0xff") &&
	      (m = dim(NFHP_DIM_MARK)) && m->form == NFHP_FORM_MASK &&
	      m->ranges[0].lo == 5 && m->ranges[0].hi == 0xff,
	      "--mark 5/0xff is value 5 mask 0xff");
	check(!parse("-A FORWARD -f") && (m = dim(NFHP_DIM_FRAG)) &&
	      m->ranges[0].lo == 1 && m->ranges[0].hi == 1, "-f is frag 1");
	check(!parse("-A FORWARD -p tcp -s 1.2.3.4 -d 5.6.7.8 -i a -o b --dport 1 -f -m state --state NEW -m ttl --ttl-eq 1 -m length --length 2 -m mark --mark 3 --tcp-flags SYN SYN -m comment --comment x") &&
	      cl->spec.nmatch == 12 && ({
		bool sorted = true;
		unsigned int i;

		for (i = 1; i < cl->spec.nmatch; i++)
			sorted &= cl->spec.m[i - 1].dim < cl->spec.m[i].dim;
		sorted; }) && !strcmp(cl->spec.comment, "x"),
	      "matches come sorted by dimension");
	check(!parse("-A FORWARD -g foo") && cl->spec.action == NFHP_ACT_GOTO &&
	      !strcmp(cl->spec.target, "foo"), "-g foo is a goto");
	check(!parse("-A FORWARD") && cl->spec.action == NFHP_ACT_NONE &&
	      cl->has_rule && !cl->spec.nmatch, "no target, no match");
	check(!parse("-I FORWARD 3 -j DROP") && cl->cmd == NFHP_CLI_INSERT &&
	      cl->pos == 3 && !strcmp(cl->chain, "FORWARD"), "-I chain 3");
	check(!parse("-I FORWARD -j DROP") && cl->cmd == NFHP_CLI_INSERT &&
	      cl->pos == 0, "-I without a number");
	check(!parse("-D FORWARD 2") && cl->cmd == NFHP_CLI_DELETE &&
	      cl->pos == 2 && !cl->has_rule, "-D chain 2");
	check(!parse("-D FORWARD -p tcp -j ACCEPT") && cl->cmd == NFHP_CLI_DELETE &&
	      cl->pos == 0 && cl->has_rule && dim(NFHP_DIM_PROTO),
	      "-D chain rulespec");
	check(!parse("-R FORWARD 1 -j DROP") && cl->cmd == NFHP_CLI_REPLACE &&
	      cl->pos == 1 && cl->spec.action == NFHP_ACT_DROP, "-R chain 1");
	check(!parse("-C FORWARD -j DROP") && cl->cmd == NFHP_CLI_CHECK,
	      "-C");
	check(!parse("-nvL") && cl->cmd == NFHP_CLI_LIST && cl->numeric &&
	      cl->verbose && !cl->chain[0], "joined -nvL");
	check(!parse("-L FORWARD 1 -n -x --line-numbers") &&
	      cl->cmd == NFHP_CLI_LIST && cl->pos == 1 &&
	      !strcmp(cl->chain, "FORWARD") && cl->numeric && cl->exact &&
	      cl->line_numbers, "-L chain num -n -x --line-numbers");
	check(!parse("--list-rules FORWARD") && cl->cmd == NFHP_CLI_LIST_RULES &&
	      !strcmp(cl->chain, "FORWARD"), "--list-rules chain");
	check(!parse("-S") && cl->cmd == NFHP_CLI_LIST_RULES && !cl->chain[0],
	      "-S");
	check(!parse("-F") && cl->cmd == NFHP_CLI_FLUSH && !cl->chain[0], "-F");
	check(!parse("-X foo") && cl->cmd == NFHP_CLI_DEL_CHAIN &&
	      !strcmp(cl->chain, "foo"), "-X foo");
	check(!parse("-Z FORWARD 2") && cl->cmd == NFHP_CLI_ZERO &&
	      cl->pos == 2, "-Z chain num");
	check(!parse("-N foo") && cl->cmd == NFHP_CLI_NEW_CHAIN &&
	      !strcmp(cl->chain, "foo"), "-N foo");
	check(!parse("-E foo bar") && cl->cmd == NFHP_CLI_RENAME_CHAIN &&
	      !strcmp(cl->chain, "foo") && !strcmp(cl->new_name, "bar"),
	      "-E foo bar");
	check(!parse("-P FORWARD DROP") && cl->cmd == NFHP_CLI_POLICY &&
	      cl->policy == NFHP_ACT_DROP, "-P FORWARD DROP");
	check(!parse("-h") && cl->cmd == NFHP_CLI_HELP, "-h");
	check(!parse("--version") && cl->cmd == NFHP_CLI_VERSION, "--version");
	check(!parse("-c 10 20 -A FORWARD -j ACCEPT") && cl->has_counters &&
	      cl->counters.packets == 10 && cl->counters.bytes == 20,
	      "-c PKTS BYTES");
	check(!parse("-A FORWARD -c 7,8") && cl->has_counters &&
	      cl->counters.packets == 7 && cl->counters.bytes == 8,
	      "-c PKTS,BYTES");
}

static void test_split(void)
{
	char buf[] = "-A  x \"a b\" 'c \\' d' e\\f \"\"";
	char *argv[8];
	int n = nfhp_split_line(buf, argv, 8);

	check(n == 6 && !strcmp(argv[0], "-A") && !strcmp(argv[1], "x") &&
	      !strcmp(argv[2], "a b") && !strcmp(argv[3], "c ' d") &&
	      !strcmp(argv[4], "e\\f") && !strcmp(argv[5], ""),
	      "split_line: quotes and escapes");
	{
		char b2[] = "\"open";

		check(nfhp_split_line(b2, argv, 8) < 0,
		      "split_line: unterminated quote fails");
	}
}

struct restore_log {
	char text[4096];
	size_t len;
	int stop_at;
	int calls;
};

static void logf_(struct restore_log *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	l->len += vsnprintf(l->text + l->len, sizeof(l->text) - l->len, fmt,
			    ap);
	va_end(ap);
}

static int r_table(void *ctx, const char *name)
{
	logf_(ctx, "T %s;", name);
	return 0;
}

static int r_chain(void *ctx, const char *name, u8 policy,
		   const struct nfhp_counter *c)
{
	logf_(ctx, "C %s %u %llu:%llu;", name, policy,
	      c ? (unsigned long long)c->packets : 99ULL,
	      c ? (unsigned long long)c->bytes : 99ULL);
	return 0;
}

static int r_cmd(void *ctx, struct nfhp_cmdline *c)
{
	struct restore_log *l = ctx;

	logf_(ctx, "R %d %s %d %llu;", c->cmd, c->chain, c->has_counters,
	      (unsigned long long)c->counters.packets);
	return ++l->calls == l->stop_at ? 42 : 0;
}

static int r_commit(void *ctx)
{
	logf_(ctx, "COMMIT;");
	return 0;
}

static int restore_family(const char *text, u8 family, struct restore_log *l)
{
	static const struct nfhp_restore_ops ops = {
		r_table, r_chain, r_cmd, r_commit,
	};
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	ret = nfhp_parse_save_stream(f, family, &ops, l, err, sizeof(err));
	fclose(f);
	return ret;
}

static int restore(const char *text, struct restore_log *l)
{
	return restore_family(text, NFHP_FAMILY_IPV4, l);
}

static void test_restore(void)
{
	struct restore_log l = { 0 };
	int ret;

	ret = restore("# comment\n\n*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [3:4]\n:foo - [0:0]\n:bar -\n[5:6] -A FORWARD -j foo\n-A foo -m comment --comment \"x y\" -j ACCEPT\nCOMMIT\n", &l);
	check(!ret && !strcmp(l.text, "T filter;C INPUT 1 0:0;C FORWARD 2 3:4;C foo 0 0:0;C bar 0 99:99;R 1 FORWARD 1 5;R 1 foo 0 0;COMMIT;"),
	      "restore: callbacks in order (%s)", l.text);
	memset(&l, 0, sizeof(l));
	ret = restore("*filter\n-A FORWARD -p tcp --dport 99999\nCOMMIT\n", &l);
	check(ret == 2 && !strcmp(err, "line 2: invalid port/service `99999' specified"),
	      "restore: error names the line (%s)", err);
	memset(&l, 0, sizeof(l));
	ret = restore("*filter\n-A FORWARD\n", &l);
	check(ret == 1 && strstr(err, "COMMIT expected"),
	      "restore: missing COMMIT (%s)", err);
	memset(&l, 0, sizeof(l));
	ret = restore("*nat\nCOMMIT\n", &l);
	check(ret == 1 && strstr(err, "table `nat' is not supported"),
	      "restore: other tables refused (%s)", err);
	memset(&l, 0, sizeof(l));
	l.stop_at = 2;
	ret = restore("*filter\n-A FORWARD\n-A FORWARD\n-A FORWARD\nCOMMIT\n", &l);
	check(ret == 42 && l.calls == 2, "restore: a callback's error stops");
	memset(&l, 0, sizeof(l));
	ret = restore("-A FORWARD\n", &l);
	check(ret != 0, "restore: rule before *filter refused");
	memset(&l, 0, sizeof(l));
	ret = restore("*filter\n:FORWARD REJECT [0:0]\nCOMMIT\n", &l);
	check(ret != 0, "restore: bad policy refused");

	/* keep-state and CHECK-STATE lines, as nf-hipac-save writes them. */
	memset(&l, 0, sizeof(l));
	ret = restore("*filter\n-A INPUT -j CHECK-STATE\n-A INPUT -p tcp -m tcp --dport 22 -m keep-state --state-limit 2 --state-limit-by src-addr -j ACCEPT\n-A INPUT -m keep-state -j foo\nCOMMIT\n", &l);
	check(ret == 2 && l.calls == 2 &&
	      !strcmp(err, "line 4: nf-hipac: keep-state needs `-j ACCEPT' or `-j DROP' (the verdict its states give)"),
	      "restore: keep-state and CHECK-STATE lines, then a bad one (%s)",
	      err);

	/* Each family skips the other's lines, as iptables-restore does. */
	memset(&l, 0, sizeof(l));
	ret = restore_family("*filter\n-A INPUT -s 2001:db8::/32 -j DROP\n-4 -A INPUT -s 10.0.0.1 -j DROP\n-A INPUT -6 -d ::1 -j DROP\nCOMMIT\n",
			     NFHP_FAMILY_IPV6, &l);
	check(!ret && l.calls == 2, "IPv6 restore: two rules, the -4 one skipped (%d: %s)",
	      l.calls, err);
	memset(&l, 0, sizeof(l));
	ret = restore("*filter\n-A INPUT -6 -s 2001:db8::/32 -j DROP\n-A INPUT -4 -s 10.0.0.1 -j DROP\nCOMMIT\n", &l);
	check(!ret && l.calls == 1, "IPv4 restore: the -6 line skipped (%d: %s)",
	      l.calls, err);
	memset(&l, 0, sizeof(l));
	ret = restore_family("*filter\n-A INPUT -s 10.0.0.1 -j DROP\nCOMMIT\n",
			     NFHP_FAMILY_IPV6, &l);
	check(ret == 2 && !strcmp(err, "line 2: host/network `10.0.0.1' not found"),
	      "IPv6 restore: an IPv4 address refused (%s)", err);
}

/*
 * The native matches of a rule save in the order they were written, as
 * iptables-save prints them: rules of shuffled match modules save to the
 * expected line, and that line parses back into the same spec and saves
 * the same again.
 */
static void test_order(void)
{
	static const char *const frags[] = {
		" -m state --state NEW",
		" -m multiport --sports 1,2",
		" -m iprange --dst-range 1.1.1.1-1.1.1.2",
		" -m ttl --ttl-gt 3",
		" -m length --length 10:20",
		" -m mark --mark 0x5",
		" -m comment --comment c1",
		" -m tcp --dport 22",	/* last: written "--dport 22" too */
	};
	enum { NFRAG = ARRAY_SIZE(frags), NRULES = 64 };
	char in[1024], want[1024], first[1024];
	struct nfhp_rule_spec spec;
	unsigned int seed = 12345, idx[NFRAG];
	unsigned int r, i, j, n, t, good = 0, same = 0, ordered = 0;
	bool has_mp;

	for (r = 0; r < NRULES; r++) {
		for (i = 0; i < NFRAG; i++)
			idx[i] = i;
		for (i = NFRAG - 1; i > 0; i--) {
			seed = seed * 1103515245 + 12345;
			j = (seed >> 16) % (i + 1);
			t = idx[i];
			idx[i] = idx[j];
			idx[j] = t;
		}
		seed = seed * 1103515245 + 12345;
		n = 2 + (seed >> 16) % (NFRAG - 1);
		has_mp = false;
		for (i = 0; i < n; i++)
			has_mp |= idx[i] == 1;
		snprintf(in, sizeof(in), "-A INPUT -p tcp");
		snprintf(want, sizeof(want), "-A INPUT -p tcp");
		for (i = 0; i < n; i++) {
			/*
			 * The implicit tcp match, unless multiport's --dports
			 * would take "--dport" as its abbreviation.
			 */
			if (idx[i] == NFRAG - 1 && !has_mp && (seed >> 20) & 1)
				strcat(in, " --dport 22");
			else
				strcat(in, frags[idx[i]]);
			strcat(want, frags[idx[i]]);
		}
		strcat(in, " -j ACCEPT");
		strcat(want, " -j ACCEPT");
		if (parse(in)) {
			check(false, "order: %s (%s)", in, err);
			continue;
		}
		ordered += cl->spec.norder > 0;
		snprintf(first, sizeof(first), "%s",
			 save_line(cl->chain, &cl->spec));
		if (strcmp(first, want)) {
			check(false, "order: %s -> %s GOT %s", in, want, first);
			continue;
		}
		good++;
		spec = cl->spec;
		if (parse(first)) {
			check(false, "order: saved %s (%s)", first, err);
			continue;
		}
		if (cl->spec.norder != spec.norder ||
		    memcmp(cl->spec.order, spec.order, spec.norder) ||
		    strcmp(save_line(cl->chain, &cl->spec), first)) {
			check(false, "order: %s saves back as %s", first,
			      save_line(cl->chain, &cl->spec));
			continue;
		}
		same++;
	}
	check(good == NRULES, "order: %u of %u shuffled rules save as iptables does",
	      good, NRULES);
	check(same == NRULES, "order: %u of %u saved lines parse and save the same",
	      same, NRULES);
	check(ordered > NRULES / 2 && ordered < NRULES,
	      "order: %u of %u rules carry an order, the others are canonical",
	      ordered, NRULES);

	/* The canonical order is left out, any other is recorded. */
	check(!parse("-A INPUT -p tcp --dport 22 -m state --state NEW") &&
	      cl->spec.norder == 0, "order: canonical order not recorded");
	check(!parse("-A INPUT -m state --state NEW -p tcp --dport 22") &&
	      cl->spec.norder == 2 && cl->spec.order[0] == NFHP_MOD_STATE &&
	      cl->spec.order[1] == NFHP_MOD_TCP,
	      "order: state, implicit tcp recorded");
	check(!parse("-A INPUT -m mark --mark 1 -m comment --comment x -p udp --sport 53 -m ttl --ttl-eq 5") &&
	      cl->spec.norder == 4 && cl->spec.order[0] == NFHP_MOD_MARK &&
	      cl->spec.order[1] == NFHP_MOD_COMMENT &&
	      cl->spec.order[2] == NFHP_MOD_UDP &&
	      cl->spec.order[3] == NFHP_MOD_TTL,
	      "order: mark, comment, udp, ttl recorded");
	check(!parse("-A INPUT -m comment --comment x -m tcp -p tcp") &&
	      cl->spec.norder == 2 && cl->spec.order[0] == NFHP_MOD_COMMENT &&
	      cl->spec.order[1] == NFHP_MOD_TCP &&
	      !strcmp(save_line(cl->chain, &cl->spec),
		      "-A INPUT -p tcp -m comment --comment x -m tcp"),
	      "order: bare -m tcp recorded and saved after the comment");
}

/*
 * A host name in an IPv6 rule: its IPv6 addresses as the resolver gives
 * them (localhost has none where /etc/hosts lacks ::1, as here and
 * there), or ip6tables' message.
 */
static void test_ipv6_name(void)
{
	struct addrinfo hints = {
		.ai_family = AF_INET6, .ai_socktype = SOCK_RAW,
	};
	struct addrinfo *res;
	char want[128], a[INET6_ADDRSTRLEN];
	int ret;

	ret = parse("-6 -A INPUT -s localhost -j DROP");
	if (getaddrinfo("localhost", NULL, &hints, &res) || !res) {
		check(ret == NFHP_EXIT_PARAM &&
		      !strcmp(err, "host/network `localhost' not found"),
		      "IPv6: localhost without an IPv6 address is refused");
		return;
	}
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)res->ai_addr)->sin6_addr,
		  a, sizeof(a));
	freeaddrinfo(res);
	nfhp_cmdline_select(cl, 0);
	snprintf(want, sizeof(want), "-A INPUT -s %s/128 -j DROP", a);
	check(!ret && !strcmp(save_line(cl->chain, &cl->spec), want),
	      "IPv6: -s localhost is %s", want);
}

/*
 * IPv6 rules (nf-hipac -6, nf-hipac6): addresses of 128 bits, printed as
 * ip6tables-save prints them; what IPv6 cannot take is refused as
 * ip6tables refuses it, or by name.
 */
static void test_ipv6(void)
{
	static const struct {
		const char *in, *out;
	} good6[] = {
		{ "-6 -A INPUT -s 2001:db8::/32 -d ::1 -p tcp --dport 22 -j DROP",
		  "-A INPUT -s 2001:db8::/32 -d ::1/128 -p tcp -m tcp --dport 22 -j DROP" },
		{ "-A FORWARD ! -s fe80::/10 -p ipv6-icmp -j ACCEPT --ipv6",
		  "-A FORWARD ! -s fe80::/10 -p ipv6-icmp -j ACCEPT" },
		{ "-6 -A INPUT -s ::/0 -d 2001:db8:1:2:3:4:5:6/127 -j DROP",
		  "-A INPUT -d 2001:db8:1:2:3:4:5:6/127 -j DROP" },
		{ "-6 -A INPUT -s 8000::/1 -j DROP",
		  "-A INPUT -s 8000::/1 -j DROP" },
		{ "-6 -A INPUT -p ipv6-icmp --icmpv6-type neighbour-solicitation -j ACCEPT",
		  "-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 135 -j ACCEPT" },
		{ "-6 -A INPUT -p icmpv6 -m icmp6 ! --icmpv6-type 1/3 -j DROP",
		  "-A INPUT -p ipv6-icmp -m icmp6 ! --icmpv6-type 1/3 -j DROP" },
		{ "-6 -A INPUT -p ipv6-icmp --icmpv6-type no-route -j DROP",
		  "-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 1/0 -j DROP" },
		{ "-6 -A INPUT -m hl --hl-eq 255 -j ACCEPT",
		  "-A INPUT -m hl --hl-eq 255 -j ACCEPT" },
		{ "-6 -A INPUT -m hl ! --hl-eq 1 -j DROP",
		  "-A INPUT -m hl ! --hl-eq 1 -j DROP" },
		{ "-6 -A INPUT -m hl --hl-lt 2 -j DROP",
		  "-A INPUT -m hl --hl-lt 2 -j DROP" },
		{ "-6 -A INPUT -s 2001:db8::/ffff:ffff:ffff:: -j DROP",
		  "-A INPUT -s 2001:db8::/48 -j DROP" },
		{ "-6 -A INPUT -s 2001:db8::1/64 -j DROP",
		  "-A INPUT -s 2001:db8::/64 -j DROP" },
		{ "-6 -A INPUT -s 2001:db8::/32 -m keep-state --state-limit 9 --state-limit-by src-addr,dst-port -j ACCEPT",
		  "-A INPUT -s 2001:db8::/32 -m keep-state --state-limit 9 --state-limit-by src-addr,dst-port -j ACCEPT" },
		{ "-6 -A INPUT -j CHECK-STATE", "-A INPUT -j CHECK-STATE" },
	};
	static const struct {
		const char *in, *msg;
	} bad6[] = {
		{ "-6 -A INPUT -s 10.0.0.1 -j DROP",
		  "host/network `10.0.0.1' not found" },
		{ "-6 -A INPUT -s 2001:db8::/129 -j DROP",
		  "invalid mask `129' specified" },
		{ "-6 -A INPUT -s 2001:db8::/ffff::ffff -j DROP",
		  "nf-hipac: IPv6 mask `ffff::ffff' is not a prefix" },
		{ "-6 -A INPUT -f -j DROP", "unknown option \"-f\"" },
		/* Without libxtables (test_xt6 has it), as for IPv4. */
		{ "-6 -A INPUT -j REJECT",
		  "nf-hipac: target `REJECT' is not supported yet" },
		/* ttl is IPv4's: ip6tables cannot load it. */
		{ "-6 -A INPUT -m ttl --ttl-eq 3 -j DROP",
		  "Couldn't load match `ttl':No such file or directory\n" },
		{ "-6 -A INPUT -p icmp --icmp-type 8 -j DROP",
		  "unknown option \"--icmp-type\"" },
		{ "-6 -A INPUT -p tcp -m icmp6 --icmpv6-type 1 -j DROP",
		  "nf-hipac: match `icmp6' needs `-p ipv6-icmp'" },
		{ "-6 -A INPUT -p ipv6-icmp --icmpv6-type bogus -j DROP",
		  "Unknown ICMPv6 type `bogus'" },
		{ "-6 -A INPUT -m hl --ttl-eq 3 -j DROP",
		  "unknown option \"--ttl-eq\"" },
		{ "-A INPUT -p icmp --icmpv6-type 8 -j DROP",
		  "unknown option \"--icmpv6-type\"" },
		{ "-6 -A INPUT -d ::1 -j CHECK-STATE",
		  "CHECK-STATE takes no match: it checks every packet that reaches it" },
	};
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(good6); i++) {
		ret = parse(good6[i].in);
		check(!ret && cl->family == NFHP_FAMILY_IPV6,
		      "IPv6 accepted: %s (%d: %s)", good6[i].in, ret, err);
		nfhp_print_set_family(cl->family);
		check(!ret && !strcmp(save_line(cl->chain, &cl->spec),
				      good6[i].out),
		      "IPv6: %s -> %s GOT %s", good6[i].in, good6[i].out,
		      save_line(cl->chain, &cl->spec));
		nfhp_print_set_family(NFHP_FAMILY_IPV4);
	}
	for (i = 0; i < ARRAY_SIZE(bad6); i++) {
		ret = parse(bad6[i].in);
		check(ret == NFHP_EXIT_PARAM && !strcmp(err, bad6[i].msg),
		      "IPv6 refused: %s -> %s GOT %d %s", bad6[i].in,
		      bad6[i].msg, ret, err);
	}
	/* Lists: one rule per -s and -d pair, in ip6tables' order. */
	ret = parse("-6 -A FORWARD -s 2001:db8::1,2001:db8:1::/48 -d fd00::/ffff:: -p tcp -j DROP");
	check(!ret && nfhp_cmdline_rules(cl) == 2, "IPv6: 2 sources, 1 destination: 2 rules");
	nfhp_print_set_family(NFHP_FAMILY_IPV6);
	nfhp_cmdline_select(cl, 0);
	check(!strcmp(save_line(cl->chain, &cl->spec),
		      "-A FORWARD -s 2001:db8::1/128 -d fd00::/16 -p tcp -j DROP"),
	      "IPv6 rule 1: %s", save_line(cl->chain, &cl->spec));
	nfhp_cmdline_select(cl, 1);
	check(!strcmp(save_line(cl->chain, &cl->spec),
		      "-A FORWARD -s 2001:db8:1::/48 -d fd00::/16 -p tcp -j DROP"),
	      "IPv6 rule 2: %s", save_line(cl->chain, &cl->spec));
	ret = parse("-6 -A FORWARD -s ::/0,2001:db8::/32 -j DROP");
	nfhp_cmdline_select(cl, 0);
	check(!ret && nfhp_cmdline_rules(cl) == 2 &&
	      !strcmp(save_line(cl->chain, &cl->spec), "-A FORWARD -j DROP"),
	      "IPv6: ::/0 in a list is no match");
	test_ipv6_name();
	nfhp_print_set_family(NFHP_FAMILY_IPV4);
	ret = parse("-A INPUT -s 10.0.0.1 -j DROP -6 -4");
	check(!ret && cl->family == NFHP_FAMILY_IPV4, "the last of -6 -4 wins");
}

int main(void)
{
	cl = malloc(sizeof(*cl));
	if (!cl)
		return 1;
	test_good();
	test_bad();
	test_fields();
	test_split();
	test_restore();
	test_order();
	test_ipv6();
	free(cl);
	printf("%d tests, %d passed, %d failed\n", tests, tests - failures,
	       failures);
	return failures ? 1 : 0;
}
