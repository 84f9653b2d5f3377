// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of "nf-hipac state" without a kernel: its options and lines
 * (lib/state_parse.c) and the wire format of the states' commands and
 * events (lib/nl_state.c).
 *
 * A listing's line is checked word for word against conntrack -L's
 * shape; a save's line must add back the state it was written from,
 * for random states of both families.  Requests are encoded as the
 * client sends them, then read back as a listing's message or an event
 * would carry them: the raw layout of an address is checked against the
 * uapi contract (four host-order words, most significant first),
 * malformed attributes must be refused and unknown ones skipped.
 */
#include "../lib/nl.c"
#include "../lib/nl_state.c"
#include "tap.h"
#include "xorshift.h"

static char err[256];

/* Split @line and read it as options into @e of @family. */
static int opts(const char *line, u8 family, struct nfhp_state_entry *e,
		unsigned int *have)
{
	char buf[1024], *argv[64];
	int argc;

	memset(e, 0, sizeof(*e));
	e->family = family;
	snprintf(buf, sizeof(buf), "%s", line);
	argc = nfhp_split_line(buf, argv, 63);
	err[0] = '\0';
	return nfhp_state_parse_opts(argc, argv, e, have, err, sizeof(err));
}

static void test_options(void)
{
	struct nfhp_state_entry e;
	unsigned int have;

	check(!opts("-p tcp -s 10.0.0.1 -d 10.0.0.2 --sport 40000 --dport 80 "
		    "--rule FORWARD:3 --timeout 300 --tcp-flags SYN,ACK SYN "
		    "--counters 3 180 2 120", NFHP_FAMILY_IPV4, &e, &have) &&
	      have == (NFHP_STATE_HAVE_FLOW | NFHP_STATE_HAVE_RULE |
		       NFHP_STATE_HAVE_TIMEOUT) &&
	      e.proto == 6 && e.src == 0x0a000001 && e.dst == 0x0a000002 &&
	      e.sport == 40000 && e.dport == 80 &&
	      !strcmp(e.chain, "FORWARD") && e.pos == 3 && e.timeout == 300 &&
	      e.tcp[0] == 0x12 && e.tcp[1] == 0x02 && e.pkts[0] == 3 &&
	      e.bytes[0] == 180 && e.pkts[1] == 2 && e.bytes[1] == 120,
	      "options: a whole TCP state");
	check(!opts("-p icmpv6 -s 2001:db8::1 -d 2001:db8::2 --id 7 -6",
		    NFHP_FAMILY_IPV6, &e, &have) &&
	      have == NFHP_STATE_HAVE_FLOW && e.proto == 58 &&
	      e.src == ((nfhp_u128)0x20010db8 << 96 | 1) &&
	      e.sport == 7 && e.dport == 7,
	      "options: an ICMPv6 echo flow, --id for both ports, -6 skipped");
	check(!opts("-p 47 -s 1.2.3.4 -d 5.6.7.8 --rule my-chain:12 ",
		    NFHP_FAMILY_IPV4, &e, &have) &&
	      have == (NFHP_STATE_HAVE_FLOW | NFHP_STATE_HAVE_RULE) &&
	      e.proto == 47 && !strcmp(e.chain, "my-chain") && e.pos == 12,
	      "options: a protocol by number, a user chain");
	check(!opts("-p udp -s 1.2.3.4", NFHP_FAMILY_IPV4, &e, &have) &&
	      !(have & NFHP_STATE_HAVE_FLOW), "options: no -d, no flow");

	check(opts("-p foo -s 1.2.3.4 -d 1.2.3.5", 2, &e, &have) ==
	      NFHP_EXIT_PARAM && !strcmp(err, "unknown protocol \"foo\""),
	      "refused: %s", err);
	check(opts("-p tcp -s 1.2.3.4 -d 2001:db8::1", 2, &e, &have) ==
	      NFHP_EXIT_PARAM && !strcmp(err, "invalid address \"2001:db8::1\""),
	      "refused: %s", err);
	check(opts("-p tcp -s 10.0.0.1 -d 1.2.3.4", 10, &e, &have) ==
	      NFHP_EXIT_PARAM && !strcmp(err, "invalid address \"10.0.0.1\""),
	      "refused: %s (an IPv6 flow)", err);
	check(opts("--sport 65536", 2, &e, &have) == NFHP_EXIT_PARAM &&
	      !strcmp(err, "invalid port \"65536\""), "refused: %s", err);
	check(opts("--rule FORWARD", 2, &e, &have) == NFHP_EXIT_PARAM &&
	      opts("--rule FORWARD:0", 2, &e, &have) == NFHP_EXIT_PARAM &&
	      opts("--rule :3", 2, &e, &have) == NFHP_EXIT_PARAM &&
	      !strcmp(err, "invalid rule \":3\": CHAIN:POSITION"),
	      "refused: %s", err);
	check(opts("--timeout 0", 2, &e, &have) == NFHP_EXIT_PARAM &&
	      opts("--timeout 2592001", 2, &e, &have) == NFHP_EXIT_PARAM &&
	      !opts("--timeout 2592000", 2, &e, &have),
	      "timeouts from 1 s to 30 days");
	check(opts("--tcp-flags SYN,URG NONE", 2, &e, &have) ==
	      NFHP_EXIT_PARAM && opts("--tcp-flags SYN", 2, &e, &have) ==
	      NFHP_EXIT_PARAM && !strcmp(err,
	      "option \"--tcp-flags\" requires an argument"),
	      "refused: %s", err);
	check(opts("--counters 1 2 3", 2, &e, &have) == NFHP_EXIT_PARAM &&
	      opts("--counters 1 2 3 -4", 2, &e, &have) == NFHP_EXIT_PARAM,
	      "counters: four numbers");
	check(opts("-x", 2, &e, &have) == NFHP_EXIT_PARAM &&
	      !strcmp(err, "option \"-x\" requires an argument") &&
	      opts("-x 1", 2, &e, &have) == NFHP_EXIT_PARAM &&
	      !strcmp(err, "unknown option \"-x\""), "refused: %s", err);
}

