// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the nftables translation behind "nf-hipac import"
 * (lib/nft_xlate.c), without a kernel: each case builds the chains, sets
 * and rules in memory with libnftnl, with the expressions iptables-nft
 * 1.8.9 and nft 1.0.6 emit for them (taken from "nft --debug=netlink"),
 * and checks the iptables-save text that comes out.  Every text that
 * translates must also be accepted by the restore parser; every rule
 * that cannot be translated must be refused with a message naming it.
 */
#include "parse.h"
#include "nft_sets.h"
#include "nft_xlate.h"
#include "xt_hooks.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/xt_addrtype.h>
#include <linux/netfilter/xt_comment.h>
#include <linux/netfilter/xt_connmark.h>
#include <linux/netfilter/xt_limit.h>
#include <linux/netfilter/xt_conntrack.h>
#include <linux/netfilter/xt_multiport.h>
#include <linux/netfilter/xt_owner.h>
#include <linux/netfilter/xt_pkttype.h>
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/udata.h>

#include "tap.h"

static struct nfhp_xlate *x;
static int family = NFPROTO_IPV4;
static const char *table = "filter";
static unsigned long long handle;

/* --- building --------------------------------------------------------- */

static void start(int fam, const char *name)
{
	family = fam;
	table = name;
	handle = 0;
	x = nfhp_xlate_alloc(fam, name);
}

static void chain(const char *name, int hook, bool drop)
{
	struct nftnl_chain *c = nftnl_chain_alloc();

	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, table);
	nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, family);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name);
	if (hook >= 0) {
		nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, hook);
		nftnl_chain_set_u32(c, NFTNL_CHAIN_PRIO, 0);
		nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter");
		nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY,
				    drop ? NF_DROP : NF_ACCEPT);
	}
	nfhp_xlate_add_chain(x, c);
}

/* The three base chains iptables-nft creates. */
static void ipt_chains(bool forward_drop)
{
	chain("INPUT", NF_INET_LOCAL_IN, false);
	chain("FORWARD", NF_INET_FORWARD, forward_drop);
	chain("OUTPUT", NF_INET_LOCAL_OUT, false);
}

static struct nftnl_rule *rule(const char *name)
{
	struct nftnl_rule *r = nftnl_rule_alloc();

	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, table);
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, family);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, name);
	nftnl_rule_set_u64(r, NFTNL_RULE_HANDLE, ++handle);
	return r;
}

static void add(struct nftnl_rule *r, struct nftnl_expr *e)
{
	nftnl_rule_add_expr(r, e);
}

static void payload(struct nftnl_rule *r, int base, int off, int len)
{
	struct nftnl_expr *e = nftnl_expr_alloc("payload");

	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, off);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
	add(r, e);
}

static void net(struct nftnl_rule *r, int off, int len)
{
	payload(r, NFT_PAYLOAD_NETWORK_HEADER, off, len);
}

static void th(struct nftnl_rule *r, int off, int len)
{
	payload(r, NFT_PAYLOAD_TRANSPORT_HEADER, off, len);
}

static void meta(struct nftnl_rule *r, int key)
{
	struct nftnl_expr *e = nftnl_expr_alloc("meta");

	nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, NFT_REG_1);
	add(r, e);
}

static void ct_state(struct nftnl_rule *r)
{
	struct nftnl_expr *e = nftnl_expr_alloc("ct");

	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_STATE);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	add(r, e);
}

static void cmp(struct nftnl_rule *r, int op, const void *d, int len)
{
	struct nftnl_expr *e = nftnl_expr_alloc("cmp");

	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
	nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, d, len);
	add(r, e);
}

static void cmp8(struct nftnl_rule *r, int op, u8 v)
{
	cmp(r, op, &v, 1);
}

static void cmp16(struct nftnl_rule *r, int op, u16 v)	/* network order */
{
	v = htons(v);
	cmp(r, op, &v, 2);
}

static void cmp32(struct nftnl_rule *r, int op, u32 v)	/* host order */
{
	cmp(r, op, &v, 4);
}

static void cmp_be(struct nftnl_rule *r, int op, const char *bytes, int len)
{
	cmp(r, op, bytes, len);
}

static void bitwise(struct nftnl_rule *r, const void *mask, int len)
{
	struct nftnl_expr *e = nftnl_expr_alloc("bitwise");
	static const u8 zero[16];

	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, len);
	nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, mask, len);
	nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, zero, len);
	add(r, e);
}

static void range16(struct nftnl_rule *r, int op, u16 lo, u16 hi)
{
	struct nftnl_expr *e = nftnl_expr_alloc("range");

	lo = htons(lo);
	hi = htons(hi);
	nftnl_expr_set_u32(e, NFTNL_EXPR_RANGE_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_RANGE_OP, op);
	nftnl_expr_set(e, NFTNL_EXPR_RANGE_FROM_DATA, &lo, 2);
	nftnl_expr_set(e, NFTNL_EXPR_RANGE_TO_DATA, &hi, 2);
	add(r, e);
}

static void lookup(struct nftnl_rule *r, const char *set, bool inv, bool map)
{
	struct nftnl_expr *e = nftnl_expr_alloc("lookup");

	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, NFT_REG_1);
	nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, set);
	if (inv)
		nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_FLAGS,
				   NFT_LOOKUP_F_INV);
	if (map)
		nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_DREG, NFT_REG_VERDICT);
	add(r, e);
}

static void counter(struct nftnl_rule *r)
{
	add(r, nftnl_expr_alloc("counter"));
}

static void verdict(struct nftnl_rule *r, int v, const char *chain_name)
{
	struct nftnl_expr *e = nftnl_expr_alloc("immediate");

	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, v);
	if (chain_name)
		nftnl_expr_set_str(e, NFTNL_EXPR_IMM_CHAIN, chain_name);
	add(r, e);
}

static void xt(struct nftnl_rule *r, const char *name, int rev,
	       const void *info, size_t len)
{
	struct nftnl_expr *e = nftnl_expr_alloc("match");
	void *copy = malloc(len);	/* the expression owns it */

	memcpy(copy, info, len);
	nftnl_expr_set_str(e, NFTNL_EXPR_MT_NAME, name);
	nftnl_expr_set_u32(e, NFTNL_EXPR_MT_REV, rev);
	nftnl_expr_set(e, NFTNL_EXPR_MT_INFO, copy, len);
	add(r, e);
}

static void l4proto(struct nftnl_rule *r, u8 proto)
{
	meta(r, NFT_META_L4PROTO);
	cmp8(r, NFT_CMP_EQ, proto);
}

static void done(struct nftnl_rule *r)
{
	nfhp_xlate_add_rule(x, r);
}

static struct nftnl_set *set(const char *name, int keylen, u32 flags)
{
	struct nftnl_set *s = nftnl_set_alloc();

	nftnl_set_set_str(s, NFTNL_SET_TABLE, table);
	nftnl_set_set_u32(s, NFTNL_SET_FAMILY, family);
	nftnl_set_set_str(s, NFTNL_SET_NAME, name);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, keylen);
	nftnl_set_set_u32(s, NFTNL_SET_FLAGS,
			  NFT_SET_ANONYMOUS | NFT_SET_CONSTANT | flags);
	return s;
}

static struct nftnl_set_elem *elem(struct nftnl_set *s, const void *key,
				   int len, bool end)
{
	struct nftnl_set_elem *e = nftnl_set_elem_alloc();

	nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, key, len);
	if (end)
		nftnl_set_elem_set_u32(e, NFTNL_SET_ELEM_FLAGS,
				       NFT_SET_ELEM_INTERVAL_END);
	nftnl_set_elem_add(s, e);
	return e;
}

static void elem16(struct nftnl_set *s, u16 v, bool end)
{
	v = htons(v);
	elem(s, &v, 2, end);
}

/* --- checking ------------------------------------------------------------- */

static char text[65536];
static char err[512];

static int run(const char *only)
{
	FILE *f = fmemopen(text, sizeof(text), "w");
	int ret;

	err[0] = 0;
	ret = nfhp_xlate_save(x, only, f, err, sizeof(err));
	fputc(0, f);
	fclose(f);
	return ret;
}

/* The text must be something nf-hipac-restore (of @fam) takes. */
static bool parses_family(u8 fam)
{
	static const struct nfhp_restore_ops ops = { };
	char perr[256] = "";
	FILE *f = fmemopen(text, strlen(text), "r");
	int ret = nfhp_parse_save_stream(f, fam, &ops, NULL, perr,
					 sizeof(perr));

	fclose(f);
	if (ret)
		printf("# parser: %s\n", perr);
	return !ret;
}

static bool parses(void)
{
	return parses_family(NFHP_FAMILY_IPV4);
}

/* Translate; the "-A"/":"/"-F"/"#" lines must be exactly @want. */
static void expect(const char *name, const char *only, const char *want)
{
	char got[65536] = "";
	char *line, *save = NULL;
	int ret = run(only);

	for (line = strtok_r(text, "\n", &save); !ret && line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "# Generated", 11) ||
		    !strcmp(line, "*filter") || !strcmp(line, "COMMIT"))
			continue;
		strcat(got, line);
		strcat(got, "\n");
	}
	check(!ret && !strcmp(got, want), "%s", name);
	if (ret || strcmp(got, want))
		printf("# rc %d %s\n# want:\n%s# got:\n%s", ret, err, want, got);
	/* strtok_r cut the text: translate again for the parser. */
	nfhp_xlate_free(x);
	x = NULL;
}

static void expect_parses(const char *name)
{
	int ret = run(NULL);

	check(!ret && parses(), "%s: the restore parser takes it", name);
}

static void refuse(const char *name, const char *msg)
{
	int ret = run(NULL);

	check(ret == NFHP_EXIT_PARAM && strstr(err, msg), "%s refused", name);
	if (ret != NFHP_EXIT_PARAM || !strstr(err, msg))
		printf("# rc %d, err \"%s\", want \"%s\"\n", ret, err, msg);
	nfhp_xlate_free(x);
	x = NULL;
}

/* --- cases ----------------------------------------------------------------- */

