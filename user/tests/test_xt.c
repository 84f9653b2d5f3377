// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the xtables fallback (lib/xt.c) with the system's libxtables.
 *
 * Each rule is parsed as the CLI parses it, printed as iptables-save and
 * iptables -L -n print it and compared with the expected text; the saved
 * line must parse back into the same bytes and print the same again
 * (xt_cases.h, which test_xt6 shares for IPv6).
 * The expected lines follow iptables 1.8.9: a few are the well-known
 * canonical forms iptables-save prints (REJECT's default reject-with,
 * MARK as --set-xmark, recent's and connlimit's defaults), the others were
 * checked against the extensions' save functions.  Revisions are the
 * newest libxtables has (NFHP_XT_NO_PROBE): the host kernel is not asked.
 */
#include "xt.h"
#include "xt_cases.h"

#include <libmnl/libmnl.h>

/* From <xtables.h>, which wants the system's kernel headers, not the shim. */
struct xtables_pprot {
	const char *name;
	uint8_t num;
};
extern const struct xtables_pprot xtables_chain_protos[];

static const struct xt_case cases[] = {
	/*
	 * The native matches save and list in the order written, then the
	 * xtables ones; a native match after an xtables one is an xtables
	 * match itself (iptables-legacy 1.8.9 printed these).
	 */
	{ "-A INPUT -m state --state NEW -p tcp --dport 22 -j ACCEPT",
	  "-A INPUT -p tcp -m state --state NEW -m tcp --dport 22 -j ACCEPT",
	  "state NEW tcp dpt:22", "ACCEPT" },
	{ "-A INPUT -p tcp --dport 22 -m state --state NEW -j ACCEPT",
	  "-A INPUT -p tcp -m tcp --dport 22 -m state --state NEW -j ACCEPT",
	  "tcp dpt:22 state NEW", "ACCEPT" },
	{ "-A INPUT -m mark --mark 1 -m comment --comment x -p udp --sport 53 -m ttl --ttl-eq 5",
	  "-A INPUT -p udp -m mark --mark 0x1 -m comment --comment x -m udp --sport 53 -m ttl --ttl-eq 5",
	  "mark match 0x1 /* x */ udp spt:53 TTL match TTL == 5" },
	{ "-A INPUT -m state --state NEW -m limit --limit 3/min -p tcp --dport 22",
	  "-A INPUT -p tcp -m state --state NEW -m limit --limit 3/min -m tcp --dport 22",
	  "state NEW limit: avg 3/min burst 5 tcp dpt:22" },
	{ "-A FORWARD -p tcp -m comment --comment c -s 1.2.3.4 --dport 2 -i eth1 -o eth2 -m state --state NEW -d 5.6.7.8/24 --sport 1 -j DROP",
	  "-A FORWARD -s 1.2.3.4/32 -d 5.6.7.0/24 -i eth1 -o eth2 -p tcp -m comment --comment c -m tcp --sport 1 --dport 2 -m state --state NEW -j DROP",
	  NULL, "DROP" },
	{ "-A INPUT -m length --length 10 -p icmp --icmp-type 8 -m state --state NEW -m limit --limit 1/s -j LOG",
	  "-A INPUT -p icmp -m length --length 10 -m icmp --icmp-type 8 -m state --state NEW -m limit --limit 1/sec -j LOG",
	  "length 10 icmptype 8 state NEW limit: avg 1/sec burst 5 LOG flags 0 level 4", "LOG" },
	/* The well-known canonical forms of iptables-save. */
	{ "-A INPUT -j REJECT",
	  "-A INPUT -j REJECT --reject-with icmp-port-unreachable",
	  "reject-with icmp-port-unreachable", "REJECT" },
	{ "-A FORWARD -p tcp -m limit --limit 3/hour -j LOG --log-prefix \"x \" --log-level 6",
	  NULL, "limit: avg 3/hour burst 5 LOG flags 0 level 6 prefix \"x \"",
	  "LOG" },
	{ "-A INPUT -m limit --limit 3/hour -j ACCEPT",
	  NULL, "limit: avg 3/hour burst 5", "ACCEPT" },
	{ "-A INPUT -m limit --limit=3/hour --limit-burst 5 -j LOG --log-pre x",
	  "-A INPUT -m limit --limit 3/hour -j LOG --log-prefix x",
	  "limit: avg 3/hour burst 5 LOG flags 0 level 4 prefix \"x\"", "LOG" },
	{ "-A INPUT -j LOG", NULL, "LOG flags 0 level 4", "LOG" },
	/* QUEUE is no extension: iptables' standard verdict NF_QUEUE. */
	{ "-A INPUT -p tcp -j QUEUE", NULL, "", "QUEUE" },
	{ "-A FORWARD -m mac --mac-source 00:11:22:33:44:55 -j ACCEPT",
	  NULL, "MAC 00:11:22:33:44:55", "ACCEPT" },
	{ "-A INPUT -m pkttype --pkt-type broadcast -j DROP", NULL,
	  "PKTTYPE = broadcast", "DROP" },
	{ "-A INPUT -m addrtype --dst-type LOCAL -j ACCEPT", NULL,
	  "ADDRTYPE match dst-type LOCAL", NULL },
	{ "-A INPUT -m recent --name foo --set",
	  "-A INPUT -m recent --set --name foo --mask 255.255.255.255 --rsource",
	  "recent: SET name: foo side: source mask: 255.255.255.255", "",
	  true },
	{ "-A INPUT -p tcp -m connlimit --connlimit-above 10 -j REJECT --reject-with tcp-reset",
	  "-A INPUT -p tcp -m connlimit --connlimit-above 10 --connlimit-mask 32 --connlimit-saddr -j REJECT --reject-with tcp-reset",
	  "#conn src/32 > 10 reject-with tcp-reset", "REJECT", true },
	{ "-A FORWARD -j MARK --set-mark 1",
	  "-A FORWARD -j MARK --set-xmark 0x1/0xffffffff",
	  "MARK set 0x1", "MARK" },
	{ "-A FORWARD -j CONNMARK --save-mark",
	  "-A FORWARD -j CONNMARK --save-mark --nfmask 0xffffffff --ctmask 0xffffffff",
	  "CONNMARK save", "CONNMARK" },
	{ "-A INPUT -j NFLOG --nflog-group 5", NULL, "nflog-group 5",
	  "NFLOG" },
	/* The forms libxtables 1.8.9's save functions print. */
	{ "-A INPUT -m string --algo bm --string foo -j DROP",
	  "-A INPUT -m string --string \"foo\" --algo bm -j DROP",
	  "STRING match  \"foo\" ALGO name bm", "DROP" },
	{ "-A INPUT -p tcp -m tcp --dport 22 -m comment --comment ssh -m hashlimit --hashlimit-upto 10/sec --hashlimit-burst 20 --hashlimit-mode srcip --hashlimit-name ssh -j ACCEPT",
	  NULL, "tcp dpt:22 /* ssh */ limit: up to 10/sec burst 20 mode srcip",
	  "ACCEPT" },
	{ "-A INPUT -m time --timestart 09:00 --timestop 17:00 --weekdays Mon,Tue -j ACCEPT",
	  "-A INPUT -m time --timestart 09:00:00 --timestop 17:00:00 --weekdays Mon,Tue --datestop 2038-01-19T03:14:07 -j ACCEPT",
	  "TIME from 09:00:00 to 17:00:00 on Mon,Tue UTC", NULL },
	{ "-A FORWARD -m physdev --physdev-in eth0 --physdev-is-bridged -j ACCEPT",
	  NULL, "PHYSDEV match --physdev-in eth0 --physdev-is-bridged", NULL },
	{ "-A INPUT ! -p udp -m statistic --mode nth --every 3 --packet 1 -j DROP",
	  NULL, "statistic mode nth every 3 packet 1", NULL },
	/* iptables' load_proto(): sctp has no native match. */
	{ "-A INPUT -p sctp --dport 5000 -j ACCEPT",
	  "-A INPUT -p sctp -m sctp --dport 5000 -j ACCEPT",
	  "sctp dpt:5000", NULL },
	/*
	 * Of two --mark given in full, the match loaded last takes it; mark
	 * comes after connmark, an xtables match, so it is one too.
	 */
	{ "-A INPUT -m state --state NEW -m connmark ! --mark 0x5/0xff -m mark --mark 0x3 -j ACCEPT",
	  NULL, "state NEW connmark match ! 0x5/0xff mark match 0x3", NULL },
	{ "-A INPUT -m mark --mark 0x3 -m connmark --mark 0x5 -j ACCEPT",
	  NULL, "mark match 0x3 connmark match  0x5", NULL },
	/* A second instance of a match is a clone with its own options. */
	{ "-A INPUT -m recent --name a --rcheck --seconds 60 -m recent --name b --set -j DROP",
	  "-A INPUT -m recent --rcheck --seconds 60 --name a --mask 255.255.255.255 --rsource -m recent --set --name b --mask 255.255.255.255 --rsource -j DROP",
	  "recent: CHECK seconds: 60 name: a side: source mask: 255.255.255.255 recent: SET name: b side: source mask: 255.255.255.255",
	  NULL, true },
	/* Target options before the protocol; tcp loaded after owner. */
	{ "-A OUTPUT -o eth0 -m owner --uid-owner 0 -j TCPMSS --set-mss 1400 -p tcp --tcp-flags SYN,RST SYN",
	  "-A OUTPUT -o eth0 -p tcp -m owner --uid-owner 0 -m tcp --tcp-flags SYN,RST SYN -j TCPMSS --set-mss 1400",
	  "owner UID match 0 tcp flags:0x06/0x02 TCPMSS set 1400", "TCPMSS" },
	/*
	 * The matches after the first xtables match are xtables matches
	 * too, in iptables' order, the implicit tcp of --dport included.
	 */
	{ "-A INPUT -p tcp -m limit --limit 3/min -m tcp --dport 22 -j LOG",
	  NULL, "limit: avg 3/min burst 5 tcp dpt:22 LOG flags 0 level 4",
	  "LOG" },
	{ "-A INPUT -p tcp -m limit --limit 3/min --dport 22 -j LOG",
	  "-A INPUT -p tcp -m limit --limit 3/min -m tcp --dport 22 -j LOG",
	  NULL, NULL },
	{ "-A INPUT -p tcp --dport 22 -m limit --limit 3/min -j ACCEPT",
	  "-A INPUT -p tcp -m tcp --dport 22 -m limit --limit 3/min -j ACCEPT",
	  "tcp dpt:22 limit: avg 3/min burst 5", NULL },
	/*
	 * A tcp or udp match after multiport drops short packets only
	 * among those multiport let through: an xtables match, in order.
	 */
	{ "-A FORWARD -p tcp -m multiport --dports 80,443 --syn -j ACCEPT",
	  "-A FORWARD -p tcp -m multiport --dports 80,443 -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j ACCEPT",
	  "multiport dports 80,443 tcp flags:0x17/0x02", "ACCEPT" },
	{ "-A FORWARD -p udp -m multiport --sports 53,67 -m udp --dport 1:2 -j DROP",
	  NULL, "multiport sports 53,67 udp dpts:1:2", "DROP" },
	{ "-A FORWARD -p tcp --syn -m multiport --dports 80,443 -j ACCEPT",
	  "-A FORWARD -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -m multiport --dports 80,443 -j ACCEPT",
	  "tcp flags:0x17/0x02 multiport dports 80,443", "ACCEPT" },
	{ "-A FORWARD -p udp -m string --string x --algo bm -m udp --dport 1000:30000 -j ACCEPT",
	  "-A FORWARD -p udp -m string --string \"x\" --algo bm -m udp --dport 1000:30000 -j ACCEPT",
	  "STRING match  \"x\" ALGO name bm udp dpts:1000:30000", NULL },
	{ "-A INPUT -p icmp -m limit --limit 1/sec -m icmp --icmp-type 8 -m state --state NEW -m ttl --ttl-eq 64 -m length --length 10:100 -m mark --mark 0x2 -m comment --comment \"a b\" -j ACCEPT",
	  NULL, "limit: avg 1/sec burst 5 icmptype 8 state NEW TTL match TTL == 64 length 10:100 mark match 0x2 /* a b */",
	  NULL },
	{ "-A INPUT -m comment --comment x -m limit --limit 1/sec -m comment --comment y -j ACCEPT",
	  NULL, "/* x */ limit: avg 1/sec burst 5 /* y */", NULL },
	{ "-A INPUT -p tcp -m limit --limit 1/sec -m multiport --dports 1,2:3 -m iprange --src-range 10.0.0.1-10.0.0.5 -m conntrack --ctstate NEW -j DROP",
	  NULL, NULL, NULL },
	/* What the tree cannot take goes to libxtables, not refused. */
	{ "-A FORWARD -m mark --mark 0x1/0x1 -j DROP", NULL,
	  "mark match 0x1/0x1", NULL },
	{ "-A FORWARD -m ttl --ttl-gt 5 -m ttl --ttl-lt 10 -j DROP", NULL,
	  "TTL match TTL > 5 TTL match TTL < 10", NULL },
	{ "-A FORWARD -m state --state NEW -m conntrack --ctstate NEW -j DROP",
	  NULL, "state NEW ctstate NEW", NULL },
	{ "-A FORWARD -m conntrack --ctstate NEW -m state --state NEW -j DROP",
	  NULL, "ctstate NEW state NEW", NULL },
	{ "-A FORWARD -p tcp -m tcp --dport 80 -m multiport --dports 1,2 -j DROP",
	  NULL, "tcp dpt:80 multiport dports 1,2", NULL },
	{ "-A FORWARD -p tcp -m multiport --dports 1,2 -m tcp --dport 80 -j DROP",
	  NULL, "multiport dports 1,2 tcp dpt:80", NULL },
	{ "-A FORWARD -p tcp -m tcp --sport 1 -m multiport --ports 2,3 -j DROP",
	  NULL, NULL, NULL },
	{ "-A FORWARD -s 10.1.0.0/16 -m iprange --src-range 10.1.0.1-10.1.0.9 -j DROP",
	  NULL, "source IP range 10.1.0.1-10.1.0.9", NULL },
	{ "-A FORWARD -m iprange --src-range 10.1.0.1-10.1.0.9 -s 10.1.0.0/16 -m ttl --ttl-eq 3 -j DROP",
	  "-A FORWARD -s 10.1.0.0/16 -m iprange --src-range 10.1.0.1-10.1.0.9 -m ttl --ttl-eq 3 -j DROP",
	  NULL, NULL },
	{ "-A FORWARD -m length --length 10:100 -m length ! --length 50 -j DROP",
	  NULL, NULL, NULL },
	{ "-A FORWARD -m ttl --ttl-lt 0 -j DROP", NULL, NULL, NULL },
	{ "-A FORWARD -m ttl --ttl-gt 255 -j DROP", NULL, NULL, NULL },
	{ "-A FORWARD -m iprange --src-range 10.1.0.9-10.1.0.1 -j DROP", NULL,
	  NULL, NULL },
	{ "-A FORWARD -m conntrack --ctstate SNAT -j DROP", NULL, NULL, NULL },
	/* libxt_udp takes a reversed range (libxt_tcp does not, see bad[]). */
	{ "-A FORWARD -p udp --dport 60000:29 -j DROP",
	  "-A FORWARD -p udp -m udp --dport 60000:29 -j DROP",
	  "udp dpts:60000:29", "DROP" },
	{ "-A FORWARD -p udp -m udp ! --sport 60000:29 --dport 53 -j DROP",
	  NULL, "udp spts:!60000:29 dpt:53", "DROP" },
	{ "-A FORWARD -m conntrack --ctproto tcp -j DROP",
	  "-A FORWARD -m conntrack --ctproto 6 -j DROP", NULL, NULL },
	{ "-A FORWARD -m conntrack --ctstate NEW --ctproto tcp -j DROP",
	  "-A FORWARD -m conntrack --ctstate NEW --ctproto 6 -j DROP", NULL,
	  NULL },
	{ "-A INPUT -m conntrack --ctstatus ASSURED", NULL, NULL, NULL },
	{ "-A FORWARD -p tcp -m tcp --dport 22 --tcp-option 2 -j DROP", NULL,
	  "tcp dpt:22 option=2", NULL },
	{ "-A INPUT -p tcp --syn -m tcp --dport 22 -j ACCEPT",
	  "-A INPUT -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -m tcp --dport 22 -j ACCEPT",
	  NULL, NULL },
	/* "--set" in full is recent's, not an abbreviated --set-counters. */
	{ "-A INPUT -m recent --set -j ACCEPT",
	  "-A INPUT -m recent --set --name DEFAULT --mask 255.255.255.255 --rsource -j ACCEPT",
	  NULL, NULL, true },
	/* keep-state stays native, after the xtables matches too. */
	{ "-A INPUT -m keep-state --state-limit 4 -p tcp -m limit --limit 3/min --dport 22 -j ACCEPT",
	  "-A INPUT -p tcp -m limit --limit 3/min -m tcp --dport 22 -m keep-state --state-limit 4 --state-limit-by src-addr -j ACCEPT",
	  "limit: avg 3/min burst 5 tcp dpt:22 keep-state limit 4 by src-addr",
	  "ACCEPT" },
	/* CHECK-STATE is no extension and no chain (wider than its column). */
	{ "-A INPUT -j CHECK-STATE", NULL, NULL, "CHECK-STATE" },
};