static void test_lines(void)
{
	struct nfhp_state_entry e = {
		.family = NFHP_FAMILY_IPV4, .proto = 6,
		.src = 0x0a000001, .dst = 0x0a000002,
		.sport = 40000, .dport = 80,
		.tcp = { 0x12, 0x12 }, .timeout = 299,
		.pkts = { 3, 2 }, .bytes = { 180, 120 },
		.verdict = NFHP_ACT_ACCEPT, .chain = "FORWARD", .pos = 3,
	};
	char line[512];
	static const struct {
		u8 fwd, rev;
		const char *name;
	} names[] = {
		{ 0x02, 0, "SYN_SENT" }, { 0x12, 0x12, "ESTABLISHED" },
		{ 0x13, 0x12, "FIN_WAIT" }, { 0x13, 0x13, "TIME_WAIT" },
		{ 0x02, 0x04, "CLOSE" }, { 0x10, 0x10, "CLOSE" },
		{ 0, 0x02, "CLOSE" },
	};
	unsigned int i;
	bool ok = true;

	nfhp_state_format(line, sizeof(line), &e, NULL);
	check(!strcmp(line, "tcp      6 299 ESTABLISHED src=10.0.0.1 dst=10.0.0.2 sport=40000 dport=80 packets=3 bytes=180 [reply] packets=2 bytes=120 rule=FORWARD:3 ACCEPT"),
	      "list: %s", line);
	nfhp_state_format_save(line, sizeof(line), &e);
	check(!strcmp(line, "-A -p tcp -s 10.0.0.1 -d 10.0.0.2 --sport 40000 --dport 80 --rule FORWARD:3 --timeout 299 --tcp-flags SYN,ACK SYN,ACK --counters 3 180 2 120"),
	      "save: %s", line);
	e.chain[0] = '\0';
	e.proto = 1;
	e.sport = e.dport = 7;
	e.verdict = NFHP_ACT_DROP;
	nfhp_state_format(line, sizeof(line), &e, "[DESTROY]");
	check(!strcmp(line, "[DESTROY] icmp     1 299 src=10.0.0.1 dst=10.0.0.2 id=7 packets=3 bytes=180 [reply] packets=2 bytes=120 DROP"),
	      "event, no rule: %s", line);
	nfhp_state_format_save(line, sizeof(line), &e);
	check(!strncmp(line, "# no rule: icmp ", 16),
	      "save: a state without a rule is a comment: %s", line);
	e.family = NFHP_FAMILY_IPV6;
	e.src = (nfhp_u128)0x20010db8 << 96 | 1;
	e.dst = (nfhp_u128)0xfe800000 << 96 | 0xabcd;
	e.proto = 17;
	e.sport = 5353;
	e.dport = 53;
	strcpy(e.chain, "INPUT");
	e.pos = 1;
	nfhp_state_format(line, sizeof(line), &e, "[NEW]");
	check(!strcmp(line, "    [NEW] udp      17 299 src=2001:db8::1 dst=fe80::abcd sport=5353 dport=53 packets=3 bytes=180 [reply] packets=2 bytes=120 rule=INPUT:1 DROP"),
	      "event, IPv6: %s", line);
	nfhp_state_format_flow(line, sizeof(line), &e);
	check(!strcmp(line, "udp src=2001:db8::1 dst=fe80::abcd sport=5353 dport=53"),
	      "flow: %s", line);
	e.proto = 250;
	e.sport = e.dport = 0;
	nfhp_state_format_flow(line, sizeof(line), &e);
	check(!strcmp(line, "250 src=2001:db8::1 dst=fe80::abcd"),
	      "flow without a name or ports: %s", line);
	check(nfhp_state_format(line, 10, &e, NULL) > 100 && strlen(line) == 9,
	      "a short buffer: cut, the length needed returned");
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		u8 t[2] = { names[i].fwd, names[i].rev };

		ok &= !strcmp(nfhp_state_tcp_name(t), names[i].name);
	}
	check(ok, "TCP states: SYN_SENT, ESTABLISHED, FIN_WAIT, TIME_WAIT, CLOSE");
}

