// SPDX-License-Identifier: GPL-2.0
/*
 * test_set_flow: the algorithms of flow sets against a naive list.
 *
 *	test_set_flow [steps [seed]]
 *
 * "hash" (hosts) and "lpm" (prefixes), in each family, take random adds
 * (with and without update), deletes, lookups, finds and walks.  The keys
 * come from a small pool so that they collide, nest and come back after
 * a delete: a few addresses cut at several lengths (/1, the width, and
 * random ones; hosts only for "hash"), each with a protocol and a port
 * drawn from a few that meet at the ends (ports 0, 1, 65535, TCP and UDP
 * on the same port, ICMP type/code, a protocol without ports).  The
 * reference is a list of entries, searched whole: of those with the
 * packet's protocol and port, the longest prefix that holds the address
 * wins.  Every step's result, and the whole content at every walk, must
 * agree.  Allocation failures are injected on the way: a refused add
 * leaves the set as it was.  At the end every byte is given back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "set_algo.h"
#include "tap.h"
#include "xorshift.h"

#define POOL_SIZE	64
#define REF_MAX		POOL_SIZE

#include "set_ref.h"

static const struct algo_case algos[] = {
	{ &nfhp_set_flow_hash, true },
	{ &nfhp_set_flow_lpm, false },
};

/*
 * The entry of @r a packet's key @k hits: its protocol and port, the
 * longest prefix that holds its address.
 */
static bool ref_lookup(const struct ref_set *r, const struct nfhp_set_key *k,
		       unsigned int width, u32 *value)
{
	const struct nfhp_set_key *e;
	int best = -1;
	unsigned int i;

	for (i = 0; i < r->n; i++) {
		e = &r->e[i].key;
		if (e->proto != k->proto || e->port != k->port ||
		    prefix_of(k->addr, e->plen, width) != e->addr)
			continue;
		if (best < 0 || e->plen > r->e[best].key.plen)
			best = i;
	}
	if (best >= 0)
		*value = r->e[best].value;
	return best >= 0;
}

/* A protocol and port that meet others at the ends. */
static void random_proto_port(u8 family, struct nfhp_set_key *k)
{
	static const u16 ports[] = { 0, 1, 80, 65535 };

	switch (rnd() % 6) {
	case 0:
		k->proto = family == NFHP_FAMILY_IPV6 ? 58 : 1;
		k->port = 8 << 8 | (rnd() % 2);		/* echo, code 0 or 1 */
		break;
	case 1:
		k->proto = 47;				/* GRE: no ports */
		k->port = 0;
		break;
	case 2:
		k->proto = 132;				/* SCTP */
		k->port = ports[rnd() % ARRAY_SIZE(ports)];
		break;
	default:
		k->proto = rnd() % 2 ? 6 : 17;		/* TCP, UDP */
		k->port = ports[rnd() % ARRAY_SIZE(ports)];
	}
}

/*
 * Keys that collide, nest and hit the ends: a few base addresses, each
 * cut at several lengths; for hosts, the bases and their neighbours.
 */
static void make_pool(struct nfhp_set_key *pool, u8 family, bool hosts_only)
{
	unsigned int width = width_of(family), i, plen;
	nfhp_u128 base[4] = { 1, all_ones(width) };

	for (i = 2; i < ARRAY_SIZE(base); i++)
		base[i] = ((nfhp_u128)rnd() << 64 | rnd()) & all_ones(width);
	for (i = 0; i < POOL_SIZE; i++) {
		nfhp_u128 a = base[i % ARRAY_SIZE(base)];

		switch (hosts_only ? 0 : i / ARRAY_SIZE(base) % 4) {
		case 0:
			plen = width;
			a = (a + i / ARRAY_SIZE(base) % 3) & all_ones(width);
			break;
		case 1:
			plen = 1;
			break;
		case 2:
			plen = width - 1;
			break;
		default:
			plen = 1 + rnd() % width;
		}
		pool[i] = (struct nfhp_set_key){
			.addr = prefix_of(a, plen, width), .plen = plen };
		random_proto_port(family, &pool[i]);
	}
}

/* A packet's key near the pool's: its address, protocol and port or a
 * neighbour of them.
 */
static struct nfhp_set_key random_packet(const struct nfhp_set_key *pool,
					 u8 family)
{
	unsigned int width = width_of(family);
	struct nfhp_set_key k = pool[rnd() % POOL_SIZE];

	k.plen = width;
	switch (rnd() % 5) {
	case 0:
		break;
	case 1:
		k.addr |= all_ones(width) & ((nfhp_u128)rnd() <<
					     (rnd() % 2 ? 0 : 64));
		k.addr &= all_ones(width);
		break;
	case 2:
		k.port++;
		break;
	case 3:
		k.proto = k.proto == 6 ? 17 : 6;
		break;
	default:
		k.addr = (k.addr + 1) & all_ones(width);
	}
	return k;
}

