// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the xtables fallback (lib/xt.c) for IPv6, with the system's
 * libxtables initialised as ip6tables initialises it.
 *
 * The rules are parsed under the name "ip6tables" and compared with what
 * ip6tables-save and ip6tables -L -n print (xt_cases.h): the native parts
 * as ip6tables prints them, the xtables ones through libxtables' IPv6
 * variants (libip6t_REJECT, libip6t_frag, ...), which see ip6tables'
 * struct ip6t_ip6 with the rule's protocol.  Revisions are the newest
 * libxtables has (NFHP_XT_NO_PROBE): the host kernel is not asked.  A
 * process holds one family (nfhp_xt_setup()), so IPv4's cases are
 * test_xt's.
 */
#include "xt.h"
#include "xt_cases.h"

static const struct xt_case cases[] = {
	/* Native first, then xtables, as in IPv4 (test_xt). */
	{ "-A INPUT -p tcp --dport 22 -m state --state NEW -j ACCEPT",
	  "-A INPUT -p tcp -m tcp --dport 22 -m state --state NEW -j ACCEPT",
	  "tcp dpt:22 state NEW", "ACCEPT" },
	{ "-A INPUT -s 2001:db8::/32 -m comment --comment x -p udp --sport 53 -m hl --hl-eq 5",
	  "-A INPUT -s 2001:db8::/32 -p udp -m comment --comment x -m udp --sport 53 -m hl --hl-eq 5",
	  "/* x */ udp spt:53 HL match HL == 5" },
	/* REJECT's IPv6 variant: its own default and types. */
	{ "-A INPUT -j REJECT",
	  "-A INPUT -j REJECT --reject-with icmp6-port-unreachable",
	  "reject-with icmp6-port-unreachable", "REJECT" },
	{ "-A INPUT -p tcp -j REJECT --reject-with tcp-reset", NULL,
	  "reject-with tcp-reset", "REJECT" },
	{ "-A FORWARD -d 2001:db8::1 -j REJECT --reject-with icmp6-adm-prohibited",
	  "-A FORWARD -d 2001:db8::1/128 -j REJECT --reject-with icmp6-adm-prohibited",
	  NULL, "REJECT" },
	{ "-A INPUT -m limit --limit 3/min -j LOG --log-prefix x",
	  NULL, "limit: avg 3/min burst 5 LOG flags 0 level 4 prefix \"x\"",
	  "LOG" },
	/* After an xtables match, icmp6 is libxtables' too. */
	{ "-A INPUT -p ipv6-icmp -m limit --limit 1/s --icmpv6-type 128 -j ACCEPT",
	  "-A INPUT -p ipv6-icmp -m limit --limit 1/sec -m icmp6 --icmpv6-type 128 -j ACCEPT",
	  "limit: avg 1/sec burst 5 ipv6-icmptype 128", "ACCEPT" },
	/* IPv6's own matches. */
	{ "-A INPUT -m frag --fragid 5 --fragmore -j DROP", NULL,
	  "frag id:5 more", "DROP" },
	{ "-A INPUT -m frag --fraglast -j DROP", NULL, "frag  last", "DROP" },
	{ "-A INPUT -m ipv6header --header hop-by-hop --soft -j DROP", NULL,
	  "ipv6header flags:0x80 soft", "DROP" },
	{ "-A INPUT -m rt --rt-type 0 --rt-segsleft 0 -j DROP", NULL,
	  "rt type:0 segsleft:0", "DROP" },
	{ "-A INPUT -m iprange --src-range 2001:db8::1-2001:db8::9 -j DROP",
	  NULL, "source IP range 2001:db8::1-2001:db8::9", "DROP" },
	{ "-A FORWARD -p udp -m multiport --dports 53,123 -m limit --limit 1/s -j MARK --set-mark 1",
	  "-A FORWARD -p udp -m multiport --dports 53,123 -m limit --limit 1/sec -j MARK --set-xmark 0x1/0xffffffff",
	  "multiport dports 53,123 limit: avg 1/sec burst 5 MARK set 0x1",
	  "MARK" },
};

static const struct xt_bad bad[] = {
	/* ttl and icmp are IPv4's: no IPv6 library has them. */
	{ "-A INPUT -m ttl --ttl-eq 3 -j DROP", 2,
	  "Couldn't load match `ttl':No such file or directory\n" },
	{ "-A INPUT -j REJECT --reject-with icmp-port-unreachable", 2,
	  "unknown reject type \"icmp-port-unreachable\"" },
	{ "-A INPUT -m nosuchmatch -j ACCEPT", 2,
	  "Couldn't load match `nosuchmatch':No such file or directory\n" },
	{ "-A INPUT -m limit ! --limit 1/s", 2,
	  "limit: option \"--limit\" cannot be inverted.\n" },
};

int main(void)
{
	struct nfhp_cmdline *cl = calloc(1, sizeof(*cl));
	struct nfhp_cmdline *cl2 = calloc(1, sizeof(*cl2));
	size_t i;

	xt_prog = "ip6tables";
	if (!cl || !cl2 ||
	    nfhp_xt_setup(NFHP_FAMILY_IPV6, NFHP_XT_NO_PROBE)) {
		printf("Bail out! cannot initialise libxtables for IPv6\n");
		return 1;
	}
	check(nfhp_xt_setup(NFHP_FAMILY_IPV4, NFHP_XT_NO_PROBE) < 0,
	      "libxtables set up for IPv6 refuses IPv4");
	nfhp_print_set_family(NFHP_FAMILY_IPV6);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		test_case(&cases[i], cl, cl2);
	test_bad(bad, ARRAY_SIZE(bad), cl);
	nfhp_xt_fini();
	free(cl);
	free(cl2);
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