static const struct xt_bad bad[] = {
	{ "-A INPUT -m nosuchmatch -j ACCEPT", 2,
	  "Couldn't load match `nosuchmatch':No such file or directory\n" },
	{ "-A INPUT -m limit --bogus 1", 2, "unknown option \"--bogus\"" },
	{ "-A INPUT -m limit --limit foo", 2, "bad rate \"foo\"'" },
	{ "-A INPUT -m limit ! --limit 1/s", 2,
	  "limit: option \"--limit\" cannot be inverted.\n" },
	{ "-A INPUT -m recent --set --rcheck", 2,
	  "recent: option \"--set\" cannot be used together with \"--rcheck\".\n" },
	{ "-A INPUT -m hashlimit --hashlimit-upto 1/s", 2,
	  "hashlimit: option \"--hashlimit-name\" must be specified\n" },
	{ "-A INPUT -j LOG --log-level 6 --log-level 7", 2,
	  "LOG: option \"--log-level\" can only be used once.\n" },
	{ "-A INPUT -j REJECT --reject-with foo", 2,
	  "unknown reject type \"foo\"" },
	{ "-A INPUT -j LOG --limit 1/s", 2, "unknown option \"--limit\"" },
	{ "-A INPUT -p tcp --dport 60000:29", 2,
	  "invalid portrange (min > max)" },
	{ "-L INPUT -m limit", 2, "Illegal option with this command" },
	{ "-A INPUT -m limit --limit 1/s -j CHECK-STATE", 2,
	  "CHECK-STATE takes no match: it checks every packet that reaches it" },
	{ "-A INPUT -m keep-state -j REJECT", 2,
	  "nf-hipac: keep-state needs `-j ACCEPT' or `-j DROP' (the verdict its states give)" },
};