static void step_lookup(struct run *r)
{
	struct nfhp_set_key k = random_packet(r->pool, r->family);
	u32 want = 0, got = 0;
	bool in_ref, in_set;

	in_ref = ref_lookup(&r->ref, &k, r->width, &want);
	in_set = r->c->algo->lookup(r->set, &k, &got);
	r->bad += in_ref != in_set || (in_ref && want != got);
	r->hits += in_set;
}

/*
 * Keys no flow set takes: protocol 0, a port on a protocol without one,
 * the other family's ICMP with a type, a prefix of 0 or too long, host
 * bits, an IPv6 address in IPv4; of "hash" a prefix.
 */
static bool refuses_bad_keys(struct run *r)
{
	u8 other_icmp = r->family == NFHP_FAMILY_IPV6 ? 1 : 58;
	const struct nfhp_set_key bad[] = {
		{ .addr = 1, .plen = r->width, .proto = 0 },
		{ .addr = 1, .plen = r->width, .proto = 47, .port = 1 },
		{ .addr = 1, .plen = r->width, .proto = other_icmp,
		  .port = 8 << 8 },
		{ .addr = 0, .plen = 0, .proto = 6 },
		{ .addr = 0, .plen = r->width + 1, .proto = 6 },
		{ .addr = 1, .plen = r->width - 8, .proto = 6 },
		{ .addr = (nfhp_u128)1 << 40, .plen = 32, .proto = 6 },
		{ .addr = 0, .plen = r->width - 8, .proto = 6 },
	};
	unsigned int i, n = ARRAY_SIZE(bad);
	bool ok = true;

	if (r->family == NFHP_FAMILY_IPV6)
		n--;			/* the 2^40 one is an IPv6 address */
	if (!r->c->hosts_only)
		n--;			/* a /W-8 prefix is a key of "lpm" */
	for (i = 0; i < n; i++)
		ok &= r->c->algo->add(&r->ctx, r->set, &bad[i], 1, true) ==
		      -EINVAL;
	return ok && r->c->algo->count(r->set) == r->ref.n;
}

static void run_one(const struct algo_case *c, u8 family, unsigned int steps)
{
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_set_gc gc = {};
	struct run r = { .c = c, .family = family,
			 .width = width_of(family),
			 .ctx = { .mem = &mem, .gc = &gc } };
	unsigned int walks_bad;

	make_pool(r.pool, family, c->hosts_only);
	r.set = c->algo->create(&r.ctx, family, rnd() % 64);
	check(r.set, "flow %s/%u: create", c->algo->name, r.width);
	if (!r.set)
		return;
	walks_bad = run_steps(&r, steps, step_lookup);
	check(!r.bad && r.hits > steps / 40,
	      "flow %s/%u: %u steps agree with the list (%u disagree, %u hits)",
	      c->algo->name, r.width, steps, r.bad, r.hits);
	check(!walks_bad && walk_agrees(c->algo, r.set, &r.ref),
	      "flow %s/%u: walks list what the list holds", c->algo->name,
	      r.width);
	check(refuses_bad_keys(&r), "flow %s/%u: bad keys refused, set unchanged",
	      c->algo->name, r.width);
	c->algo->destroy(&r.ctx, r.set);
	nfhp_set_gc_run(&r.ctx, true);
	check(!mem.used && !gc.bytes,
	      "flow %s/%u: every byte given back (%llu left)", c->algo->name,
	      r.width, (unsigned long long)mem.used);
}

/* The bulk run's key @i: four UDP ports of hosts spread over the space. */
static void bulk_key(struct nfhp_set_key *k, unsigned int i,
		     unsigned int width)
{
	k->addr = (nfhp_u128)(i / 4 * 2654435761u) << (width - 32);
	k->proto = 17;
	k->port = i % 4;
}

int main(int argc, char **argv)
{
	unsigned int steps = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
	unsigned int i, f;
	static const u8 families[] = { NFHP_FAMILY_IPV4, NFHP_FAMILY_IPV6 };

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0xf10;
	for (i = 0; i < ARRAY_SIZE(algos); i++) {
		for (f = 0; f < ARRAY_SIZE(families); f++) {
			run_one(&algos[i], families[f], steps);
			run_bulk(&algos[i], families[f], bulk_key);
		}
	}
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