/* A random state of @family, as a listing might hold it. */
static void random_entry(struct nfhp_state_entry *e, u8 family)
{
	static const u8 protos[] = { 6, 17, 1, 58, 47, 132 };

	memset(e, 0, sizeof(*e));
	e->family = family;
	e->proto = protos[rnd() % ARRAY_SIZE(protos)];
	e->src = family == NFHP_FAMILY_IPV6 ?
		 (nfhp_u128)rnd() << 64 | rnd() : (u32)rnd();
	e->dst = family == NFHP_FAMILY_IPV6 ?
		 (nfhp_u128)rnd() << 64 | rnd() : (u32)rnd();
	if (rnd() % 4)
		e->dst = 0;	/* :: and 0.0.0.0 too */
	if (e->proto == 1 || e->proto == 58) {
		e->sport = e->dport = rnd() % 65536;
	} else if (e->proto != 47) {
		e->sport = rnd() % 65536;
		e->dport = rnd() % 65536;
	}
	if (e->proto == 6) {
		e->tcp[0] = rnd() & 0x17;
		e->tcp[1] = rnd() & 0x17;
	}
	e->timeout = 1 + rnd() % 2592000;
	e->pkts[0] = rnd();
	e->bytes[0] = rnd();
	e->pkts[1] = rnd() % 3 ? rnd() : ~0ull;
	e->bytes[1] = rnd();
	e->verdict = NFHP_ACT_ACCEPT;
	snprintf(e->chain, sizeof(e->chain), "%s",
		 rnd() % 2 ? "FORWARD" : "a-user-chain_31-characters-long");
	e->pos = 1 + rnd() % 100000;
}

static bool same(const struct nfhp_state_entry *a,
		 const struct nfhp_state_entry *b, bool verdict)
{
	return a->family == b->family && a->proto == b->proto &&
	       a->src == b->src && a->dst == b->dst &&
	       a->sport == b->sport && a->dport == b->dport &&
	       a->tcp[0] == b->tcp[0] && a->tcp[1] == b->tcp[1] &&
	       a->timeout == b->timeout && a->pkts[0] == b->pkts[0] &&
	       a->pkts[1] == b->pkts[1] && a->bytes[0] == b->bytes[0] &&
	       a->bytes[1] == b->bytes[1] && !strcmp(a->chain, b->chain) &&
	       a->pos == b->pos && (!verdict || a->verdict == b->verdict);
}

static void test_save_restore(void)
{
	struct nfhp_state_entry e, back;
	unsigned int i, have, bad = 0;
	char line[1024];

	for (i = 0; i < 2000; i++) {
		random_entry(&e, i % 2 ? NFHP_FAMILY_IPV6 : NFHP_FAMILY_IPV4);
		nfhp_state_format_save(line, sizeof(line), &e);
		if (strncmp(line, "-A ", 3) ||
		    opts(line + 3, e.family, &back, &have) ||
		    have != (NFHP_STATE_HAVE_FLOW | NFHP_STATE_HAVE_RULE |
			     NFHP_STATE_HAVE_TIMEOUT) ||
		    !same(&e, &back, false)) {
			if (!bad++)
				printf("# %s\n", line);
		}
	}
	check(!bad, "save: 2000 random states read back as they were (%u not)",
	      bad);
}