/* The whole -L lines, with and without -n, of iptables 1.8.9. */
static void test_list_lines(struct nfhp_cmdline *cl)
{
	char *s = NULL, err[512];
	size_t len = 0;
	FILE *f;

	parse_line("-A INPUT -j REJECT", cl, err, sizeof(err));
	f = open_memstream(&s, &len);
	nfhp_print_list_rule(f, 1, &cl->spec, NULL, NFHP_PRINT_NUMERIC);
	nfhp_print_list_rule(f, 1, &cl->spec, NULL, 0);
	fclose(f);
	check(!strcmp(s,
		      "REJECT     0    --  0.0.0.0/0            0.0.0.0/0            reject-with icmp-port-unreachable\n"
		      "REJECT     all  --  anywhere             anywhere             reject-with icmp-port-unreachable\n"),
	      "-L -n and -L lines of REJECT");
	free(s);
}

/* The attribute after @skip others in @spec->ext, if of @type. */
static const struct nlattr *ext_attr(const struct nfhp_rule_spec *spec,
				     unsigned int skip, int type)
{
	const struct nlattr *attr;

	mnl_attr_for_each_payload((const void *)spec->ext, spec->ext_len) {
		if (skip--)
			continue;
		if (mnl_attr_get_type(attr) != type)
			return NULL;
		return attr;
	}
	return NULL;
}

