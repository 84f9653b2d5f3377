// SPDX-License-Identifier: GPL-2.0
/*
 * test_set: every algorithm of named sets against a naive list.
 *
 *	test_set [steps [seed]]
 *
 * Each algorithm, in each family, takes random adds (with and without
 * update), deletes, lookups, finds and walks, with the keys drawn from a
 * small pool so that they collide, nest and come back after a delete:
 * hosts for "hash", prefixes of every length for the others, the pool
 * holding /0, /1, the widths and the addresses 0, 1 and all ones.  The
 * reference is a list of (key, value), searched whole: the longest
 * prefix that holds the address wins.  Every step's result, and the
 * whole content at every walk, must agree.  Allocation failures are
 * injected on the way: a refused add leaves the set as it was.  At the
 * end every byte the set took is given back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "set_algo.h"
#include "tap.h"
#include "xorshift.h"

#define POOL_SIZE	48
#define REF_MAX		POOL_SIZE

#include "set_ref.h"

static const struct algo_case algos[] = {
	{ &nfhp_set_addr_hash, true },
	{ &nfhp_set_addr_lpm, false },
};

static bool key_holds(const struct nfhp_set_key *k, nfhp_u128 addr,
		      unsigned int width)
{
	return prefix_of(addr, k->plen, width) == k->addr;
}

/* The longest prefix of @r that holds @addr, as the packet path sees it. */
static bool ref_lookup(const struct ref_set *r, nfhp_u128 addr,
		       unsigned int width, u32 *value)
{
	int best = -1;
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (key_holds(&r->e[i].key, addr, width) &&
		    (best < 0 || r->e[i].key.plen > r->e[best].key.plen))
			best = i;
	if (best >= 0)
		*value = r->e[best].value;
	return best >= 0;
}

/* A random address near the pool's: one of them, or one off, or any. */
static nfhp_u128 random_addr(const struct nfhp_set_key *pool,
			     unsigned int width)
{
	nfhp_u128 a = pool[rnd() % POOL_SIZE].addr;

	switch (rnd() % 5) {
	case 0:
		return a;
	case 1:
		return (a - 1) & all_ones(width);
	case 2:
		return (a + 1) & all_ones(width);
	case 3:
		return (a | all_ones(width - 1 - rnd() % (width - 1))) &
		       all_ones(width);
	default:
		return ((nfhp_u128)rnd() << 64 | rnd()) & all_ones(width);
	}
}

/*
 * Keys that collide, nest and hit the ends: a few base addresses, each
 * cut at several lengths; for hosts, the bases and their neighbours.
 */
static void make_pool(struct nfhp_set_key *pool, unsigned int width,
		      bool hosts_only)
{
	nfhp_u128 base[8] = { 0, 1, all_ones(width), (nfhp_u128)1 << (width - 1) };
	unsigned int i, plen;

	for (i = 4; i < ARRAY_SIZE(base); i++)
		base[i] = ((nfhp_u128)rnd() << 64 | rnd()) & all_ones(width);
	for (i = 0; i < POOL_SIZE; i++) {
		nfhp_u128 a = base[i % ARRAY_SIZE(base)];

		if (hosts_only) {
			pool[i].addr = (a + i / ARRAY_SIZE(base)) &
				       all_ones(width);
			pool[i].plen = width;
			continue;
		}
		switch (i / ARRAY_SIZE(base)) {
		case 0:
			plen = width;
			break;
		case 1:
			plen = i % 2 ? 0 : 1;
			break;
		case 2:
			plen = width - 1;
			break;
		default:
			plen = rnd() % (width + 1);
		}
		pool[i].addr = prefix_of(a, plen, width);
		pool[i].plen = plen;
	}
}

static void step_lookup(struct run *r)
{
	struct nfhp_set_key k = { random_addr(r->pool, r->width), r->width };
	u32 want = 0, got = 0;
	bool in_ref, in_set;

	in_ref = ref_lookup(&r->ref, k.addr, r->width, &want);
	in_set = r->c->algo->lookup(r->set, &k, &got);
	r->bad += in_ref != in_set || (in_ref && want != got);
}

/* Keys no algorithm of the family takes: too long, or host bits set. */
static bool refuses_bad_keys(struct run *r)
{
	struct nfhp_set_key too_long = { 0, r->width + 1 };
	struct nfhp_set_key host_bits = { 1, r->width - 8 };
	struct nfhp_set_key v6_in_v4 = { (nfhp_u128)1 << 40, 32 };
	bool ok;

	ok = r->c->algo->add(&r->ctx, r->set, &too_long, 1, true) == -EINVAL &&
	     r->c->algo->add(&r->ctx, r->set, &host_bits, 1, true) == -EINVAL;
	if (r->family == NFHP_FAMILY_IPV4)
		ok &= r->c->algo->add(&r->ctx, r->set, &v6_in_v4, 1, true) ==
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

	make_pool(r.pool, r.width, c->hosts_only);
	r.set = c->algo->create(&r.ctx, family, rnd() % 64);
	check(r.set, "%s/%u: create", c->algo->name, r.width);
	if (!r.set)
		return;
	walks_bad = run_steps(&r, steps, step_lookup);
	check(!r.bad, "%s/%u: %u steps agree with the list (%u disagree)",
	      c->algo->name, r.width, steps, r.bad);
	check(!walks_bad && walk_agrees(c->algo, r.set, &r.ref),
	      "%s/%u: walks list what the list holds", c->algo->name, r.width);
	check(refuses_bad_keys(&r), "%s/%u: bad keys refused, set unchanged",
	      c->algo->name, r.width);
	c->algo->destroy(&r.ctx, r.set);
	nfhp_set_gc_run(&r.ctx, true);
	check(!mem.used && !gc.bytes, "%s/%u: every byte given back (%llu left)",
	      c->algo->name, r.width, (unsigned long long)mem.used);
}

/* The bulk run's key @i: hosts spread over the address space. */
static void bulk_key(struct nfhp_set_key *k, unsigned int i,
		     unsigned int width)
{
	k->addr = (nfhp_u128)(i * 2654435761u) << (width - 32);
}

int main(int argc, char **argv)
{
	unsigned int steps = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
	unsigned int i, f;
	static const u8 families[] = { NFHP_FAMILY_IPV4, NFHP_FAMILY_IPV6 };

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5e7;
	for (i = 0; i < ARRAY_SIZE(algos); i++) {
		for (f = 0; f < ARRAY_SIZE(families); f++) {
			run_one(&algos[i], families[f], steps);
			run_bulk(&algos[i], families[f], bulk_key);
		}
	}
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
