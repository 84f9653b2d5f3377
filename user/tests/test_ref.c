// SPDX-License-Identifier: GPL-2.0
/*
 * Hand-checked cases for the naive reference classifier (sim/ref.c), the
 * oracle of the differential tests: first match, jump, goto, RETURN,
 * policies, fragments, interface wildcards, negation, the rule editing API.
 * Every expected verdict below was worked out by hand from the iptables
 * semantics (net/ipv4/netfilter/ip_tables.c, xt_tcpudp.c).
 */
#include "parse.h"
#include "../sim/ref.h"
#include "../sim/pkt.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static struct nfhp_cmdline *cl;

/* Apply one iptables command ("-A FORWARD ...", "-N foo", "-P ...") */
static int cmd(struct nfhp_ref *ref, const char *line)
{
	char buf[1024], *argv[64], err[256];
	int argc, ret;

	snprintf(buf, sizeof(buf), "%s", line);
	argv[0] = "iptables";
	argc = nfhp_split_line(buf, argv + 1, 62);
	ret = nfhp_parse_cmdline(argc + 1, argv, cl, err, sizeof(err));
	if (ret) {
		printf("# %s: %s\n", line, err);
		return -1000 - ret;
	}
	switch (cl->cmd) {
	case NFHP_CLI_APPEND:
		return nfhp_ref_insert(ref, cl->chain,
				       nfhp_ref_nrules(ref, cl->chain) + 1,
				       &cl->spec);
	case NFHP_CLI_INSERT:
		return nfhp_ref_insert(ref, cl->chain, cl->pos ? cl->pos : 1,
				       &cl->spec);
	case NFHP_CLI_NEW_CHAIN:
		return nfhp_ref_chain_new(ref, cl->chain);
	case NFHP_CLI_POLICY:
		return nfhp_ref_policy(ref, cl->chain, cl->policy);
	default:
		return -EINVAL;
	}
}

static struct nfhp_ref *setup(const char *const *lines)
{
	struct nfhp_ref *ref = nfhp_ref_new(NFHP_FAMILY_IPV4);
	int ret;

	for (; *lines; lines++) {
		ret = cmd(ref, *lines);
		if (ret) {
			printf("Bail out! setup failed at %s (%d)\n", *lines,
			       ret);
			exit(1);
		}
	}
	return ref;
}

/* Classify a packet line and compare with "ACCEPT CHAIN N|policy". */
static void expect(struct nfhp_ref *ref, const char *pkt,
		   const char *want)
{
	struct nfhp_sim_pkt p;
	struct nfhp_ref_verdict v;
	char got[128], err[128];

	if (nfhp_sim_parse_packet(pkt, &p, err, sizeof(err))) {
		check(false, "packet %s: %s", pkt, err);
		return;
	}
	nfhp_ref_classify(ref, p.hook, &p.key, NULL, &v);
	if (v.pos)
		snprintf(got, sizeof(got), "%s %s %u",
			 v.action == NFHP_ACT_ACCEPT ? "ACCEPT" : "DROP",
			 v.chain, v.pos);
	else
		snprintf(got, sizeof(got), "%s %s %s%s",
			 v.action == NFHP_ACT_ACCEPT ? "ACCEPT" : "DROP",
			 v.chain, v.hotdrop ? "hotdrop" : "policy",
			 v.loop ? " loop" : "");
	check(!strcmp(got, want), "[%s] -> %s%s%s", pkt, want,
	      strcmp(got, want) ? " GOT " : "", strcmp(got, want) ? got : "");
}

static void test_policies(void)
{
	static const char *const r[] = {
		"-P FORWARD DROP", "-A INPUT -s 1.0.0.0/8 -j DROP", NULL,
	};
	struct nfhp_ref *ref = nfhp_ref_new(NFHP_FAMILY_IPV4);

	expect(ref, "hook=forward", "ACCEPT FORWARD policy");
	expect(ref, "hook=input", "ACCEPT INPUT policy");
	nfhp_ref_free(ref);
	ref = setup(r);
	expect(ref, "hook=forward src=1.2.3.4", "DROP FORWARD policy");
	expect(ref, "hook=input src=1.2.3.4", "DROP INPUT 1");
	expect(ref, "hook=input src=2.2.3.4", "ACCEPT INPUT policy");
	expect(ref, "hook=output src=1.2.3.4", "ACCEPT OUTPUT policy");
	nfhp_ref_free(ref);
}