static const struct nlattr *xte(const struct nlattr *nest, int type)
{
	const struct nlattr *attr;

	mnl_attr_for_each_nested(attr, nest)
		if (mnl_attr_get_type(attr) == type)
			return attr;
	return NULL;
}

/* The bytes of NFHPA_RULE_XT: struct xt_rateinfo and xt_log_info. */
static void test_bytes(struct nfhp_cmdline *cl, struct nfhp_cmdline *cl2)
{
	const struct nlattr *m, *t, *a;
	u32 rate[2] = { 0, 0 };
	u8 log[32] = { 0 };
	char err[512];

	parse_line("-A FORWARD -p tcp -m limit --limit 3/hour -j LOG --log-prefix \"x \" --log-level 6",
		   cl, err, sizeof(err));
	check(cl->spec.action == NFHP_ACT_XT && !cl->spec.target[0],
	      "xtables target: action NFHP_ACT_XT");
	m = ext_attr(&cl->spec, 0, NFHPA_XT_MATCH);
	t = ext_attr(&cl->spec, 1, NFHPA_XT_TARGET);
	check(m && t && (m->nla_type & NLA_F_NESTED) &&
	      (t->nla_type & NLA_F_NESTED) && !ext_attr(&cl->spec, 2, 0),
	      "ext: one nested match, then one nested target");
	if (!m || !t)
		return;
	a = xte(m, NFHPA_XTE_NAME);
	check(a && !strcmp(mnl_attr_get_str(a), "limit"), "ext: name limit");
	a = xte(m, NFHPA_XTE_REVISION);
	check(a && mnl_attr_get_u8(a) == 0, "ext: limit revision 0");
	a = xte(m, NFHPA_XTE_DATA);
	/* spec->ext is not 4-byte aligned: copy before reading */
	if (a && mnl_attr_get_payload_len(a) >= sizeof(rate))
		memcpy(rate, mnl_attr_get_payload(a), sizeof(rate));
	/* avg = XT_LIMIT_SCALE * 3600 / 3, burst 5; XT_ALIGN()ed size */
	check(a && mnl_attr_get_payload_len(a) == 40 &&
	      rate[0] == 12000000 && rate[1] == 5,
	      "ext: struct xt_rateinfo of 3/hour");
	a = xte(t, NFHPA_XTE_NAME);
	check(a && !strcmp(mnl_attr_get_str(a), "LOG"), "ext: name LOG");
	a = xte(t, NFHPA_XTE_DATA);
	if (a && mnl_attr_get_payload_len(a) == sizeof(log))
		memcpy(log, mnl_attr_get_payload(a), sizeof(log));
	check(a && mnl_attr_get_payload_len(a) == 32 && log[0] == 6 &&
	      !strcmp((const char *)log + 2, "x "),
	      "ext: struct xt_log_info of level 6 prefix \"x \"");

	/* Deterministic: the same rule again, after others, same bytes. */
	parse_line("-A INPUT -m limit --limit 5/sec -j LOG --log-level 1", cl2,
		   err, sizeof(err));
	parse_line("-A FORWARD -p tcp -m limit --limit 3/hour -j LOG --log-prefix \"x \" --log-level 6",
		   cl2, err, sizeof(err));
	check(cl2->spec.ext_len == cl->spec.ext_len &&
	      !memcmp(cl2->spec.ext, cl->spec.ext, cl->spec.ext_len),
	      "ext: the same rule gives the same bytes");
	parse_line("-A FORWARD -p tcp -m limit --limit 4/hour -j LOG --log-prefix \"x \" --log-level 6",
		   cl2, err, sizeof(err));
	check(cl2->spec.ext_len == cl->spec.ext_len &&
	      memcmp(cl2->spec.ext, cl->spec.ext, cl->spec.ext_len),
	      "ext: another rate gives other bytes");

	/* A name no extension has is a chain. */
	parse_line("-A INPUT -j mychain", cl, err, sizeof(err));
	check(cl->spec.action == NFHP_ACT_JUMP &&
	      !strcmp(cl->spec.target, "mychain") && !cl->spec.ext_len,
	      "-j mychain: a jump, no extensions");
	parse_line("-A INPUT -g LOG", cl, err, sizeof(err));
	check(cl->spec.action == NFHP_ACT_GOTO && !cl->spec.ext_len,
	      "-g LOG: a goto, as in iptables");
}