/* Rules as iptables-nft 1.8.9 writes them (ip filter). */
static void build_iptables_nft(void)
{
	static const u8 m23[4] = { 0xff, 0xff, 0xfe, 0 };
	static const u8 flags[1] = { 0x17 };
	static const u8 frag[2] = { 0x1f, 0xff };
	static const u8 ctmask[4] = { 0x06, 0, 0, 0 };
	struct xt_multiport_v1 mp = { .flags = XT_MULTIPORT_DESTINATION,
				      .count = 4, .ports = { 22, 80, 1000, 2000 },
				      .pflags = { 0, 0, 1, 0 } };
	struct xt_conntrack_mtinfo3 ct = {
		.match_flags = XT_CONNTRACK_STATE | XT_CONNTRACK_STATE_ALIAS,
		.state_mask = XT_CONNTRACK_STATE_BIT(IP_CT_ESTABLISHED) |
			      XT_CONNTRACK_STATE_BIT(IP_CT_RELATED),
	};
	struct xt_comment_info cm = { .comment = "hello world" };
	struct nftnl_rule *r;

	start(NFPROTO_IPV4, "filter");
	ipt_chains(true);
	chain("web", -1, false);
	chain("deny", -1, false);

	r = rule("INPUT");	/* -i lo -j ACCEPT */
	meta(r, NFT_META_IIFNAME);
	cmp(r, NFT_CMP_EQ, "lo", 3);
	counter(r);
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	r = rule("INPUT");	/* -m state --state RELATED,ESTABLISHED */
	xt(r, "conntrack", 3, &ct, sizeof(ct));
	counter(r);
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	/* -s 10.0.1.0/24 -d 10.0.2.2/32 -p tcp --dport 22 -j ACCEPT */
	r = rule("FORWARD");
	l4proto(r, IPPROTO_TCP);
	net(r, 12, 3);
	cmp_be(r, NFT_CMP_EQ, "\x0a\x00\x01", 3);
	net(r, 16, 4);
	cmp_be(r, NFT_CMP_EQ, "\x0a\x00\x02\x02", 4);
	th(r, 2, 2);
	cmp16(r, NFT_CMP_EQ, 22);
	counter(r);
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	/* -s 10.0.0.0/8 -p tcp --sport 1024:65535 --dport 80 -j web */
	r = rule("FORWARD");
	l4proto(r, IPPROTO_TCP);
	net(r, 12, 1);
	cmp8(r, NFT_CMP_EQ, 10);
	th(r, 0, 2);
	range16(r, NFT_RANGE_EQ, 1024, 65535);
	th(r, 2, 2);
	cmp16(r, NFT_CMP_EQ, 80);
	verdict(r, NFT_JUMP, "web");
	done(r);

	/* ! -s 10.1.2.0/23 -p udp ! --dport 53 -j deny */
	r = rule("FORWARD");
	l4proto(r, IPPROTO_UDP);
	net(r, 12, 4);
	bitwise(r, m23, 4);
	cmp_be(r, NFT_CMP_NEQ, "\x0a\x01\x02\x00", 4);
	th(r, 2, 2);
	cmp16(r, NFT_CMP_NEQ, 53);
	verdict(r, NFT_JUMP, "deny");
	done(r);

	/* -i veth0 -o veth+ -p tcp -m multiport --dports 22,80,1000:2000 */
	r = rule("FORWARD");
	meta(r, NFT_META_IIFNAME);
	cmp(r, NFT_CMP_EQ, "veth0", 6);
	meta(r, NFT_META_OIFNAME);
	cmp(r, NFT_CMP_EQ, "veth", 4);
	l4proto(r, IPPROTO_TCP);
	xt(r, "multiport", 1, &mp, sizeof(mp));
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	/* ! -i eth+ -p tcp --tcp-flags FIN,SYN,RST,ACK SYN -j DROP */
	r = rule("FORWARD");
	meta(r, NFT_META_IIFNAME);
	cmp(r, NFT_CMP_NEQ, "eth", 3);
	l4proto(r, IPPROTO_TCP);
	th(r, 13, 1);
	bitwise(r, flags, 1);
	cmp8(r, NFT_CMP_EQ, 0x02);
	verdict(r, NF_DROP, NULL);
	done(r);

	r = rule("FORWARD");	/* -f -j DROP */
	net(r, 6, 2);
	bitwise(r, frag, 2);
	cmp16(r, NFT_CMP_NEQ, 0);
	verdict(r, NF_DROP, NULL);
	done(r);

	r = rule("FORWARD");	/* ct state related,established (nft) */
	ct_state(r);
	bitwise(r, ctmask, 4);
	cmp32(r, NFT_CMP_NEQ, 0);
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	r = rule("FORWARD");	/* meta mark & 0xff == 5 */
	meta(r, NFT_META_MARK);
	bitwise(r, (u32[]){ 0xff }, 4);
	cmp32(r, NFT_CMP_EQ, 5);
	verdict(r, NF_DROP, NULL);
	done(r);

	r = rule("FORWARD");	/* -m comment --comment "hello world" -g deny */
	xt(r, "comment", 0, &cm, sizeof(cm));
	verdict(r, NFT_GOTO, "deny");
	done(r);

	r = rule("FORWARD");	/* -p gre, no target */
	l4proto(r, 47);
	counter(r);
	done(r);

	r = rule("web");
	l4proto(r, IPPROTO_TCP);
	th(r, 2, 2);
	cmp16(r, NFT_CMP_EQ, 443);
	verdict(r, NFT_RETURN, NULL);
	done(r);

	r = rule("deny");
	verdict(r, NF_DROP, NULL);
	done(r);
}

static void test_iptables_nft(void)
{
	build_iptables_nft();
	expect("iptables-nft rules", NULL,
	       ":INPUT ACCEPT [0:0]\n"
	       ":FORWARD DROP [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       ":deny - [0:0]\n"
	       ":web - [0:0]\n"
	       "-A INPUT -i lo -j ACCEPT\n"
	       "-A INPUT -m state --state RELATED,ESTABLISHED -j ACCEPT\n"
	       "-A FORWARD -s 10.0.1.0/24 -d 10.0.2.2/32 -p tcp -m tcp --dport 22 -j ACCEPT\n"
	       "-A FORWARD -s 10.0.0.0/8 -p tcp -m tcp --sport 1024:65535 --dport 80 -j web\n"
	       "-A FORWARD ! -s 10.1.2.0/23 -p udp -m udp ! --dport 53 -j deny\n"
	       "-A FORWARD -i veth0 -o veth+ -p tcp -m multiport --dports 22,80,1000:2000 -j ACCEPT\n"
	       "-A FORWARD ! -i eth+ -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j DROP\n"
	       "-A FORWARD -f -j DROP\n"
	       "-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n"
	       "-A FORWARD -m mark --mark 0x5/0xff -j DROP\n"
	       "-A FORWARD -m comment --comment \"hello world\" -g deny\n"
	       "-A FORWARD -p gre\n"
	       "-A deny -j DROP\n"
	       "-A web -p tcp -m tcp --dport 443 -j RETURN\n");
	build_iptables_nft();
	expect_parses("iptables-nft rules");
	nfhp_xlate_free(x);

	build_iptables_nft();
	expect("--chain INPUT: no user chain", "INPUT",
	       ":INPUT ACCEPT [0:0]\n"
	       "-F INPUT\n"
	       "-A INPUT -i lo -j ACCEPT\n"
	       "-A INPUT -m state --state RELATED,ESTABLISHED -j ACCEPT\n");
	build_iptables_nft();
	expect("--chain FORWARD: the chains it reaches", "FORWARD",
	       ":FORWARD DROP [0:0]\n"
	       ":deny - [0:0]\n"
	       ":web - [0:0]\n"
	       "-F FORWARD\n"
	       "-A FORWARD -s 10.0.1.0/24 -d 10.0.2.2/32 -p tcp -m tcp --dport 22 -j ACCEPT\n"
	       "-A FORWARD -s 10.0.0.0/8 -p tcp -m tcp --sport 1024:65535 --dport 80 -j web\n"
	       "-A FORWARD ! -s 10.1.2.0/23 -p udp -m udp ! --dport 53 -j deny\n"
	       "-A FORWARD -i veth0 -o veth+ -p tcp -m multiport --dports 22,80,1000:2000 -j ACCEPT\n"
	       "-A FORWARD ! -i eth+ -p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j DROP\n"
	       "-A FORWARD -f -j DROP\n"
	       "-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n"
	       "-A FORWARD -m mark --mark 0x5/0xff -j DROP\n"
	       "-A FORWARD -m comment --comment \"hello world\" -g deny\n"
	       "-A FORWARD -p gre\n"
	       "-A deny -j DROP\n"
	       "-A web -p tcp -m tcp --dport 443 -j RETURN\n");
}

