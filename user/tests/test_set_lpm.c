// SPDX-License-Identifier: GPL-2.0
/*
 * test_set_lpm: the "lpm" set at sizes test_set does not reach.
 *
 *	test_set_lpm [steps [seed]]
 *
 * test_set's pool of 48 keys keeps the lpm table at a few slots.  Here a
 * pool of thousands of prefixes, in clusters under random bases of random
 * lengths, drives the table through index sizes up to k = 8, short
 * prefixes that span many slots, the shared first bits shrinking (a key
 * outside the cluster) and growing back (the set emptied and refilled),
 * with injected allocation failures.  Each family grows the set to most
 * of the pool, shrinks it to a few keys, and grows it again; lookups,
 * finds and walks are checked against a list all along.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "set_algo.h"
#include "tap.h"
#include "set_phase.h"
#include "xorshift.h"

#define POOL		4000
#define CLUSTERS	12

static nfhp_u128 ones(unsigned int bits)
{
	return bits >= 128 ? ~(nfhp_u128)0 : ((nfhp_u128)1 << bits) - 1;
}

static nfhp_u128 rnd128(void)
{
	return (nfhp_u128)rnd() << 64 | rnd();
}

/**
 * struct lpm_run - one family's run
 * @width: the address bits
 * @ctx: the writer's context
 * @mem: its account
 * @gc: its retire list
 * @set: the set
 * @pool: the keys
 * @in: whether each is in the set
 * @value: the value of each that is
 * @n: how many are
 * @bad: disagreements
 */
struct lpm_run {
	unsigned int width;
	struct nfhp_set_ctx ctx;
	struct nfhp_mem mem;
	struct nfhp_set_gc gc;
	void *set;
	struct nfhp_set_key pool[POOL];
	bool in[POOL];
	u32 value[POOL];
	unsigned int n;
	unsigned int bad;
};

static const struct nfhp_set_algo *algo = &nfhp_set_addr_lpm;

/* Clusters of prefixes under bases of 0 to width / 2 bits; a few short. */
static void make_pool(struct lpm_run *r)
{
	nfhp_u128 base[CLUSTERS];
	unsigned int blen[CLUSTERS], i, c, plen, w = r->width;

	for (c = 0; c < CLUSTERS; c++) {
		blen[c] = c ? rnd() % (w / 2 + 1) : w / 4;
		base[c] = rnd128() & ones(w) & ~ones(w - blen[c]);
	}
	for (i = 0; i < POOL; i++) {
		/* Most in cluster 0, so that the set first shares its bits. */
		c = rnd() % 3 ? 0 : rnd() % CLUSTERS;
		if (rnd() % 10 == 0)
			plen = rnd() % (blen[c] + 9);
		else
			plen = blen[c] + rnd() % (w - blen[c] + 1);
		plen = plen > w ? w : plen;
		r->pool[i].addr = (base[c] | (rnd128() & ones(w - blen[c]))) &
				  ~ones(w - plen) & ones(w);
		r->pool[i].plen = plen;
	}
	r->pool[0] = (struct nfhp_set_key){ 0, 0 };
	r->pool[1] = (struct nfhp_set_key){ ones(w), w };
	r->pool[2] = (struct nfhp_set_key){ 0, w };
}

static int pool_index(const struct lpm_run *r, const struct nfhp_set_key *k)
{
	unsigned int i;

	for (i = 0; i < POOL; i++)
		if (r->in[i] && r->pool[i].plen == k->plen &&
		    r->pool[i].addr == k->addr)
			return i;
	return -1;
}

static bool ref_lookup(const struct lpm_run *r, nfhp_u128 a, u32 *value)
{
	int best = -1;
	unsigned int i;

	for (i = 0; i < POOL; i++) {
		const struct nfhp_set_key *k = &r->pool[i];

		if (!r->in[i] || (a & ~ones(r->width - k->plen)) != k->addr)
			continue;
		if (best < 0 || k->plen > r->pool[best].plen)
			best = i;
	}
	if (best >= 0)
		*value = r->value[best];
	return best >= 0;
}

/* The pool's keys are not unique: act on the first copy in the set. */
static void step_add(void *run, unsigned int i)
{
	struct lpm_run *r = run;
	bool update = rnd() % 2;
	u32 value = (u32)rnd();
	int j = pool_index(r, &r->pool[i]), got;

	set_fail_maybe();
	got = algo->add(&r->ctx, r->set, &r->pool[i], value, update);
	nfhp_shim_fail_countdown = 0;
	if (got != -ENOMEM)
		r->bad += !set_list_add(r->in, r->value, &r->n, j, i, value,
					update, got);
}