/**
 * struct xt_layout - where the matches of a rule went
 * @in: the command line after "iptables"
 * @layout: the native dimensions in spec order, then "|" and the
 *	xtables matches in order
 */
struct xt_layout {
	const char *in;
	const char *layout;
};

static const struct xt_layout layouts[] = {
	{ "-A INPUT -p tcp -m limit --limit 3/min -m tcp --dport 22 -j LOG",
	  "proto | limit tcp" },
	{ "-A INPUT -p tcp -m limit --limit 3/min --dport 22 -j LOG",
	  "proto | limit tcp" },
	{ "-A INPUT -p tcp --dport 22 -m limit --limit 3/min -j ACCEPT",
	  "proto dport | limit" },
	{ "-A FORWARD -m mark --mark 0x1/0x1 -j DROP", "| mark" },
	{ "-A FORWARD -m mark --mark 0x1/0xffff0000 -j DROP", "mark |" },
	{ "-A FORWARD -m ttl --ttl-gt 5 -m ttl --ttl-lt 10 -j DROP",
	  "ttl | ttl" },
	{ "-A FORWARD -m state --state NEW -m conntrack --ctstate NEW -j DROP",
	  "state | conntrack" },
	{ "-A FORWARD -p tcp -m tcp --dport 80 -m multiport --dports 1,2 -j DROP",
	  "proto dport | multiport" },
	{ "-A FORWARD -m iprange --src-range 10.1.0.1-10.1.0.9 -s 10.1.0.0/16 -m ttl --ttl-eq 3 -j DROP",
	  "src | iprange ttl" },
	{ "-A FORWARD -m conntrack --ctstate NEW --ctproto tcp -m mark --mark 1 -j DROP",
	  "| conntrack mark" },
	{ "-A FORWARD -m mark --mark 1 -m conntrack --ctstate NEW --ctproto tcp -j DROP",
	  "mark | conntrack" },
	{ "-A FORWARD -p tcp -m tcp --dport 22 --tcp-option 2 -m mark --mark 1 -j DROP",
	  "proto | tcp mark" },
	{ "-A INPUT -m comment --comment x -m limit --limit 1/sec -m comment --comment y",
	  "comment | limit comment" },
	{ "-A INPUT -p tcp -m tcp --sport 1 -m limit --limit 1/sec --dport 2",
	  "proto sport dport | limit" },
	{ "-A INPUT -p tcp -m tcp -m limit --limit 1/sec -m tcp --dport 2",
	  "proto sport | limit tcp" },
};