/* Sets and maps as nft 1.0.6 writes them, in an inet table. */
static void build_sets(void)
{
	struct nftnl_set *ports, *addrs, *map, *protos;
	struct nftnl_set_elem *e;
	struct nftnl_rule *r;
	u32 v;

	start(NFPROTO_INET, "fw");
	chain("fwd", NF_INET_FORWARD, true);
	chain("web", -1, false);

	/* { 22, 80, 1000-2000 }: the kernel's interval elements, reversed */
	ports = set("__set0", 2, NFT_SET_INTERVAL);
	elem16(ports, 2001, true);
	elem16(ports, 1000, false);
	elem16(ports, 81, true);
	elem16(ports, 80, false);
	elem16(ports, 23, true);
	elem16(ports, 22, false);
	elem16(ports, 0, true);
	nfhp_xlate_add_set(x, ports);

	/* { 10.0.0.0/8, 192.168.1.1 } */
	addrs = set("__set1", 4, NFT_SET_INTERVAL);
	elem(addrs, "\xc0\xa8\x01\x02", 4, true);
	elem(addrs, "\xc0\xa8\x01\x01", 4, false);
	elem(addrs, "\x0b\x00\x00\x00", 4, true);
	elem(addrs, "\x0a\x00\x00\x00", 4, false);
	nfhp_xlate_add_set(x, addrs);

	/* ct state vmap { established : accept, invalid : jump web } */
	map = set("__map0", 4, NFT_SET_MAP);
	v = 0x02;
	e = elem(map, &v, 4, false);
	nftnl_set_elem_set_u32(e, NFTNL_SET_ELEM_VERDICT, NF_ACCEPT);
	v = 0x01;
	e = elem(map, &v, 4, false);
	nftnl_set_elem_set_u32(e, NFTNL_SET_ELEM_VERDICT, NFT_JUMP);
	nftnl_set_elem_set_str(e, NFTNL_SET_ELEM_CHAIN, "web");
	nfhp_xlate_add_set(x, map);

	protos = set("__set2", 1, 0);	/* meta l4proto { tcp, udp } */
	elem(protos, "\x06", 1, false);
	elem(protos, "\x11", 1, false);
	nfhp_xlate_add_set(x, protos);

	r = rule("fwd");
	ct_state(r);
	lookup(r, "__map0", false, true);
	done(r);

	r = rule("fwd");	/* iif "lo" (ifindex 1) */
	meta(r, NFT_META_IIF);
	cmp32(r, NFT_CMP_EQ, 1);
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	r = rule("fwd");	/* tcp dport { 22, 80, 1000-2000 } accept */
	l4proto(r, IPPROTO_TCP);
	th(r, 2, 2);
	lookup(r, "__set0", false, false);
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	r = rule("fwd");	/* tcp dport != { ... } drop */
	l4proto(r, IPPROTO_TCP);
	th(r, 2, 2);
	lookup(r, "__set0", true, false);
	verdict(r, NF_DROP, NULL);
	done(r);

	/* meta nfproto ipv4 ip saddr { ... } udp dport 53 accept comment */
	r = rule("fwd");
	meta(r, NFT_META_NFPROTO);
	cmp8(r, NFT_CMP_EQ, NFPROTO_IPV4);
	net(r, 12, 4);
	lookup(r, "__set1", false, false);
	l4proto(r, IPPROTO_UDP);
	th(r, 2, 2);
	cmp16(r, NFT_CMP_EQ, 53);
	verdict(r, NF_ACCEPT, NULL);
	{
		struct nftnl_udata_buf *u = nftnl_udata_buf_alloc(64);

		nftnl_udata_put_strz(u, NFTNL_UDATA_RULE_COMMENT, "dns");
		nftnl_rule_set_data(r, NFTNL_RULE_USERDATA,
				    nftnl_udata_buf_data(u),
				    nftnl_udata_buf_len(u));
		nftnl_udata_buf_free(u);
	}
	done(r);

	r = rule("fwd");	/* meta nfproto ipv6 ...: IPv6 only */
	meta(r, NFT_META_NFPROTO);
	cmp8(r, NFT_CMP_EQ, NFPROTO_IPV6);
	net(r, 8, 16);
	cmp(r, NFT_CMP_EQ, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16);
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	/* meta l4proto { tcp, udp } th dport 7 drop */
	r = rule("fwd");
	meta(r, NFT_META_L4PROTO);
	lookup(r, "__set2", false, false);
	th(r, 2, 2);
	cmp16(r, NFT_CMP_EQ, 7);
	verdict(r, NF_DROP, NULL);
	done(r);

	/* udp sport 1-1023 (cmp gte, cmp lte), ip ttl < 5, ip length */
	r = rule("fwd");
	l4proto(r, IPPROTO_UDP);
	th(r, 0, 2);
	cmp16(r, NFT_CMP_GTE, 1);
	cmp16(r, NFT_CMP_LTE, 1023);
	meta(r, NFT_META_NFPROTO);
	cmp8(r, NFT_CMP_EQ, NFPROTO_IPV4);
	net(r, 8, 1);
	cmp8(r, NFT_CMP_LT, 5);
	net(r, 2, 2);
	range16(r, NFT_RANGE_NEQ, 100, 200);
	verdict(r, NF_DROP, NULL);
	done(r);

	r = rule("fwd");	/* ct state != established,related: always */
	ct_state(r);
	cmp32(r, NFT_CMP_NEQ, 0x06);
	verdict(r, NF_DROP, NULL);
	done(r);

	r = rule("web");
	verdict(r, NF_ACCEPT, NULL);
	done(r);
}

static void test_sets(void)
{
	build_sets();
	expect("nft sets, maps and inet", NULL,
	       ":INPUT ACCEPT [0:0]\n"
	       ":FORWARD DROP [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       ":web - [0:0]\n"
	       "-A FORWARD -m conntrack --ctstate INVALID -j web\n"
	       "-A FORWARD -m conntrack --ctstate ESTABLISHED -j ACCEPT\n"
	       "-A FORWARD -i lo -j ACCEPT\n"
	       "-A FORWARD -p tcp -m multiport --dports 22,80,1000:2000 -j ACCEPT\n"
	       "-A FORWARD -p tcp -m multiport ! --dports 22,80,1000:2000 -j DROP\n"
	       "-A FORWARD -s 10.0.0.0/8 -p udp -m udp --dport 53 -m comment --comment dns -j ACCEPT\n"
	       "-A FORWARD -s 192.168.1.1/32 -p udp -m udp --dport 53 -m comment --comment dns -j ACCEPT\n"
	       "# rule 6 of chain fwd (handle 6) matches IPv6 only: not imported\n"
	       "-A FORWARD -p tcp -m tcp --dport 7 -j DROP\n"
	       "-A FORWARD -p udp -m udp --dport 7 -j DROP\n"
	       "-A FORWARD -p udp -m udp --sport 1:1023 -m ttl --ttl-lt 5 -m length ! --length 100:200 -j DROP\n"
	       "-A FORWARD -j DROP\n"
	       "-A web -j ACCEPT\n");
	build_sets();
	expect_parses("nft sets");
	check(nfhp_xlate_nskipped(x) == 1 && nfhp_xlate_nrules(x) == 12,
	      "nft sets: 12 rules written, 1 IPv6 rule left out (%u, %u)",
	      nfhp_xlate_nrules(x), nfhp_xlate_nskipped(x));
	nfhp_xlate_free(x);
}

static void one_rule(void (*fill)(struct nftnl_rule *r))
{
	struct nftnl_rule *r;

	start(NFPROTO_IPV4, "filter");
	ipt_chains(false);
	r = rule("FORWARD");
	fill(r);
	done(r);
}

static void fill_string(struct nftnl_rule *r)
{
	static const u8 info[64];

	l4proto(r, IPPROTO_TCP);
	xt(r, "string", 1, info, sizeof(info));
	verdict(r, NF_DROP, NULL);
}

/* nft: limit rate @rate per @unit seconds, as iptables-nft writes it */
static void limit(struct nftnl_rule *r, u64 rate, u64 unit, u32 burst,
		  u32 type, u32 flags)
{
	struct nftnl_expr *e = nftnl_expr_alloc("limit");

	nftnl_expr_set_u64(e, NFTNL_EXPR_LIMIT_RATE, rate);
	nftnl_expr_set_u64(e, NFTNL_EXPR_LIMIT_UNIT, unit);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LIMIT_BURST, burst);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LIMIT_TYPE, type);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LIMIT_FLAGS, flags);
	add(r, e);
}

/* -p icmp -m limit --limit 5/min --limit-burst 7 -j ACCEPT */
static void fill_limit(struct nftnl_rule *r)
{
	l4proto(r, IPPROTO_ICMP);
	limit(r, 5, 60, 7, NFT_LIMIT_PKTS, 0);
	verdict(r, NF_ACCEPT, NULL);
}

/* Rates whose unit libxt_limit picks anew: 120/min is 2/sec. */
static void fill_limits(struct nftnl_rule *r)
{
	limit(r, 3, 60 * 60, 5, NFT_LIMIT_PKTS, 0);
	verdict(r, NF_ACCEPT, NULL);
}

static void fill_limit_sec(struct nftnl_rule *r)
{
	limit(r, 120, 60, 5, NFT_LIMIT_PKTS, 0);
	verdict(r, NF_ACCEPT, NULL);
}

static void fill_limit_day(struct nftnl_rule *r)
{
	limit(r, 7, 24 * 60 * 60, 1, NFT_LIMIT_PKTS, 0);
	verdict(r, NF_ACCEPT, NULL);
}

static void fill_limit_bytes(struct nftnl_rule *r)
{
	limit(r, 1024, 1, 0, NFT_LIMIT_PKT_BYTES, 0);
	verdict(r, NF_ACCEPT, NULL);
}

static void fill_limit_over(struct nftnl_rule *r)
{
	limit(r, 10, 1, 5, NFT_LIMIT_PKTS, NFT_LIMIT_F_INV);
	verdict(r, NF_DROP, NULL);
}

static void fill_limit_week(struct nftnl_rule *r)
{
	limit(r, 10, 7 * 24 * 60 * 60, 5, NFT_LIMIT_PKTS, 0);
	verdict(r, NF_ACCEPT, NULL);
}

static void fill_limit_fast(struct nftnl_rule *r)
{
	limit(r, 20000, 1, 5, NFT_LIMIT_PKTS, 0);
	verdict(r, NF_ACCEPT, NULL);
}

static void fill_limit_burst0(struct nftnl_rule *r)
{
	limit(r, 10, 1, 0, NFT_LIMIT_PKTS, 0);
	verdict(r, NF_ACCEPT, NULL);
}

static void fill_limit_twice(struct nftnl_rule *r)
{
	limit(r, 10, 1, 5, NFT_LIMIT_PKTS, 0);
	limit(r, 20, 1, 5, NFT_LIMIT_PKTS, 0);
	verdict(r, NF_ACCEPT, NULL);
}

static void xt_tg(struct nftnl_rule *r, const char *name, u32 with)
{
	struct nftnl_expr *e = nftnl_expr_alloc("target");
	u32 *info = malloc(4);	/* the expression owns it */

	*info = with;
	nftnl_expr_set_str(e, NFTNL_EXPR_TG_NAME, name);
	nftnl_expr_set_u32(e, NFTNL_EXPR_TG_REV, 0);
	nftnl_expr_set(e, NFTNL_EXPR_TG_INFO, info, 4);
	add(r, e);
}

static void fill_mark(struct nftnl_rule *r)
{
	xt_tg(r, "MARK", 1);
}

/* iptables-nft's -j REJECT --reject-with tcp-reset */
static void fill_reject(struct nftnl_rule *r)
{
	l4proto(r, IPPROTO_TCP);
	xt_tg(r, "REJECT", 7);
}

/* nft: tcp dport 5 log prefix "a b" level info drop */
static void fill_log_drop(struct nftnl_rule *r)
{
	struct nftnl_expr *e = nftnl_expr_alloc("log");

	l4proto(r, IPPROTO_TCP);
	th(r, 2, 2);
	cmp16(r, NFT_CMP_EQ, 5);
	nftnl_expr_set_str(e, NFTNL_EXPR_LOG_PREFIX, "a b");
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOG_LEVEL, 6);
	add(r, e);
	verdict(r, NF_DROP, NULL);
}

/* nft: reject with icmp type host-prohibited */
static void fill_nft_reject(struct nftnl_rule *r)
{
	struct nftnl_expr *e = nftnl_expr_alloc("reject");

	nftnl_expr_set_u32(e, NFTNL_EXPR_REJECT_TYPE, NFT_REJECT_ICMP_UNREACH);
	nftnl_expr_set_u8(e, NFTNL_EXPR_REJECT_CODE, 10);
	add(r, e);
}