/* A genetlink message as the kernel would send @e: a listing's or event. */
static struct nlmsghdr *kernel_msg(char *buf, u8 cmd,
				   const struct nfhp_state_entry *e)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl;
	struct nlattr *nest;

	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	nfhp_nl_put_state(nlh, e, true);
	/* What a kernel adds: the verdict, and an attribute of a newer one. */
	nest = (struct nlattr *)((char *)genl + sizeof(*genl));
	mnl_attr_put_u8(nlh, NFHPA_STATE_VERDICT, e->verdict);
	nest->nla_len += MNL_ALIGN(sizeof(struct nlattr) + 1);
	mnl_attr_put_u32(nlh, NFHPA_MAX + 7, 42);
	return nlh;
}

static void test_wire(void)
{
	static char buf[4096];
	struct nfhp_state_entry e, back;
	const struct nlattr *a, *nest;
	unsigned int i, bad = 0;
	struct nlmsghdr *nlh;
	u32 w[4];

	random_entry(&e, NFHP_FAMILY_IPV6);
	e.src = (nfhp_u128)0x20010db8 << 96 | 0x11223344;
	nlh = kernel_msg(buf, NFHP_CMD_STATE_LIST, &e);
	nest = (const struct nlattr *)((char *)mnl_nlmsg_get_payload(nlh) +
				       sizeof(struct genlmsghdr));
	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) != NFHPA_STATE_SRC)
			continue;
		memcpy(w, mnl_attr_get_payload(a), sizeof(w));
	}
	check(w[0] == 0x20010db8 && !w[1] && !w[2] && w[3] == 0x11223344,
	      "wire: an address is four host-order words, most significant first");
	for (i = 0; i < 1000; i++) {
		random_entry(&e, i % 2 ? NFHP_FAMILY_IPV6 : NFHP_FAMILY_IPV4);
		e.verdict = i % 3 ? NFHP_ACT_ACCEPT : NFHP_ACT_DROP;
		nlh = kernel_msg(buf, NFHP_CMD_STATE_NEW, &e);
		bad += nfhp_nl_parse_state_msg(nlh, &back) ||
		       !same(&e, &back, true);
	}
	check(!bad, "wire: 1000 random states read back, an unknown attribute skipped (%u not)",
	      bad);

	/* Malformed: a short address, a 32-bit IPv4 overflow, no flow. */
	random_entry(&e, NFHP_FAMILY_IPV4);
	nlh = kernel_msg(buf, NFHP_CMD_STATE_LIST, &e);
	nest = (const struct nlattr *)((char *)mnl_nlmsg_get_payload(nlh) +
				       sizeof(struct genlmsghdr));
	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) == NFHPA_STATE_SRC)
			((struct nlattr *)a)->nla_type = NFHPA_STATE_MAX + 1;
	}
	check(nfhp_nl_parse_state_msg(nlh, &back) == -EINVAL,
	      "wire: a state without its source is refused");
	e.src = (nfhp_u128)1 << 40;
	nlh = kernel_msg(buf, NFHP_CMD_STATE_LIST, &e);
	check(nfhp_nl_parse_state_msg(nlh, &back) == -EINVAL,
	      "wire: an IPv4 address wider than 32 bits is refused");
	random_entry(&e, NFHP_FAMILY_IPV4);
	nlh = kernel_msg(buf, NFHP_CMD_STATE_LIST, &e);
	nest = (const struct nlattr *)((char *)mnl_nlmsg_get_payload(nlh) +
				       sizeof(struct genlmsghdr));
	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) == NFHPA_STATE_TIMEOUT)
			((struct nlattr *)a)->nla_len = sizeof(*a) + 2;
	}
	check(nfhp_nl_parse_state_msg(nlh, &back) == -EINVAL,
	      "wire: a timeout of two bytes is refused");

	/* A delete carries the flow only. */
	random_entry(&e, NFHP_FAMILY_IPV4);
	nlh = mnl_nlmsg_put_header(buf);
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct genlmsghdr));
	nfhp_nl_put_state(nlh, &e, false);
	nest = (const struct nlattr *)((char *)mnl_nlmsg_get_payload(nlh) +
				       sizeof(struct genlmsghdr));
	i = 0;
	mnl_attr_for_each_nested(a, nest)
		i |= 1u << mnl_attr_get_type(a);
	check(i == (1u << NFHPA_STATE_FAMILY | 1u << NFHPA_STATE_PROTO |
		    1u << NFHPA_STATE_SRC | 1u << NFHPA_STATE_DST |
		    1u << NFHPA_STATE_SPORT | 1u << NFHPA_STATE_DPORT),
	      "wire: a delete carries the flow, nothing more");
}

int main(void)
{
	rng_state = 0x57a7ec1;
	test_options();
	test_lines();
	test_save_restore();
	test_wire();
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