static void layout_str(const struct nfhp_rule_spec *spec, char *buf,
		       size_t len)
{
	static const char *const dims[NFHP_DIM_MAX] = {
		"src", "dst", "proto", "sport", "dport", "state", "frag",
		"tcpflags", "icmp", "ttl", "len", "mark", "iif", "oif",
	};
	const struct nlattr *attr, *name;
	size_t n = 0;
	unsigned int i;

	buf[0] = 0;
	for (i = 0; i < spec->nmatch; i++)
		n += snprintf(buf + n, len - n, "%s ", dims[spec->m[i].dim]);
	if (spec->comment[0])
		n += snprintf(buf + n, len - n, "comment ");
	n += snprintf(buf + n, len - n, "|");
	mnl_attr_for_each_payload((const void *)spec->ext, spec->ext_len) {
		if (mnl_attr_get_type(attr) != NFHPA_XT_MATCH)
			continue;
		name = xte(attr, NFHPA_XTE_NAME);
		n += snprintf(buf + n, len - n, " %s",
			      name ? mnl_attr_get_str(name) : "?");
	}
}

/*
 * Which matches stay native dimensions and which go to libxtables, and
 * that "-D" with the same rule finds it: the same spec.
 */
static void test_layout(struct nfhp_cmdline *cl, struct nfhp_cmdline *cl2)
{
	char err[512], got[256], del[4096];
	size_t i;
	bool ok;
	int ret;

	for (i = 0; i < ARRAY_SIZE(layouts); i++) {
		ret = parse_line(layouts[i].in, cl, err, sizeof(err));
		layout_str(&cl->spec, got, sizeof(got));
		ok = !ret && !strcmp(got, layouts[i].layout);
		check(ok, "layout of %s", layouts[i].in);
		show(ok, ret ? err : got, layouts[i].layout);
		snprintf(del, sizeof(del), "-D%s", layouts[i].in + 2);
		ret = parse_line(del, cl2, err, sizeof(err));
		check(!ret && cl2->cmd == NFHP_CLI_DELETE &&
		      cl2->spec.nmatch == cl->spec.nmatch &&
		      !memcmp(cl2->spec.m, cl->spec.m,
			      cl->spec.nmatch * sizeof(cl->spec.m[0])) &&
		      !strcmp(cl2->spec.comment, cl->spec.comment) &&
		      cl2->spec.ext_len == cl->spec.ext_len &&
		      !memcmp(cl2->spec.ext, cl->spec.ext, cl->spec.ext_len),
		      "-D finds %s", layouts[i].in);
	}
}

struct restored {
	int n;
	char *lines[8];
};