static void test_first_match(void)
{
	static const char *const r[] = {
		"-A FORWARD -s 10.0.0.0/8 -j DROP",
		"-A FORWARD -m comment --comment count-only",
		"-A FORWARD -s 10.0.0.0/7 -j ACCEPT",
		"-A FORWARD -j DROP",
		NULL,
	};
	struct nfhp_ref *ref = setup(r);

	expect(ref, "src=10.255.255.255", "DROP FORWARD 1");
	expect(ref, "src=11.0.0.0", "ACCEPT FORWARD 3");
	expect(ref, "src=9.255.255.255", "DROP FORWARD 4");
	expect(ref, "src=12.0.0.0", "DROP FORWARD 4");
	nfhp_ref_free(ref);
}

static void test_jump_return(void)
{
	static const char *const r[] = {
		"-N foo",
		"-A FORWARD -p tcp -j foo",
		"-A FORWARD -j DROP",
		"-A foo -p tcp --dport 22 -j ACCEPT",
		"-A foo -s 1.1.1.1 -j RETURN",
		"-A foo -d 2.2.2.2 -j ACCEPT",
		NULL,
	};
	struct nfhp_ref *ref = setup(r);

	expect(ref, "proto=tcp dport=22", "ACCEPT foo 1");
	expect(ref, "proto=tcp dport=23 src=1.1.1.1 dst=2.2.2.2",
	       "DROP FORWARD 2");
	expect(ref, "proto=tcp dport=23 dst=2.2.2.2", "ACCEPT foo 3");
	expect(ref, "proto=tcp dport=23", "DROP FORWARD 2");
	expect(ref, "proto=udp dport=22 dst=2.2.2.2", "DROP FORWARD 2");
	nfhp_ref_free(ref);
}

static void test_goto(void)
{
	static const char *const r[] = {
		"-N a", "-N b", "-N c",
		"-A FORWARD -s 9.9.9.9 -g c",
		"-A FORWARD -j a",
		"-A FORWARD -j ACCEPT",
		"-A a -p tcp -g b",
		"-A a -j DROP",
		"-A b -p tcp --dport 80 -j DROP",
		"-A b -p tcp --dport 81 -j RETURN",
		"-A b -p tcp --dport 82 -j a",
		"-A c -j RETURN",
		"-P FORWARD DROP",
		NULL,
	};
	struct nfhp_ref *ref = setup(r);

	expect(ref, "proto=tcp dport=80", "DROP b 1");
	/* b ends: back after FORWARD 2, which called a; a is abandoned */
	expect(ref, "proto=tcp dport=83", "ACCEPT FORWARD 3");
	expect(ref, "proto=tcp dport=81", "ACCEPT FORWARD 3");
	expect(ref, "proto=udp", "DROP a 2");
	/* b jumps to a again: a's goto to b, b's jump again... is a loop */
	expect(ref, "proto=tcp dport=82", "DROP FORWARD policy loop");
	/* goto from the built-in chain: RETURN there means the policy */
	expect(ref, "src=9.9.9.9", "DROP FORWARD policy");
	nfhp_ref_free(ref);
}

static void test_return_builtin(void)
{
	static const char *const r[] = {
		"-A FORWARD -s 1.1.1.1 -j RETURN",
		"-A FORWARD -j ACCEPT",
		"-P FORWARD DROP",
		NULL,
	};
	struct nfhp_ref *ref = setup(r);

	expect(ref, "src=1.1.1.1", "DROP FORWARD policy");
	expect(ref, "src=1.1.1.2", "ACCEPT FORWARD 2");
	nfhp_ref_free(ref);
}

static void test_loops(void)
{
	static const char *const r[] = {
		"-N a", "-N b",
		"-A FORWARD -j a",
		"-A a -s 1.0.0.0/8 -j a",
		"-A a -s 2.0.0.0/8 -g b",
		"-A b -g a",
		NULL,
	};
	struct nfhp_ref *ref = setup(r);

	expect(ref, "src=1.1.1.1", "DROP FORWARD policy loop");
	expect(ref, "src=2.1.1.1", "DROP FORWARD policy loop");
	expect(ref, "src=3.1.1.1", "ACCEPT FORWARD policy");
	nfhp_ref_free(ref);
}