/* A log with a match after it cannot be one iptables rule. */
static void fill_log_match(struct nftnl_rule *r)
{
	add(r, nftnl_expr_alloc("log"));
	l4proto(r, IPPROTO_TCP);
	verdict(r, NF_DROP, NULL);
}

static void fill_dscp(struct nftnl_rule *r)
{
	net(r, 1, 1);
	cmp8(r, NFT_CMP_EQ, 4);
	verdict(r, NF_DROP, NULL);
}

static void fill_port_noproto(struct nftnl_rule *r)
{
	th(r, 2, 2);
	cmp16(r, NFT_CMP_EQ, 80);
	verdict(r, NF_DROP, NULL);
}

static void fill_after_verdict(struct nftnl_rule *r)
{
	verdict(r, NF_DROP, NULL);
	l4proto(r, IPPROTO_TCP);
}

static void fill_nonprefix(struct nftnl_rule *r)
{
	static const u8 mask[4] = { 0xff, 0x00, 0xff, 0x00 };

	net(r, 12, 4);
	bitwise(r, mask, 4);
	cmp_be(r, NFT_CMP_EQ, "\x0a\x00\x01\x00", 4);
	verdict(r, NF_DROP, NULL);
}

/* ip saddr . tcp dport { ... } (the key spans two registers) */
static void fill_concat(struct nftnl_rule *r)
{
	l4proto(r, IPPROTO_TCP);
	net(r, 12, 4);
	lookup(r, "__cat", false, false);
	verdict(r, NF_ACCEPT, NULL);
}

static void test_refusals(void)
{
	struct nftnl_set *cat;

	one_rule(fill_string);
	refuse("xt match string without libxtables",
	       "rule 1 of chain FORWARD (handle");
	one_rule(fill_string);
	refuse("xt match string without libxtables", "xt match \"string\"");
	one_rule(fill_limit_bytes);
	refuse("nft limit in bytes", "limit in bytes");
	one_rule(fill_limit_over);
	refuse("nft limit rate over", "rate over");
	one_rule(fill_limit_week);
	refuse("nft limit per week", "per 604800 seconds");
	one_rule(fill_limit_fast);
	refuse("nft limit above 10000/second", "above -m limit's 10000/second");
	one_rule(fill_limit_burst0);
	refuse("nft limit burst 0", "burst 0");
	one_rule(fill_limit_twice);
	refuse("two limits in a rule", "a second limit");
	one_rule(fill_mark);
	refuse("xt target MARK without libxtables", "xt target \"MARK\"");
	one_rule(fill_log_match);
	refuse("a match after a log", "after a log");
	one_rule(fill_dscp);
	refuse("ip dscp", "payload load 1b @ network header + 1");
	one_rule(fill_port_noproto);
	refuse("th dport without a protocol", "dport without");
	one_rule(fill_after_verdict);
	refuse("an expression after the verdict", "after the verdict");
	one_rule(fill_nonprefix);
	refuse("a non-prefix address mask", "non-prefix mask");
	one_rule(fill_concat);
	cat = set("__cat", 8, 0);
	elem(cat, "\x0a\x00\x00\x01\x00\x16\x00\x00", 8, false);
	nfhp_xlate_add_set(x, cat);
	refuse("a lookup of a concatenation", "8-byte keys");

	start(NFPROTO_IPV4, "filter");
	chain("pre", NF_INET_PRE_ROUTING, false);
	refuse("a prerouting base chain", "input, forward and output only");
	start(NFPROTO_IPV4, "filter");
	chain("a", NF_INET_FORWARD, false);
	chain("b", NF_INET_FORWARD, false);
	refuse("two base chains at one hook", "share hook FORWARD");
}


/*
 * A stand-in for xt.c's libxtables printer: it knows "string", "recent",
 * "pkttype" and "owner" and the target "MARK", and shows what it was
 * handed.
 */
static bool fake_save_one(FILE *f, bool target, const char *name,
			  unsigned int rev, const void *data, size_t len,
			  unsigned char proto, bool proto_inv)
{
	if (!target && !strcmp(name, "pkttype") &&
	    len == sizeof(struct xt_pkttype_info)) {
		const struct xt_pkttype_info *p = data;

		fprintf(f, " -m pkttype type=%d inv=%d", p->pkttype, p->invert);
		return true;
	}
	if (target && !strcmp(name, "CONNMARK") && rev == 2 &&
	    len == sizeof(struct xt_connmark_tginfo2)) {
		const struct xt_connmark_tginfo2 *c = data;

		fprintf(f, " -j CONNMARK mode=%u ctmark=0x%x", c->mode,
			c->ctmark);
		return true;
	}
	if (!target && !strcmp(name, "limit") && rev == 0 &&
	    len == sizeof(struct xt_rateinfo)) {
		const struct xt_rateinfo *l = data;

		fprintf(f, " -m limit avg=%u burst=%u", l->avg, l->burst);
		return true;
	}
	if (!target && !strcmp(name, "conntrack") && rev == 3 &&
	    len == sizeof(struct xt_conntrack_mtinfo3)) {
		const struct xt_conntrack_mtinfo3 *c = data;

		fprintf(f, " -m conntrack flags=0x%x inv=0x%x status=0x%x",
			c->match_flags, c->invert_flags, c->status_mask);
		return true;
	}
	if (!target && !strcmp(name, "connmark") && rev == 1 &&
	    len == sizeof(struct xt_connmark_mtinfo1)) {
		const struct xt_connmark_mtinfo1 *m = data;

		fprintf(f, " -m connmark mark=0x%x/0x%x inv=%u", m->mark,
			m->mask, m->invert);
		return true;
	}
	if (!target && !strcmp(name, "addrtype") && rev == 1 &&
	    len == sizeof(struct xt_addrtype_info_v1)) {
		const struct xt_addrtype_info_v1 *a = data;

		fprintf(f, " -m addrtype src=0x%x dst=0x%x flags=0x%x",
			a->source, a->dest, a->flags);
		return true;
	}
	if (!target && !strcmp(name, "owner") && rev == 1 &&
	    len == sizeof(struct xt_owner_match_info)) {
		const struct xt_owner_match_info *o = data;

		fprintf(f, " -m owner uid=%u-%u gid=%u-%u match=%u inv=%u",
			o->uid_min, o->uid_max, o->gid_min, o->gid_max,
			o->match, o->invert);
		return true;
	}
	if (strcmp(name, target ? "MARK" : "string") &&
	    (target || strcmp(name, "recent")))
		return false;
	fprintf(f, " -%c %s --rev %u --len %zu --proto %s%u", target ? 'j' : 'm',
		name, rev, len, proto_inv ? "!" : "", proto);
	return true;
}

static const struct nfhp_print_ext fake_print = {
	.save_one = fake_save_one,
};

/* -p tcp -m string ... -m recent ... -j MARK ... */
static void fill_xt_through(struct nftnl_rule *r)
{
	static const u8 info[64];

	l4proto(r, IPPROTO_TCP);
	xt(r, "string", 1, info, sizeof(info));
	xt(r, "recent", 0, info, 16);
	xt_tg(r, "MARK", 1);
}

static void fill_xt_unknown(struct nftnl_rule *r)
{
	static const u8 info[8];

	xt(r, "nosuch", 0, info, sizeof(info));
	verdict(r, NF_DROP, NULL);
}

static void fill_xt_after_verdict(struct nftnl_rule *r)
{
	verdict(r, NF_DROP, NULL);
	xt_tg(r, "MARK", 1);
}

/* nft: meta pkttype broadcast meta skuid != 1000 drop */
static void fill_pkttype_skuid(struct nftnl_rule *r)
{
	meta(r, NFT_META_PKTTYPE);
	cmp8(r, NFT_CMP_EQ, 1);	/* PACKET_BROADCAST */
	meta(r, NFT_META_SKUID);
	cmp32(r, NFT_CMP_NEQ, 1000);
	verdict(r, NF_DROP, NULL);
}

/* nft: meta skgid != 100-200 meta skuid 7 accept (byteorder, then range) */
static void fill_owner_range(struct nftnl_rule *r)
{
	struct nftnl_expr *e = nftnl_expr_alloc("byteorder");
	u32 lo = htonl(100), hi = htonl(200);

	meta(r, NFT_META_SKGID);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_OP, NFT_BYTEORDER_HTON);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_LEN, 4);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SIZE, 4);
	add(r, e);
	e = nftnl_expr_alloc("range");
	nftnl_expr_set_u32(e, NFTNL_EXPR_RANGE_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_RANGE_OP, NFT_RANGE_NEQ);
	nftnl_expr_set(e, NFTNL_EXPR_RANGE_FROM_DATA, &lo, 4);
	nftnl_expr_set(e, NFTNL_EXPR_RANGE_TO_DATA, &hi, 4);
	add(r, e);
	meta(r, NFT_META_SKUID);
	cmp32(r, NFT_CMP_EQ, 7);
	verdict(r, NF_ACCEPT, NULL);
}

static void fib(struct nftnl_rule *r, u32 flags)
{
	struct nftnl_expr *e = nftnl_expr_alloc("fib");

	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_ADDRTYPE);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS, flags);
	add(r, e);
}

/* nft: fib daddr . iif type != local fib saddr type broadcast drop */
static void fill_addrtype(struct nftnl_rule *r)
{
	fib(r, NFTA_FIB_F_DADDR | NFTA_FIB_F_IIF);
	cmp32(r, NFT_CMP_NEQ, 2);	/* RTN_LOCAL */
	fib(r, NFTA_FIB_F_SADDR);
	cmp32(r, NFT_CMP_EQ, 3);	/* RTN_BROADCAST */
	verdict(r, NF_DROP, NULL);
}

/* nft: fib saddr . oif oif missing drop (rpfilter): no addrtype */
static void fill_rpfilter(struct nftnl_rule *r)
{
	struct nftnl_expr *e = nftnl_expr_alloc("fib");

	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_OIF);
	nftnl_expr_set_u32(e, NFTNL_EXPR_FIB_FLAGS,
			   NFTA_FIB_F_SADDR | NFTA_FIB_F_IIF);
	add(r, e);
	cmp32(r, NFT_CMP_EQ, 0);
	verdict(r, NF_DROP, NULL);
}

/* nft: ct mark & 0xff00 != 0x100 accept */
static void fill_ctmark(struct nftnl_rule *r)
{
	struct nftnl_expr *e = nftnl_expr_alloc("ct");
	static const u32 mask = 0xff00;	/* host order, as ct mark is */

	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_MARK);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	add(r, e);
	bitwise(r, &mask, 4);
	cmp32(r, NFT_CMP_NEQ, 0x100);
	verdict(r, NF_ACCEPT, NULL);
}