static int restored_cmd(void *ctx, struct nfhp_cmdline *cl)
{
	struct restored *r = ctx;

	if (r->n < 8)
		r->lines[r->n++] = save_str(&cl->spec, cl->chain);
	return 0;
}

/* A restore file of rules with native matches after xtables ones. */
static void test_restore_mixed(void)
{
	static const char text[] =
		"*filter\n"
		":INPUT ACCEPT [0:0]\n"
		":FORWARD ACCEPT [0:0]\n"
		"-A INPUT -p tcp -m limit --limit 3/min -m tcp --dport 22 -j LOG\n"
		"-A INPUT -p tcp --dport 22 -m limit --limit 3/min -j ACCEPT\n"
		"-A FORWARD -m mark --mark 0x1/0x1 -j DROP\n"
		"-A FORWARD -m ttl --ttl-gt 5 -m ttl --ttl-lt 10 -j DROP\n"
		"-A FORWARD -m state --state NEW -m conntrack --ctstate NEW -j DROP\n"
		"-A FORWARD -p tcp -m tcp --dport 80 -m multiport --dports 1,2 -j DROP\n"
		"-A FORWARD -p udp -m string --string x --algo bm -m udp --dport 53 -j ACCEPT\n"
		"-A FORWARD -p tcp -m tcp --dport 80 -j ACCEPT\n"
		"COMMIT\n";
	static const char *const want[] = {
		"-A INPUT -p tcp -m limit --limit 3/min -m tcp --dport 22 -j LOG",
		"-A INPUT -p tcp -m tcp --dport 22 -m limit --limit 3/min -j ACCEPT",
		"-A FORWARD -m mark --mark 0x1/0x1 -j DROP",
		"-A FORWARD -m ttl --ttl-gt 5 -m ttl --ttl-lt 10 -j DROP",
		"-A FORWARD -m state --state NEW -m conntrack --ctstate NEW -j DROP",
		"-A FORWARD -p tcp -m tcp --dport 80 -m multiport --dports 1,2 -j DROP",
		"-A FORWARD -p udp -m string --string \"x\" --algo bm -m udp --dport 53 -j ACCEPT",
		"-A FORWARD -p tcp -m tcp --dport 80 -j ACCEPT",
	};
	struct nfhp_restore_ops ops = { .cmd = restored_cmd };
	struct restored r = { 0 };
	char err[512];
	FILE *f;
	int i, ret;

	f = fmemopen((void *)text, sizeof(text) - 1, "r");
	ret = nfhp_parse_save_stream(f, NFHP_FAMILY_IPV4, &ops, &r, err, sizeof(err));
	fclose(f);
	check(!ret && r.n == 8, "restore mixed: eight rules read: %s", err);
	for (i = 0; i < r.n && i < 8; i++) {
		check(!strcmp(r.lines[i], want[i]), "restore mixed: rule %d",
		      i + 1);
		show(!strcmp(r.lines[i], want[i]), r.lines[i], want[i]);
	}
	for (i = 0; i < r.n; i++)
		free(r.lines[i]);
}

/*
 * An nf-hipac-restore file: every line its own rule, the extensions of
 * one line gone at the next (the same match again is no clone), and a
 * failing line names its number.
 */
static void test_restore(void)
{
	static const char text[] =
		"*filter\n"
		":INPUT ACCEPT [0:0]\n"
		"[5:300] -A INPUT -m limit --limit 1/sec -j LOG --log-prefix 'a b'\n"
		"-A INPUT -m limit --limit 2/sec -j REJECT --reject-with icmp-host-prohibited\n"
		"-A INPUT -j REJECT\n"
		"COMMIT\n";
	static const char *const want[] = {
		"-A INPUT -m limit --limit 1/sec -j LOG --log-prefix \"a b\"",
		"-A INPUT -m limit --limit 2/sec -j REJECT --reject-with icmp-host-prohibited",
		"-A INPUT -j REJECT --reject-with icmp-port-unreachable",
	};
	static const char bad_text[] =
		"*filter\n-A INPUT -j ACCEPT\n-A INPUT -m limit --limit x\nCOMMIT\n";
	struct nfhp_restore_ops ops = { .cmd = restored_cmd };
	struct restored r = { 0 };
	char err[512];
	FILE *f;
	int i, ret;

	f = fmemopen((void *)text, sizeof(text) - 1, "r");
	ret = nfhp_parse_save_stream(f, NFHP_FAMILY_IPV4, &ops, &r, err, sizeof(err));
	fclose(f);
	check(!ret && r.n == 3, "restore: three xtables rules read: %s", err);
	for (i = 0; i < r.n && i < 3; i++) {
		check(!strcmp(r.lines[i], want[i]), "restore: rule %d", i + 1);
		show(!strcmp(r.lines[i], want[i]), r.lines[i], want[i]);
	}
	for (i = 0; i < r.n; i++)
		free(r.lines[i]);
	f = fmemopen((void *)bad_text, sizeof(bad_text) - 1, "r");
	r.n = 0;
	ret = nfhp_parse_save_stream(f, NFHP_FAMILY_IPV4, &ops, &r, err, sizeof(err));
	fclose(f);
	for (i = 0; i < r.n; i++)
		free(r.lines[i]);
	check(ret == 2 && !strcmp(err, "line 3: bad rate \"x\"'"),
	      "restore: the failing line and libxtables' message: %s", err);
	test_restore_mixed();
}