static void test_fragments(void)
{
	static const char *const r[] = {
		"-A FORWARD -p tcp --dport 22 -j DROP",
		"-A FORWARD -p tcp ! --dport 22 -j DROP",
		"-A FORWARD -p tcp ! --syn -j DROP",
		"-A FORWARD -p icmp ! --icmp-type 8 -j DROP",
		"-A FORWARD -p tcp -m multiport ! --dports 1,2 -j DROP",
		"-A FORWARD ! -f -p icmp -j ACCEPT",
		"-A FORWARD -f -p tcp -j ACCEPT",
		"-A FORWARD -j DROP",
		NULL,
	};
	struct nfhp_ref *ref = setup(r);

	expect(ref, "proto=tcp dport=22", "DROP FORWARD 1");
	expect(ref, "proto=tcp dport=23", "DROP FORWARD 2");
	/* port, flag, icmp and multiport matches never match fragments */
	expect(ref, "proto=tcp dport=22 frag=2", "ACCEPT FORWARD 7");
	expect(ref, "proto=icmp icmp=0/0 frag=1", "DROP FORWARD 8");
	expect(ref, "proto=icmp icmp=0/0", "DROP FORWARD 4");
	expect(ref, "proto=icmp icmp=8/0", "ACCEPT FORWARD 6");
	/* but the tcp match drops the one at offset 8 bytes */
	expect(ref, "proto=tcp dport=22 frag=1", "DROP FORWARD hotdrop");
	nfhp_ref_free(ref);
}

static void test_short_headers(void)
{
	static const char *const r[] = {
		"-A FORWARD -s 1.0.0.0/8 -p tcp --dport 22 -j DROP",
		"-A FORWARD -p udp -m multiport --dports 53 -j DROP",
		"-A FORWARD -p udp -m udp -j DROP",
		"-A FORWARD -p icmp -m icmp --icmp-type 8 -j DROP",
		"-A FORWARD -j ACCEPT",
		NULL,
	};
	struct nfhp_ref *ref = setup(r);

	expect(ref, "src=1.1.1.1 proto=tcp dport=22 l4len=20",
	       "DROP FORWARD 1");
	expect(ref, "src=1.1.1.1 proto=tcp dport=22 l4len=19",
	       "DROP FORWARD hotdrop");
	expect(ref, "src=2.1.1.1 proto=tcp dport=22 l4len=3",
	       "ACCEPT FORWARD 5");
	expect(ref, "proto=udp dport=53 l4len=4", "DROP FORWARD 2");
	expect(ref, "proto=udp dport=54 l4len=8", "DROP FORWARD 3");
	expect(ref, "proto=udp dport=54 l4len=7", "DROP FORWARD hotdrop");
	expect(ref, "proto=udp dport=53 l4len=3", "DROP FORWARD hotdrop");
	expect(ref, "proto=icmp icmp=8/0 l4len=7", "DROP FORWARD hotdrop");
	expect(ref, "proto=icmp icmp=0/0 frag=1", "ACCEPT FORWARD 5");
	nfhp_ref_free(ref);
}

static void test_interfaces(void)
{
	static const char *const r[] = {
		"-A FORWARD -i eth+ -o eth0 -j ACCEPT",
		"-A FORWARD ! -i wlan+ -o wlan1 -j ACCEPT",
		"-A FORWARD -i + -o lo -j ACCEPT",
		"-A FORWARD -j DROP",
		NULL,
	};
	struct nfhp_ref *ref = setup(r);

	expect(ref, "in=eth1 out=eth0", "ACCEPT FORWARD 1");
	expect(ref, "in=eth out=eth0", "ACCEPT FORWARD 1");
	expect(ref, "in=ethernet7 out=eth0", "ACCEPT FORWARD 1");
	expect(ref, "in=et out=eth0", "DROP FORWARD 4");
	expect(ref, "in=eth1 out=eth00", "DROP FORWARD 4");
	expect(ref, "in=eth1 out=eth", "DROP FORWARD 4");
	expect(ref, "in=eth1 out=wlan1", "ACCEPT FORWARD 2");
	expect(ref, "out=wlan1", "ACCEPT FORWARD 2");
	expect(ref, "in=wlan0 out=wlan1", "DROP FORWARD 4");
	expect(ref, "out=lo", "ACCEPT FORWARD 3");
	expect(ref, "in=abcdefghijklmno out=lo", "ACCEPT FORWARD 3");
	nfhp_ref_free(ref);
}