static void step_del(void *run, unsigned int i)
{
	struct lpm_run *r = run;
	int j = pool_index(r, &r->pool[i]), got;

	set_fail_maybe();
	got = algo->del(&r->ctx, r->set, &r->pool[i]);
	nfhp_shim_fail_countdown = 0;
	if (got != -ENOMEM)
		r->bad += !set_list_del(r->in, &r->n, j, got);
}

static void step_lookup(void *run)
{
	struct lpm_run *r = run;
	const struct nfhp_set_key *k = &r->pool[rnd() % POOL];
	struct nfhp_set_key a = { k->addr, r->width };
	u32 want = 0, got = 0;
	bool in_ref, in_set;

	switch (rnd() % 4) {
	case 0:
		a.addr |= rnd128() & ones(r->width - k->plen);
		break;
	case 1:
		a.addr = (a.addr | ones(r->width - k->plen)) & ones(r->width);
		break;
	case 2:
		a.addr = (a.addr - 1) & ones(r->width);
		break;
	default:
		a.addr = (a.addr | ones(r->width - k->plen)) + 1;
		a.addr &= ones(r->width);
	}
	in_ref = ref_lookup(r, a.addr, &want);
	in_set = algo->lookup(r->set, &a, &got);
	r->bad += in_ref != in_set || (in_ref && want != got);
}

static void step_find(void *run, unsigned int i)
{
	struct lpm_run *r = run;
	int j = pool_index(r, &r->pool[i]);
	u32 got = 0;
	bool in;

	in = algo->find(r->set, &r->pool[i], &got);
	r->bad += in != (j >= 0) || (j >= 0 && got != r->value[j]);
}

static int walk_one(void *arg, const struct nfhp_set_key *key, u32 value)
{
	struct lpm_run *r = arg;
	int j = pool_index(r, key);

	if (j < 0 || r->value[j] != value)
		r->bad++;
	return rnd() % 64 == 0;
}

static unsigned int walked;

static int walk_count(void *arg, const struct nfhp_set_key *key, u32 value)
{
	walked++;
	return walk_one(arg, key, value);
}

static bool walk_agrees(void *run)
{
	struct lpm_run *r = run;
	u64 cursor = 0;

	walked = 0;
	while (algo->walk(r->set, &cursor, walk_count, r))
		;
	return walked == r->n && algo->count(r->set) == r->n;
}

static const struct set_phase_ops steps_ops = {
	.add = step_add, .del = step_del, .find = step_find,
	.lookup = step_lookup, .walk_agrees = walk_agrees,
};

/* @steps random steps, adds weighted by @add_pct against deletes. */
static void phase(struct lpm_run *r, unsigned int steps, unsigned int add_pct)
{
	set_phase(&steps_ops, r, &r->ctx, &r->bad, POOL, steps, add_pct);
}

static void run_family(u8 family, unsigned int steps)
{
	static struct lpm_run r;
	unsigned int most = 0;

	memset(&r, 0, sizeof(r));
	r.width = family == NFHP_FAMILY_IPV6 ? 128 : 32;
	r.mem.limit = ~0ull;
	r.ctx = (struct nfhp_set_ctx){ .mem = &r.mem, .gc = &r.gc };
	make_pool(&r);
	r.set = algo->create(&r.ctx, family, 0);
	check(r.set, "lpm/%u: create", r.width);
	if (!r.set)
		return;
	phase(&r, steps, 90);
	most = r.n;
	phase(&r, 2 * steps, 0);
	check(!r.bad, "lpm/%u: grew to %u keys, shrank to %u: all agree",
	      r.width, most, r.n);
	phase(&r, steps, 80);
	check(!r.bad && walk_agrees(&r), "lpm/%u: grew again to %u: all agree",
	      r.width, r.n);
	algo->destroy(&r.ctx, r.set);
	nfhp_set_gc_run(&r.ctx, true);
	check(!r.mem.used && !r.gc.bytes, "lpm/%u: every byte given back",
	      r.width);
}

int main(int argc, char **argv)
{
	unsigned int steps = argc > 1 ? strtoul(argv[1], NULL, 0) : 30000;

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x1b3;
	run_family(NFHP_FAMILY_IPV4, steps);
	run_family(NFHP_FAMILY_IPV6, steps);
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