/* Which of tcp and multiport is native depends on their order. */
static void test_multiport_order(struct nfhp_cmdline *cl)
{
	char err[512];
	int ret;

	ret = parse_line("-A FORWARD -p tcp -m multiport --dports 80,443 --syn -j ACCEPT",
			 cl, err, sizeof(err));
	check(!ret && cl->spec.nmatch == 2 && cl->spec.ext_len > 0,
	      "multiport then tcp: -p and multiport native, tcp xtables: %s",
	      err);
	ret = parse_line("-A FORWARD -p tcp --syn -m multiport --dports 80,443 -j ACCEPT",
			 cl, err, sizeof(err));
	check(!ret && cl->spec.nmatch == 3 && !cl->spec.ext_len,
	      "tcp then multiport: all native: %s", err);
}

/*
 * The protocol names printed without /etc/protocols are libxtables' own,
 * the first of each number in its order (iptables' proto_to_name()).
 */
static void test_proto_names(void)
{
	unsigned int i, j, bad = 0;

	for (i = 0; xtables_chain_protos[i].name; i++) {
		const char *want = xtables_chain_protos[i].name;
		const char *got;

		for (j = 0; j < i; j++)
			if (xtables_chain_protos[j].num ==
			    xtables_chain_protos[i].num)
				break;
		if (j < i)
			continue;
		got = nfhp_proto_to_name(xtables_chain_protos[i].num, false);
		if (!got || strcmp(got, want)) {
			printf("#   %u: got %s, want %s\n",
			       xtables_chain_protos[i].num, got ? got : "NULL",
			       want);
			bad++;
		}
	}
	check(i > 0 && !bad, "%u protocol names as libxtables has them", i);
	check(!strcmp(nfhp_proto_to_name(6, true), "tcp") &&
	      !nfhp_proto_to_name(47, false),
	      "tcp without /etc/protocols, gre only with it");
}

/* Without the hook (nf-hipac-sim without --opaque-xt), they stay refused. */
static void test_unplugged(struct nfhp_cmdline *cl)
{
	char err[512];
	int ret;

	ret = parse_line("-A INPUT -m limit --limit 1/s", cl, err,
			 sizeof(err));
	check(ret == 2 &&
	      !strcmp(err, "nf-hipac: match `limit' is not supported yet"),
	      "unplugged: -m limit refused: %s", err);
	ret = parse_line("-A INPUT -j REJECT", cl, err, sizeof(err));
	check(ret == 2 &&
	      !strcmp(err, "nf-hipac: target `REJECT' is not supported yet"),
	      "unplugged: -j REJECT refused: %s", err);
	ret = parse_line("-A INPUT -p tcp -m limit --limit 3/min -m tcp --dport 22 -j ACCEPT",
			 cl, err, sizeof(err));
	check(ret == 2 &&
	      !strcmp(err, "nf-hipac: match `limit' is not supported yet"),
	      "unplugged: tcp after limit refused: %s", err);
	ret = parse_line("-A FORWARD -m state --state NEW -m conntrack --ctstate NEW -j DROP",
			 cl, err, sizeof(err));
	check(ret == 2 &&
	      !strcmp(err, "multiple matches on the same dimension are not supported"),
	      "unplugged: state and conntrack refused: %s", err);
	ret = parse_line("-A FORWARD -m conntrack --ctstate NEW --ctproto tcp -j DROP",
			 cl, err, sizeof(err));
	check(ret == 2 &&
	      !strcmp(err, "nf-hipac: option `--ctproto' is not supported yet"),
	      "unplugged: --ctproto refused: %s", err);
	/* The core refuses this mask: the parser keeps it. */
	ret = parse_line("-A FORWARD -m mark --mark 0x1/0x1 -j DROP", cl, err,
			 sizeof(err));
	check(!ret && cl->spec.nmatch == 1 && !cl->spec.ext_len,
	      "unplugged: mark 0x1/0x1 native: %s", err);
}

int main(void)
{
	struct nfhp_cmdline *cl = calloc(1, sizeof(*cl));
	struct nfhp_cmdline *cl2 = calloc(1, sizeof(*cl2));
	size_t i;

	if (nfhp_xt_setup(NFHP_FAMILY_IPV4, NFHP_XT_NO_PROBE)) {
		printf("Bail out! cannot initialise libxtables\n");
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		test_case(&cases[i], cl, cl2);
	test_bad(bad, ARRAY_SIZE(bad), cl);
	test_list_lines(cl);
	test_bytes(cl, cl2);
	test_layout(cl, cl2);
	test_restore();
	test_multiport_order(cl);
	test_proto_names();
	nfhp_xt_fini();
	test_unplugged(cl);
	free(cl);
	free(cl2);
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