static void imm32(struct nftnl_rule *r, u32 v)	/* host order */
{
	struct nftnl_expr *e = nftnl_expr_alloc("immediate");

	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_1);
	nftnl_expr_set(e, NFTNL_EXPR_IMM_DATA, &v, 4);
	add(r, e);
}

static void stmt(struct nftnl_rule *r, const char *name, u32 key)
{
	struct nftnl_expr *e = nftnl_expr_alloc(name);

	nftnl_expr_set_u32(e, name[0] == 'm' ? NFTNL_EXPR_META_KEY :
			   NFTNL_EXPR_CT_KEY, key);
	nftnl_expr_set_u32(e, name[0] == 'm' ? NFTNL_EXPR_META_SREG :
			   NFTNL_EXPR_CT_SREG, NFT_REG_1);
	add(r, e);
}

/* nft: tcp meta mark set 0x5 accept */
static void fill_mark_set(struct nftnl_rule *r)
{
	l4proto(r, IPPROTO_TCP);
	imm32(r, 5);
	stmt(r, "meta", NFT_META_MARK);
	verdict(r, NF_ACCEPT, NULL);
}

/* nft: ct mark set meta mark */
static void fill_ctmark_save(struct nftnl_rule *r)
{
	meta(r, NFT_META_MARK);
	stmt(r, "ct", NFT_CT_MARK);
}

/* nft: meta mark 0x1 meta mark set 0x2 accept */
static void fill_mark_set_reads(struct nftnl_rule *r)
{
	meta(r, NFT_META_MARK);
	cmp32(r, NFT_CMP_EQ, 1);
	imm32(r, 2);
	stmt(r, "meta", NFT_META_MARK);
	verdict(r, NF_ACCEPT, NULL);
}

/* ct status & @bits != 0 */
static void ct_status_bits(struct nftnl_rule *r, u32 bits)
{
	struct nftnl_expr *e = nftnl_expr_alloc("ct");

	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_STATUS);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	add(r, e);
	bitwise(r, &bits, 4);	/* host order, as ct status is */
	cmp32(r, NFT_CMP_NEQ, 0);
}

/* nft: ct status dnat accept: DNAT is a --ctstate of iptables */
static void fill_ctstatus_dnat(struct nftnl_rule *r)
{
	ct_status_bits(r, 0x20);	/* IPS_DST_NAT */
	verdict(r, NF_ACCEPT, NULL);
}

/* nft: ct status assured ct direction reply accept */
static void fill_ctstatus(struct nftnl_rule *r)
{
	struct nftnl_expr *e;

	ct_status_bits(r, 0x4);		/* IPS_ASSURED */
	e = nftnl_expr_alloc("ct");
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_DIRECTION);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	add(r, e);
	cmp8(r, NFT_CMP_EQ, 1);	/* IP_CT_DIR_REPLY */
	verdict(r, NF_ACCEPT, NULL);
}