static void test_negation(void)
{
	static const char *const r[] = {
		"-A FORWARD ! -s 10.0.0.0/8 -j DROP",
		"-A FORWARD ! -p tcp -j ACCEPT",
		"-A FORWARD -p tcp -m multiport ! --dports 1:10,20 -j DROP",
		"-A FORWARD -m state ! --state NEW,ESTABLISHED -j DROP",
		"-A FORWARD -m iprange ! --dst-range 1.0.0.0-1.0.0.9 -j DROP",
		"-A FORWARD -m ttl ! --ttl-eq 64 -j DROP",
		"-A FORWARD -m mark ! --mark 0x1/0x1 -j DROP",
		"-A FORWARD -m length ! --length 100:200 -j DROP",
		"-A FORWARD -j ACCEPT",
		NULL,
	};
	struct nfhp_ref *ref = setup(r);
	const char *base = "src=10.0.0.1 proto=tcp dst=1.0.0.5 mark=3 len=150";
	char pkt[256];

	expect(ref, "src=11.0.0.1", "DROP FORWARD 1");
	expect(ref, "src=10.0.0.1 proto=udp", "ACCEPT FORWARD 2");
	snprintf(pkt, sizeof(pkt), "%s dport=11", base);
	expect(ref, pkt, "DROP FORWARD 3");
	snprintf(pkt, sizeof(pkt), "%s dport=20 state=related", base);
	expect(ref, pkt, "DROP FORWARD 4");
	snprintf(pkt, sizeof(pkt), "%s dport=5 state=established", base);
	expect(ref, pkt, "ACCEPT FORWARD 9");
	expect(ref, "src=10.0.0.1 proto=tcp dport=5 dst=1.0.0.10",
	       "DROP FORWARD 5");
	snprintf(pkt, sizeof(pkt), "%s dport=5 ttl=63", base);
	expect(ref, pkt, "DROP FORWARD 6");
	expect(ref, "src=10.0.0.1 proto=tcp dport=5 dst=1.0.0.5 mark=2",
	       "DROP FORWARD 7");
	expect(ref, "src=10.0.0.1 proto=tcp dport=5 dst=1.0.0.5 mark=1 len=99",
	       "DROP FORWARD 8");
	nfhp_ref_free(ref);
}

static void test_l4(void)
{
	static const char *const r[] = {
		"-A FORWARD -p tcp --syn -j DROP",
		"-A FORWARD -p tcp --tcp-flags SYN,ACK,FIN ACK -j ACCEPT",
		"-A FORWARD -p icmp --icmp-type echo-request -j ACCEPT",
		"-A FORWARD -p icmp --icmp-type 3/4 -j ACCEPT",
		"-A FORWARD -p udp -m multiport --ports 53,67:68 -j ACCEPT",
		"-A FORWARD -p udp --sport 1000:2000 --dport 3000 -j ACCEPT",
		"-A FORWARD -j DROP",
		NULL,
	};
	struct nfhp_ref *ref = setup(r);

	expect(ref, "proto=tcp flags=S", "DROP FORWARD 1");
	expect(ref, "proto=tcp flags=SP", "DROP FORWARD 1");
	expect(ref, "proto=tcp flags=SA", "DROP FORWARD 7");
	expect(ref, "proto=tcp flags=AP", "ACCEPT FORWARD 2");
	expect(ref, "proto=tcp flags=AF", "DROP FORWARD 7");
	expect(ref, "proto=icmp icmp=8/0", "ACCEPT FORWARD 3");
	expect(ref, "proto=icmp icmp=8/7", "ACCEPT FORWARD 3");
	expect(ref, "proto=icmp icmp=3/4", "ACCEPT FORWARD 4");
	expect(ref, "proto=icmp icmp=3/3", "DROP FORWARD 7");
	expect(ref, "proto=udp sport=53 dport=9", "ACCEPT FORWARD 5");
	expect(ref, "proto=udp sport=9 dport=68", "ACCEPT FORWARD 5");
	expect(ref, "proto=udp sport=9 dport=69", "DROP FORWARD 7");
	expect(ref, "proto=udp sport=1000 dport=3000", "ACCEPT FORWARD 6");
	expect(ref, "proto=udp sport=2001 dport=3000", "DROP FORWARD 7");
	/* icmp=, flags= and ports are dropped for other protocols */
	expect(ref, "proto=udp flags=S icmp=8/0 sport=53", "ACCEPT FORWARD 5");
	expect(ref, "proto=47 sport=53 dport=53", "DROP FORWARD 7");
	nfhp_ref_free(ref);
}