static void test_xt_through(void)
{
	nfhp_print_set_ext(&fake_print);
	one_rule(fill_xt_through);
	expect("xt matches and a target through the printer", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -p tcp -m string --rev 1 --len 64 --proto 6"
	       " -m recent --rev 0 --len 16 --proto 6"
	       " -j MARK --rev 0 --len 4 --proto 6\n");
	one_rule(fill_pkttype_skuid);
	expect("meta pkttype and skuid as xt pkttype and owner", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -m pkttype type=1 inv=0"
	       " -m owner uid=1000-1000 gid=0-0 match=1 inv=1 -j DROP\n");
	one_rule(fill_owner_range);
	expect("meta skgid range (byteorder) and skuid: one -m owner", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -m owner uid=7-7 gid=100-200 match=3 inv=2"
	       " -j ACCEPT\n");
	one_rule(fill_addrtype);
	expect("fib daddr . iif type != local, saddr type broadcast: addrtype",
	       NULL, ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -m addrtype src=0x8 dst=0x4 flags=0x6 -j DROP\n");
	one_rule(fill_ctmark);
	expect("ct mark & mask != value: -m connmark", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -m connmark mark=0x100/0xff00 inv=1 -j ACCEPT\n");
	one_rule(fill_mark_set);
	expect("meta mark set, then accept: two rules", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -p tcp -j MARK --rev 2 --len 8 --proto 6\n"
	       "-A FORWARD -p tcp -j ACCEPT\n");
	one_rule(fill_ctmark_save);
	expect("ct mark set meta mark: CONNMARK --save-mark", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -j CONNMARK mode=1 ctmark=0x0\n");
	one_rule(fill_mark_set_reads);
	refuse("meta mark set in a rule matching the mark", "matches the mark");
	one_rule(fill_ctstatus);
	expect("ct status assured, ct direction reply: one -m conntrack", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -m conntrack flags=0x1040 inv=0x1000 status=0x4"
	       " -j ACCEPT\n");
	one_rule(fill_ctstatus_dnat);
	refuse("ct status dnat (a --ctstate of iptables)", "ct status compared");
	one_rule(fill_rpfilter);
	refuse("fib ... oif (rpfilter)", "only saddr or daddr");
	one_rule(fill_xt_unknown);
	refuse("an xt match the printer does not know", "xt match \"nosuch\"");
	one_rule(fill_xt_after_verdict);
	refuse("an xt target after the verdict", "after the verdict");
	nfhp_print_set_ext(NULL);
}

/*
 * The time between packets as iptables-nft computes it (libxt_limit then
 * prints 5000 as 2/sec, which import.sh checks against iptables-nft-save).
 */
static void test_limits(void)
{
	static const struct {
		void (*fill)(struct nftnl_rule *r);
		const char *name;
		const char *line;
	} cases[] = {
		{ fill_limit, "nft limit 5/minute burst 7: -m limit",
		  "-A FORWARD -p icmp -m limit avg=120000 burst=7 -j ACCEPT" },
		{ fill_limits, "nft limit per hour",
		  "-A FORWARD -m limit avg=12000000 burst=5 -j ACCEPT" },
		{ fill_limit_sec, "nft limit 120/minute, as 2/sec would be",
		  "-A FORWARD -m limit avg=5000 burst=5 -j ACCEPT" },
		{ fill_limit_day, "nft limit per day",
		  "-A FORWARD -m limit avg=123428571 burst=1 -j ACCEPT" },
	};
	char want[256];
	unsigned int i;

	nfhp_print_set_ext(&fake_print);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		one_rule(cases[i].fill);
		snprintf(want, sizeof(want), ":INPUT ACCEPT [0:0]\n"
			 ":FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n%s\n",
			 cases[i].line);
		expect(cases[i].name, NULL, want);
	}
	nfhp_print_set_ext(NULL);
}

static void test_targets(void)
{
	one_rule(fill_reject);
	expect("xt target REJECT", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -p tcp -j REJECT --reject-with tcp-reset\n");
	one_rule(fill_nft_reject);
	expect("nft reject", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -j REJECT --reject-with icmp-host-prohibited\n");
	one_rule(fill_log_drop);
	expect("nft log then drop: two rules", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -p tcp -m tcp --dport 5 -j LOG --log-prefix \"a b\" --log-level 6\n"
	       "-A FORWARD -p tcp -m tcp --dport 5 -j DROP\n");
}

/* ip saddr { 10.0.0.0/8, 192.168.1.1 } counter (5 packets) accept */
static void test_counters(void)
{
	struct nftnl_expr *e;
	struct nftnl_rule *r;
	struct nftnl_set *a;

	start(NFPROTO_IPV4, "filter");
	ipt_chains(false);
	a = set("__set0", 4, NFT_SET_INTERVAL);
	elem(a, "\xc0\xa8\x01\x02", 4, true);
	elem(a, "\xc0\xa8\x01\x01", 4, false);
	elem(a, "\x0b\x00\x00\x00", 4, true);
	elem(a, "\x0a\x00\x00\x00", 4, false);
	nfhp_xlate_add_set(x, a);
	r = rule("FORWARD");
	net(r, 12, 4);
	lookup(r, "__set0", false, false);
	e = nftnl_expr_alloc("counter");
	nftnl_expr_set_u64(e, NFTNL_EXPR_CTR_PACKETS, 5);
	nftnl_expr_set_u64(e, NFTNL_EXPR_CTR_BYTES, 300);
	add(r, e);
	verdict(r, NF_ACCEPT, NULL);
	done(r);
	nfhp_xlate_set_counters(x, true);
	expect("counters: the first copy of an expanded rule has them", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "[5:300] -A FORWARD -s 10.0.0.0/8 -j ACCEPT\n"
	       "[0:0] -A FORWARD -s 192.168.1.1/32 -j ACCEPT\n");
}

static void test_foreign_objects(void)
{
	struct nftnl_rule *r;

	/* Objects of another table or family are ignored. */
	start(NFPROTO_IPV4, "filter");
	ipt_chains(false);
	table = "other";
	chain("FORWARD", NF_INET_FORWARD, true);
	r = rule("FORWARD");
	verdict(r, NF_DROP, NULL);
	done(r);
	table = "filter";
	family = NFPROTO_INET;
	r = rule("FORWARD");
	verdict(r, NF_DROP, NULL);
	done(r);
	family = NFPROTO_IPV4;
	expect("objects of other tables are ignored", NULL,
	       ":INPUT ACCEPT [0:0]\n"
	       ":FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n");
}

static void comment(struct nftnl_rule *r, const char *text)
{
	struct nftnl_udata_buf *u = nftnl_udata_buf_alloc(256);

	nftnl_udata_put_strz(u, NFTNL_UDATA_RULE_COMMENT, text);
	nftnl_rule_set_data(r, NFTNL_RULE_USERDATA, nftnl_udata_buf_data(u),
			    nftnl_udata_buf_len(u));
	nftnl_udata_buf_free(u);
}

/* meta nfproto ipv4 accept, what a takeover puts first in an inet chain. */
static struct nftnl_rule *ipv4_accept(const char *name)
{
	struct nftnl_rule *r = rule(name);

	meta(r, NFT_META_NFPROTO);
	cmp8(r, NFT_CMP_EQ, NFPROTO_IPV4);
	verdict(r, NF_ACCEPT, NULL);
	return r;
}

/* Is source chain @name marked by a takeover, after run()? */
static bool marked(const char *name)
{
	const char *src;
	bool base, drop;
	unsigned int i;

	for (i = 0; (src = nfhp_xlate_source(x, i, &base, &drop)); i++)
		if (!strcmp(src, name))
			return nfhp_xlate_source_marked(x, i);
	return false;
}

/*
 * The rules "nf-hipac import --takeover" leaves behind are noted, not
 * translated, and mark their chain; the same comment on another rule is
 * only a comment.
 */
static void test_takeover_marks(void)
{
	struct nftnl_rule *r;

	/* family ip: a flushed chain holds a rule that only counts */
	start(NFPROTO_IPV4, "filter");
	ipt_chains(true);
	r = rule("FORWARD");
	counter(r);
	comment(r, NFHP_TAKEOVER_MARK);
	done(r);
	r = rule("INPUT");
	l4proto(r, IPPROTO_UDP);
	verdict(r, NF_DROP, NULL);
	done(r);
	check(!run(NULL) && marked("FORWARD") && !marked("INPUT") &&
	      nfhp_xlate_nrules(x) == 1 && parses(),
	      "takeover: the mark of an ip chain marks it and is no rule");
	check(strstr(text, "\n# rule 1 of chain FORWARD (handle 1) is the mark of an earlier nf-hipac import --takeover: not imported\n") &&
	      !strstr(text, "-A FORWARD"),
	      "takeover: the mark is noted in the text");
	nfhp_xlate_free(x);

	/* family inet: "meta nfproto ipv4 accept" in front, then the rules */
	start(NFPROTO_INET, "six");
	chain("fwd", NF_INET_FORWARD, false);
	r = ipv4_accept("fwd");
	comment(r, NFHP_TAKEOVER_MARK_IPV4);
	done(r);
	r = rule("fwd");
	l4proto(r, IPPROTO_UDP);
	th(r, 2, 2);
	cmp16(r, NFT_CMP_EQ, 9);
	verdict(r, NF_DROP, NULL);
	done(r);
	check(!run(NULL) && marked("fwd") && nfhp_xlate_nrules(x) == 1 &&
	      strstr(text, "\n# rule 1 of chain fwd (handle 1) is the mark of an earlier nf-hipac import --takeover: not imported\n-A FORWARD -p udp -m udp --dport 9 -j DROP\n") &&
	      !strstr(text, "-j ACCEPT"),
	      "takeover: inet: the accept of the mark is left out, the rules behind it stay");
	nfhp_xlate_free(x);

	/* a flushed chain of an earlier version: its mark said IPv4 */
	start(NFPROTO_IPV4, "filter");
	ipt_chains(false);
	r = rule("INPUT");
	counter(r);
	comment(r, NFHP_TAKEOVER_MARK_IPV4);
	done(r);
	check(!run(NULL) && marked("INPUT") && nfhp_xlate_nrules(x) == 0,
	      "takeover: the mark of an earlier version is one too");
	nfhp_xlate_free(x);

	/* the same accept without the comment is an accept */
	start(NFPROTO_INET, "six");
	chain("fwd", NF_INET_FORWARD, false);
	done(ipv4_accept("fwd"));
	check(!run(NULL) && !marked("fwd") && nfhp_xlate_nrules(x) == 1,
	      "takeover: an unmarked ipv4 accept is a rule");
	nfhp_xlate_free(x);

	/* the comment on a rule that does something is only a comment */
	start(NFPROTO_IPV4, "filter");
	ipt_chains(false);
	r = rule("FORWARD");
	counter(r);
	verdict(r, NF_DROP, NULL);
	comment(r, NFHP_TAKEOVER_MARK);
	done(r);
	r = ipv4_accept("FORWARD");
	done(r);
	check(!run(NULL) && !marked("FORWARD") && nfhp_xlate_nrules(x) == 2,
	      "takeover: the mark's comment on a drop rule is a comment");
	nfhp_xlate_free(x);

	/* and so it is on a rule that counts twice */
	start(NFPROTO_IPV4, "filter");
	ipt_chains(false);
	r = rule("FORWARD");
	counter(r);
	counter(r);
	comment(r, NFHP_TAKEOVER_MARK);
	done(r);
	check(!run(NULL) && !marked("FORWARD") && nfhp_xlate_nrules(x) == 1,
	      "takeover: the mark's comment on another rule that counts is a comment");
	nfhp_xlate_free(x);
	x = NULL;
}

/* --- IPv6: ip6 tables and the two views of inet tables ------------------ */

static struct nftnl_expr *reject_expr(u32 type, u8 code)
{
	struct nftnl_expr *e = nftnl_expr_alloc("reject");

	nftnl_expr_set_u32(e, NFTNL_EXPR_REJECT_TYPE, type);
	nftnl_expr_set_u8(e, NFTNL_EXPR_REJECT_CODE, code);
	return e;
}

static const char v6_host[16] = "\x20\x01\x0d\xb8\x00\x01\0\0\0\0\0\0\0\0\0\x01";

/* Rules as ip6tables-nft 1.8.9 writes them (ip6 filter). */
static void build_ip6tables_nft(void)
{
	static const u8 m33[5] = { 0xff, 0xff, 0xff, 0xff, 0x80 };
	struct xl_ipt_icmp6 {
		u8 type, code[2], invflags;
	} ic = { .type = 128, .code = { 0, 0xff } };
	struct {
		u8 mode, limit;
	} hl = { .mode = 2, .limit = 5 };	/* IP6T_HL_LT */
	struct nftnl_rule *r;

	start(NFPROTO_IPV6, "filter");
	ipt_chains(false);

	/* -s 2001:db8::/32 -d 2001:db8:1::1/128 -p tcp --dport 22 */
	r = rule("INPUT");
	l4proto(r, IPPROTO_TCP);
	net(r, 8, 4);
	cmp_be(r, NFT_CMP_EQ, "\x20\x01\x0d\xb8", 4);
	net(r, 24, 16);
	cmp_be(r, NFT_CMP_EQ, v6_host, 16);
	th(r, 2, 2);
	cmp16(r, NFT_CMP_EQ, 22);
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	r = rule("INPUT");	/* ! -s 2001:db8:8000::/33 -j DROP */
	net(r, 8, 5);
	bitwise(r, m33, 5);
	cmp_be(r, NFT_CMP_NEQ, "\x20\x01\x0d\xb8\x80", 5);
	verdict(r, NF_DROP, NULL);
	done(r);

	/* -p ipv6-icmp -m icmp6 --icmpv6-type 128 -j ACCEPT */
	r = rule("INPUT");
	l4proto(r, IPPROTO_ICMPV6);
	xt(r, "icmp6", 0, &ic, sizeof(ic));
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	r = rule("INPUT");	/* nft: icmpv6 type nd-neighbor-solicit accept */
	l4proto(r, IPPROTO_ICMPV6);
	th(r, 0, 1);
	cmp8(r, NFT_CMP_EQ, 135);
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	r = rule("INPUT");	/* -m hl --hl-lt 5 -j DROP */
	xt(r, "hl", 0, &hl, sizeof(hl));
	verdict(r, NF_DROP, NULL);
	done(r);

	r = rule("INPUT");	/* nft: ip6 hoplimit 255 accept */
	net(r, 7, 1);
	cmp8(r, NFT_CMP_EQ, 255);
	verdict(r, NF_ACCEPT, NULL);
	done(r);
}

static void test_ip6(void)
{
	struct nftnl_rule *r;

	build_ip6tables_nft();
	expect("ip6: ip6tables-nft's rules", NULL,
	       ":INPUT ACCEPT [0:0]\n"
	       ":FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A INPUT -s 2001:db8::/32 -d 2001:db8:1::1/128 -p tcp -m tcp --dport 22 -j ACCEPT\n"
	       "-A INPUT ! -s 2001:db8:8000::/33 -j DROP\n"
	       "-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 128 -j ACCEPT\n"
	       "-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 135 -j ACCEPT\n"
	       "-A INPUT -m hl --hl-lt 5 -j DROP\n"
	       "-A INPUT -m hl --hl-eq 255 -j ACCEPT\n");
	build_ip6tables_nft();
	check(!run(NULL) && parses_family(NFHP_FAMILY_IPV6),
	      "ip6: the IPv6 restore parser takes it");
	check(nfhp_xlate_set_view(x, NFPROTO_IPV4) == -EINVAL,
	      "ip6: a table of ip6 has no IPv4 view");
	nfhp_xlate_free(x);

	start(NFPROTO_IPV6, "filter");	/* nft: reject */
	ipt_chains(false);
	r = rule("INPUT");
	add(r, reject_expr(NFT_REJECT_ICMP_UNREACH, 4));
	done(r);
	expect("ip6: reject is icmp6-port-unreachable", "INPUT",
	       ":INPUT ACCEPT [0:0]\n-F INPUT\n"
	       "-A INPUT -j REJECT --reject-with icmp6-port-unreachable\n");

	start(NFPROTO_IPV6, "filter");	/* ip6 nexthdr is not -p */
	ipt_chains(false);
	r = rule("INPUT");
	net(r, 6, 1);
	cmp8(r, NFT_CMP_EQ, IPPROTO_TCP);
	verdict(r, NF_DROP, NULL);
	done(r);
	refuse("ip6: ip6 nexthdr", "payload load 1b @ network header + 6");

	start(NFPROTO_IPV6, "filter");	/* ip6 saddr { ... } */
	ipt_chains(false);
	nfhp_xlate_add_set(x, set("__set0", 16, 0));
	r = rule("INPUT");
	net(r, 8, 16);
	lookup(r, "__set0", false, false);
	verdict(r, NF_DROP, NULL);
	done(r);
	refuse("ip6: a set of IPv6 addresses", "of IPv6 addresses");

	start(NFPROTO_IPV6, "filter");	/* a prefix mask with a hole */
	ipt_chains(false);
	r = rule("INPUT");
	net(r, 24, 2);
	bitwise(r, "\xff\x0f", 2);
	cmp_be(r, NFT_CMP_EQ, "\xfe\x00", 2);
	verdict(r, NF_DROP, NULL);
	done(r);
	refuse("ip6: a non-prefix mask", "non-prefix mask");
}

/* One inet table with rules for IPv4, for IPv6 and for both. */
static void build_inet(int view)
{
	struct nftnl_rule *r;

	start(NFPROTO_INET, "fw");
	chain("in", NF_INET_LOCAL_IN, true);
	check(!nfhp_xlate_set_view(x, view), "inet: the view is set");

	r = rule("in");		/* ip saddr 10.0.0.0/8 drop */
	meta(r, NFT_META_NFPROTO);
	cmp8(r, NFT_CMP_EQ, NFPROTO_IPV4);
	net(r, 12, 1);
	cmp8(r, NFT_CMP_EQ, 10);
	verdict(r, NF_DROP, NULL);
	done(r);

	r = rule("in");		/* ip6 saddr fe80::/10 accept */
	meta(r, NFT_META_NFPROTO);
	cmp8(r, NFT_CMP_EQ, NFPROTO_IPV6);
	net(r, 8, 2);
	bitwise(r, "\xff\xc0", 2);
	cmp_be(r, NFT_CMP_EQ, "\xfe\x80", 2);
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	r = rule("in");		/* tcp dport 22 accept: both */
	l4proto(r, IPPROTO_TCP);
	th(r, 2, 2);
	cmp16(r, NFT_CMP_EQ, 22);
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	r = rule("in");		/* icmpv6 type echo-request accept */
	meta(r, NFT_META_NFPROTO);
	cmp8(r, NFT_CMP_EQ, NFPROTO_IPV6);
	l4proto(r, IPPROTO_ICMPV6);
	th(r, 0, 1);
	cmp8(r, NFT_CMP_EQ, 128);
	verdict(r, NF_ACCEPT, NULL);
	done(r);

	r = rule("in");		/* meta protocol ip6 ip6 hoplimit 1 drop */
	meta(r, NFT_META_PROTOCOL);
	cmp16(r, NFT_CMP_EQ, 0x86dd);
	net(r, 7, 1);
	cmp8(r, NFT_CMP_EQ, 1);
	verdict(r, NF_DROP, NULL);
	done(r);

	r = rule("in");		/* meta nfproto != ipv4 udp dport 53 accept */
	meta(r, NFT_META_NFPROTO);
	cmp8(r, NFT_CMP_NEQ, NFPROTO_IPV4);
	l4proto(r, IPPROTO_UDP);
	th(r, 2, 2);
	cmp16(r, NFT_CMP_EQ, 53);
	verdict(r, NF_ACCEPT, NULL);
	done(r);
}

static void test_inet_views(void)
{
	build_inet(NFPROTO_IPV4);
	check(!run(NULL) && nfhp_xlate_nrules(x) == 2 &&
	      nfhp_xlate_nskipped(x) == 4 && parses(),
	      "inet: the IPv4 view has the rules IPv4 packets can match");
	expect("inet: IPv4 view", NULL,
	       ":INPUT DROP [0:0]\n"
	       ":FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A INPUT -s 10.0.0.0/8 -j DROP\n"
	       "# rule 2 of chain in (handle 2) matches IPv6 only: not imported\n"
	       "-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT\n"
	       "# rule 4 of chain in (handle 4) matches IPv6 only: not imported\n"
	       "# rule 5 of chain in (handle 5) matches IPv6 only: not imported\n"
	       "# rule 6 of chain in (handle 6) matches IPv6 only: not imported\n");
	build_inet(NFPROTO_IPV6);
	check(!run(NULL) && nfhp_xlate_nrules(x) == 5 &&
	      nfhp_xlate_nskipped(x) == 1 &&
	      parses_family(NFHP_FAMILY_IPV6) &&
	      strstr(text, "from nft table inet fw, IPv6 rules\n"),
	      "inet: the IPv6 view has the rules IPv6 packets can match");
	expect("inet: IPv6 view", NULL,
	       ":INPUT DROP [0:0]\n"
	       ":FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "# rule 1 of chain in (handle 1) matches IPv4 only: not imported\n"
	       "-A INPUT -s fe80::/10 -j ACCEPT\n"
	       "-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT\n"
	       "-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type 128 -j ACCEPT\n"
	       "-A INPUT -m hl --hl-eq 1 -j DROP\n"
	       "-A INPUT -p udp -m udp --dport 53 -j ACCEPT\n");

	/* one translation, both views in turn */
	build_inet(NFPROTO_IPV4);
	check(!run(NULL) && nfhp_xlate_nrules(x) == 2 &&
	      !nfhp_xlate_set_view(x, NFPROTO_IPV6) && !run(NULL) &&
	      nfhp_xlate_nrules(x) == 5 && nfhp_xlate_nskipped(x) == 1 &&
	      strstr(text, "-A INPUT -s fe80::/10 -j ACCEPT\n") &&
	      !strstr(text, "10.0.0.0"),
	      "inet: a second save after another view writes that view");
	nfhp_xlate_free(x);
	x = NULL;

	start(NFPROTO_INET, "fw");	/* reject: icmpx, in either family */
	chain("in", NF_INET_LOCAL_IN, false);
	nfhp_xlate_set_view(x, NFPROTO_IPV6);
	{
		struct nftnl_rule *r = rule("in");

		add(r, reject_expr(NFT_REJECT_ICMPX_UNREACH,
				   NFT_REJECT_ICMPX_ADMIN_PROHIBITED));
		done(r);
	}
	expect("inet: reject with icmpx admin-prohibited, IPv6", "in",
	       ":INPUT ACCEPT [0:0]\n-F INPUT\n"
	       "-A INPUT -j REJECT --reject-with icmp6-adm-prohibited\n");
}

/* --- named sets ------------------------------------------------------------ */

/* A named set of addresses, nft type ipv4_addr or ipv6_addr by @keylen. */
static struct nftnl_set *named(const char *name, int keylen, u32 flags)
{
	struct nftnl_set *s = set(name, keylen, 0);

	nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, keylen == 16 ? 8 : 7);
	nftnl_set_set_u32(s, NFTNL_SET_FLAGS, flags);
	return s;
}

/* An interval element with both ends, as newer dumps hold it. */
static void elem_range(struct nftnl_set *s, const void *lo, const void *hi,
		       int len)
{
	struct nftnl_set_elem *e = elem(s, lo, len, false);

	nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY_END, hi, len);
}

/* A rule of @ch: [meta nfproto @fam] ADDR [!=] @set [@v accept/drop] */
static void set_rule(const char *ch, int fam, bool dst, const char *name,
		     bool inv, int v)
{
	struct nftnl_rule *r = rule(ch);
	int len = fam == NFPROTO_IPV6 ? 16 : 4;

	if (family == NFPROTO_INET) {
		meta(r, NFT_META_NFPROTO);
		cmp8(r, NFT_CMP_EQ, fam);
	}
	if (len == 16)
		net(r, dst ? 24 : 8, 16);
	else
		net(r, dst ? 16 : 12, 4);
	lookup(r, name, inv, false);
	verdict(r, v, NULL);
	done(r);
}

static char keys[1024];

static int cat_key(void *data, const struct nfhp_set_entry *e)
{
	const struct nfhp_set_info *info = data;
	size_t n = strlen(keys);
	char key[64];

	nfhp_set_key_str(key, sizeof(key), info->family, e);
	snprintf(keys + n, sizeof(keys) - n, " %s", key);
	return 0;
}

/*
 * After run(): named set @i of the text, as nf-hipac gets it: "ALGO
 * LIMIT: KEY..." ("-" past the last set).
 */
static const char *named_keys(unsigned int i, u8 fam)
{
	const struct nftnl_set *s = nfhp_xlate_named_set(x, i);
	struct nfhp_set_info info;

	if (!s)
		return "-";
	if (nfhp_nft_set_info(s, fam, &info))
		return "malformed";
	snprintf(keys, sizeof(keys), "%s %s %u:", info.name, info.algo,
		 info.limit);
	if (nfhp_nft_set_keys(s, &info, cat_key, &info))
		return "malformed";
	return keys;
}

/* ip: a hash set by source and, negated, by destination; an unused set */
static void build_named_hash(void)
{
	struct nftnl_set *bl, *spare, *empty;

	start(NFPROTO_IPV4, "filter");
	ipt_chains(false);
	bl = named("bl", 4, 0);
	elem(bl, "\x0a\x00\x00\x02", 4, false);	/* as a hash dumps them */
	elem(bl, "\x0a\x00\x00\x01", 4, false);
	nfhp_xlate_add_set(x, bl);
	spare = named("spare", 4, 0);
	elem(spare, "\x0a\x00\x00\x09", 4, false);
	nfhp_xlate_add_set(x, spare);
	empty = named("empty", 4, 0);
	nfhp_xlate_add_set(x, empty);
	set_rule("INPUT", NFPROTO_IPV4, false, "bl", false, NF_DROP);
	set_rule("OUTPUT", NFPROTO_IPV4, true, "bl", true, NF_ACCEPT);
	set_rule("OUTPUT", NFPROTO_IPV4, true, "empty", false, NF_DROP);
}

/*
 * nft's interval set { 10.0.0.0/8, 192.168.1.1-192.168.1.5,
 * 255.255.255.0/24 } size 3, as the kernel dumps it: ends flagged, none
 * after the last, a stray end at 0; and one in newer dumps' form.
 */
static void build_named_lpm(void)
{
	struct nftnl_set *nets, *both;

	start(NFPROTO_IPV4, "filter");
	ipt_chains(false);
	nets = named("nets", 4, NFT_SET_INTERVAL);
	nftnl_set_set_u32(nets, NFTNL_SET_DESC_SIZE, 3);
	elem(nets, "\xff\xff\xff\x00", 4, false);
	elem(nets, "\xc0\xa8\x01\x06", 4, true);
	elem(nets, "\xc0\xa8\x01\x01", 4, false);
	elem(nets, "\x0b\x00\x00\x00", 4, true);
	elem(nets, "\x0a\x00\x00\x00", 4, false);
	elem(nets, "\x00\x00\x00\x00", 4, true);
	nfhp_xlate_add_set(x, nets);
	both = named("both", 4, NFT_SET_INTERVAL);
	elem_range(both, "\xfe\x00\x00\x00", "\xff\xff\xff\xff", 4);
	elem_range(both, "\x0a\x00\x00\x00", "\x0a\x00\x00\xff", 4);
	nfhp_xlate_add_set(x, both);
	set_rule("FORWARD", NFPROTO_IPV4, true, "nets", false, NF_ACCEPT);
	set_rule("FORWARD", NFPROTO_IPV4, false, "both", true, NF_DROP);
}

/* ip6: a hash set and an interval set of IPv6 addresses */
static void build_named_ip6(void)
{
	static const u8 h1[16] = { 0xfd, [15] = 1 }, h2[16] = { 0xfd, [15] = 2 };
	static const u8 one[16] = { [15] = 1 }, two[16] = { [15] = 2 };
	static const u8 lo[16] = { 0xfd, 1, [15] = 5 }, hi[16] = { 0xfd, 1, [15] = 9 };
	struct nftnl_set *v6, *n6;

	start(NFPROTO_IPV6, "filter");
	ipt_chains(false);
	v6 = named("v6", 16, 0);
	elem(v6, h2, 16, false);
	elem(v6, h1, 16, false);
	nfhp_xlate_add_set(x, v6);
	n6 = named("n6", 16, NFT_SET_INTERVAL);
	elem(n6, two, 16, true);	/* ::1 */
	elem(n6, one, 16, false);
	elem_range(n6, lo, hi, 16);	/* fd01::5-fd01::9 */
	nfhp_xlate_add_set(x, n6);
	set_rule("INPUT", NFPROTO_IPV6, false, "v6", false, NF_DROP);
	set_rule("INPUT", NFPROTO_IPV6, true, "n6", true, NF_ACCEPT);
}

/* inet: a set of each family, each looked up by the rules of its own */
static void build_named_inet(int view)
{
	static const u8 h6[16] = { 0xfd, [15] = 1 };
	struct nftnl_set *v4, *v6;

	start(NFPROTO_INET, "fw");
	chain("in", NF_INET_LOCAL_IN, false);
	nfhp_xlate_set_view(x, view);
	v4 = named("v4", 4, 0);
	elem(v4, "\x0a\x00\x00\x01", 4, false);
	nfhp_xlate_add_set(x, v4);
	v6 = named("v6", 16, 0);
	elem(v6, h6, 16, false);
	nfhp_xlate_add_set(x, v6);
	set_rule("in", NFPROTO_IPV4, false, "v4", false, NF_DROP);
	set_rule("in", NFPROTO_IPV6, true, "v6", true, NF_DROP);
}

static void test_named_sets(void)
{
	build_named_hash();
	check(!run(NULL) && parses() &&
	      !strcmp(named_keys(0, NFHP_FAMILY_IPV4),
		      "bl hash 0: 10.0.0.1 10.0.0.2") &&
	      !strcmp(named_keys(1, NFHP_FAMILY_IPV4), "empty hash 0:") &&
	      !strcmp(named_keys(2, NFHP_FAMILY_IPV4), "-"),
	      "named hash set: its hosts, sorted; an empty one; not the unused one");
	expect("named hash set: a set match by source, and negated by destination",
	       NULL, ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A INPUT -m set --match-set bl src -j DROP\n"
	       "-A OUTPUT -m set ! --match-set bl dst -j ACCEPT\n"
	       "-A OUTPUT -m set --match-set empty dst -j DROP\n");
	build_named_hash();
	check(!run("INPUT") &&
	      !strcmp(named_keys(0, NFHP_FAMILY_IPV4),
		      "bl hash 0: 10.0.0.1 10.0.0.2") &&
	      !strcmp(named_keys(1, NFHP_FAMILY_IPV4), "-"),
	      "named sets: --chain INPUT hands over the sets of INPUT only");
	nfhp_xlate_free(x);

	build_named_lpm();
	check(!run(NULL) && parses() &&
	      !strcmp(named_keys(0, NFHP_FAMILY_IPV4),
		      "nets lpm 5: 10.0.0.0/8 192.168.1.1 192.168.1.2/31 192.168.1.4/31 255.255.255.0/24") &&
	      !strcmp(named_keys(1, NFHP_FAMILY_IPV4),
		      "both lpm 0: 10.0.0.0/24 254.0.0.0/7"),
	      "interval set: lpm, a range split into prefixes, the limit raised to the keys");
	expect("interval set: set matches", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -m set --match-set nets dst -j ACCEPT\n"
	       "-A FORWARD -m set ! --match-set both src -j DROP\n");

	build_named_ip6();
	check(!run(NULL) && parses_family(NFHP_FAMILY_IPV6) &&
	      !strcmp(named_keys(0, NFHP_FAMILY_IPV6),
		      "v6 hash 0: fd00::1 fd00::2") &&
	      !strcmp(named_keys(1, NFHP_FAMILY_IPV6),
		      "n6 lpm 0: ::1 fd01::5 fd01::6/127 fd01::8/127"),
	      "ip6: named sets of IPv6 hosts and prefixes");
	expect("ip6: set matches", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A INPUT -m set --match-set v6 src -j DROP\n"
	       "-A INPUT -m set ! --match-set n6 dst -j ACCEPT\n");

	build_named_inet(NFPROTO_IPV4);
	check(!run(NULL) && parses() &&
	      strstr(text, "-A INPUT -m set --match-set v4 src -j DROP\n") &&
	      !strcmp(named_keys(0, NFHP_FAMILY_IPV4), "v4 hash 0: 10.0.0.1") &&
	      !strcmp(named_keys(1, NFHP_FAMILY_IPV4), "-"),
	      "inet: the IPv4 view refers to the IPv4 set alone");
	check(!nfhp_xlate_set_view(x, NFPROTO_IPV6) && !run(NULL) &&
	      parses_family(NFHP_FAMILY_IPV6) &&
	      strstr(text, "-A INPUT -m set ! --match-set v6 dst -j DROP\n") &&
	      !strcmp(named_keys(0, NFHP_FAMILY_IPV6), "v6 hash 0: fd00::1") &&
	      !strcmp(named_keys(1, NFHP_FAMILY_IPV6), "-"),
	      "inet: the IPv6 view refers to the IPv6 set alone");
	nfhp_xlate_free(x);
	x = NULL;
}

/* FORWARD: ip saddr @@name drop, the set of nft type @type and @flags. */
static void named_rule(const char *name, int keylen, u32 type, u32 flags)
{
	struct nftnl_set *s;

	start(NFPROTO_IPV4, "filter");
	ipt_chains(false);
	s = named(name, keylen, flags);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, type);
	nfhp_xlate_add_set(x, s);
	set_rule("FORWARD", NFPROTO_IPV4, false, name, false, NF_DROP);
}

/* FORWARD: the rule of @fill, with the named set of bl, 10.0.0.1. */
static void named_bl(void (*fill)(struct nftnl_rule *r))
{
	struct nftnl_set *bl;

	one_rule(fill);
	bl = named("bl", 4, 0);
	elem(bl, "\x0a\x00\x00\x01", 4, false);
	nfhp_xlate_add_set(x, bl);
}

/* tcp dport @ports accept */
static void fill_port_set(struct nftnl_rule *r)
{
	l4proto(r, IPPROTO_TCP);
	th(r, 2, 2);
	lookup(r, "bl", false, false);
	verdict(r, NF_ACCEPT, NULL);
}

/* iifname @bl accept */
static void fill_ifname_set(struct nftnl_rule *r)
{
	meta(r, NFT_META_IIFNAME);
	lookup(r, "bl", false, false);
	verdict(r, NF_ACCEPT, NULL);
}

/* ip saddr vmap @bl */
static void fill_vmap(struct nftnl_rule *r)
{
	net(r, 12, 4);
	lookup(r, "bl", false, true);
}

/* limit rate 5/minute ip saddr @bl accept */
static void fill_limit_set(struct nftnl_rule *r)
{
	limit(r, 5, 60, 5, NFT_LIMIT_PKTS, 0);
	net(r, 12, 4);
	lookup(r, "bl", false, false);
	verdict(r, NF_ACCEPT, NULL);
}

/* ip saddr & 255.255.255.0 == @bl drop */
static void fill_masked_set(struct nftnl_rule *r)
{
	net(r, 12, 4);
	bitwise(r, "\xff\xff\xff\x00", 4);
	lookup(r, "bl", false, false);
	verdict(r, NF_DROP, NULL);
}

/* ip saddr @bl tcp dport 22 accept */
static void fill_set_tcp(struct nftnl_rule *r)
{
	net(r, 12, 4);
	lookup(r, "bl", false, false);
	l4proto(r, IPPROTO_TCP);
	th(r, 2, 2);
	cmp16(r, NFT_CMP_EQ, 22);
	verdict(r, NF_ACCEPT, NULL);
}

/* meta skuid 0 ip saddr @bl drop */
static void fill_owner_set(struct nftnl_rule *r)
{
	meta(r, NFT_META_SKUID);
	cmp32(r, NFT_CMP_EQ, 0);
	net(r, 12, 4);
	lookup(r, "bl", false, false);
	verdict(r, NF_DROP, NULL);
}

static void test_named_refusals(void)
{
	named_bl(fill_port_set);
	refuse("named set: a port set", "a lookup of dport in named set bl");
	named_bl(fill_ifname_set);
	refuse("named set: an interface name set",
	       "a lookup of iifname in named set bl");
	named_bl(fill_vmap);
	refuse("named set: a verdict map", "a lookup in named map bl");
	named_rule("m", 4, 7, NFT_SET_MAP);
	refuse("named set: a map looked up as a set", "named set m: a map");
	named_rule("cat", 8, 7 << 6 | 13, NFT_SET_CONCAT);
	refuse("named set: a concatenation",
	       "named set cat: keys of 8 bytes (a concatenation)");
	named_rule("mark", 4, 19, 0);
	refuse("named set: keys of another type of 4 bytes",
	       "named set mark: keys of nft type 19, not ipv4_addr");
	named_rule("to", 4, 7, NFT_SET_TIMEOUT);
	refuse("named set: timeouts", "named set to: elements that time out");
	named_rule("dyn", 4, 7, NFT_SET_EVAL);
	refuse("named set: dynamic", "named set dyn: filled by rules");
	named_rule("a_name_of_thirty_two_characters_", 4, 7, 0);
	refuse("named set: a name too long for nf-hipac",
	       "a name longer than the 31 bytes");
	named_rule("my set", 4, 7, 0);
	refuse("named set: a name with a space", "named set my set: a name with a space");
	named_bl(fill_limit_set);
	refuse("named set: a lookup after a limit",
	       "a lookup in named set bl after a match that may keep state");
	named_bl(fill_masked_set);
	refuse("named set: a masked lookup",
	       "a lookup of a masked ip saddr in named set bl");

	named_bl(fill_set_tcp);
	expect("named set: the set match after the native matches", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -p tcp -m tcp --dport 22 -m set --match-set bl src -j ACCEPT\n");
	nfhp_print_set_ext(&fake_print);
	named_bl(fill_owner_set);
	expect("named set: the set match before the xtables matches", NULL,
	       ":INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n"
	       ":OUTPUT ACCEPT [0:0]\n"
	       "-A FORWARD -m set --match-set bl src -m owner uid=0-0 gid=0-0 match=1 inv=0 -j DROP\n");
	nfhp_print_set_ext(NULL);
}

int main(void)
{
	test_iptables_nft();
	test_sets();
	test_refusals();
	test_targets();
	test_limits();
	test_xt_through();
	test_counters();
	test_foreign_objects();
	test_takeover_marks();
	test_ip6();
	test_inet_views();
	test_named_sets();
	test_named_refusals();
	printf("%d tests, %d passed, %d failed\n", tests, tests - failures,
	       failures);
	return failures ? 1 : 0;
}