static void test_editing(void)
{
	struct nfhp_ref *ref = nfhp_ref_new(NFHP_FAMILY_IPV4);

	check(nfhp_ref_chain_new(ref, "FORWARD") == -EEXIST,
	      "new chain: built-in name exists");
	check(!nfhp_ref_chain_new(ref, "x") &&
	      nfhp_ref_chain_new(ref, "x") == -EEXIST, "new chain: twice");
	check(nfhp_ref_policy(ref, "x", NFHP_ACT_DROP) == -EINVAL,
	      "policy on a user chain");
	check(nfhp_ref_policy(ref, "nosuch", NFHP_ACT_DROP) == -ENOENT,
	      "policy on a missing chain");
	check(nfhp_ref_policy(ref, "INPUT", NFHP_ACT_RETURN) == -EINVAL,
	      "policy RETURN refused");
	check(cmd(ref, "-A FORWARD -s 1.0.0.0/8 -j DROP") == 0 &&
	      cmd(ref, "-A FORWARD -s 2.0.0.0/8 -j DROP") == 0 &&
	      cmd(ref, "-I FORWARD 2 -s 3.0.0.0/8 -j DROP") == 0 &&
	      cmd(ref, "-I FORWARD -s 4.0.0.0/8 -j DROP") == 0 &&
	      nfhp_ref_nrules(ref, "FORWARD") == 4, "insert and append");
	expect(ref, "src=4.0.0.1", "DROP FORWARD 1");
	expect(ref, "src=1.0.0.1", "DROP FORWARD 2");
	expect(ref, "src=3.0.0.1", "DROP FORWARD 3");
	expect(ref, "src=2.0.0.1", "DROP FORWARD 4");
	check(nfhp_ref_insert(ref, "FORWARD", 0, &cl->spec) == -EINVAL &&
	      nfhp_ref_insert(ref, "FORWARD", 6, &cl->spec) == -EINVAL &&
	      nfhp_ref_insert(ref, "nosuch", 1, &cl->spec) == -ENOENT,
	      "insert out of range");
	check(!nfhp_ref_delete(ref, "FORWARD", 1) &&
	      nfhp_ref_delete(ref, "FORWARD", 4) == -ENOENT &&
	      nfhp_ref_nrules(ref, "FORWARD") == 3, "delete");
	expect(ref, "src=4.0.0.1", "ACCEPT FORWARD policy");
	expect(ref, "src=2.0.0.1", "DROP FORWARD 3");
	cmd(ref, "-A x -j ACCEPT");
	check(!nfhp_ref_replace(ref, "FORWARD", 1, &cl->spec) &&
	      nfhp_ref_replace(ref, "FORWARD", 9, &cl->spec) == -ENOENT,
	      "replace");
	expect(ref, "src=4.0.0.1", "ACCEPT FORWARD 1");
	check(nfhp_ref_chain_delete(ref, "x") == -EINVAL &&
	      !nfhp_ref_flush(ref, "x") && !nfhp_ref_chain_delete(ref, "x") &&
	      nfhp_ref_chain_delete(ref, "INPUT") == -EINVAL,
	      "chain delete needs an empty user chain");
	check(!nfhp_ref_flush(ref, "FORWARD") &&
	      nfhp_ref_nrules(ref, "FORWARD") == 0, "flush");
	expect(ref, "src=2.0.0.1", "ACCEPT FORWARD policy");
	nfhp_ref_free(ref);
}

int main(void)
{
	cl = calloc(1, sizeof(*cl));
	if (!cl)
		return 1;
	test_policies();
	test_first_match();
	test_jump_return();
	test_goto();
	test_return_builtin();
	test_loops();
	test_fragments();
	test_short_headers();
	test_interfaces();
	test_negation();
	test_l4();
	test_editing();
	free(cl);
	printf("%d tests, %d passed, %d failed\n", tests, tests - failures,
	       failures);
	return failures ? 1 : 0;
}
