/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The naive reference of the set tests (test_set.c, test_set_flow.c): a
 * list of (key, value), the walk that must list it, and the add and
 * delete steps that keep it beside an algorithm's instance.  The includer
 * defines REF_MAX, the most entries, and includes xorshift.h first.
 */
#ifndef _NFHP_SET_REF_H
#define _NFHP_SET_REF_H

#include "set_algo.h"

/**
 * struct algo_case - an algorithm and the keys it takes
 * @algo: the algorithm
 * @hosts_only: it takes only full-width keys
 */
struct algo_case {
	const struct nfhp_set_algo *algo;
	bool hosts_only;
};

static unsigned int width_of(u8 family)
{
	return family == NFHP_FAMILY_IPV6 ? 128 : 32;
}

static nfhp_u128 all_ones(unsigned int width)
{
	return width == 128 ? ~(nfhp_u128)0 : ((nfhp_u128)1 << width) - 1;
}

/* @addr with the bits below a /@plen cleared. */
static nfhp_u128 prefix_of(nfhp_u128 addr, unsigned int plen,
			   unsigned int width)
{
	nfhp_u128 host = plen >= width ? 0 : all_ones(width - plen);

	return addr & ~host & all_ones(width);
}

/**
 * struct ref_entry - one key of the reference
 * @key: the key
 * @value: its value
 */
struct ref_entry {
	struct nfhp_set_key key;
	u32 value;
};

/**
 * struct ref_set - the naive reference: a list
 * @e: the entries, in no order
 * @n: how many
 */
struct ref_set {
	struct ref_entry e[REF_MAX];
	unsigned int n;
};

/* Keys of every type: address, prefix length, protocol and port. */
static bool key_eq(const struct nfhp_set_key *a, const struct nfhp_set_key *b)
{
	return a->addr == b->addr && a->plen == b->plen &&
	       a->proto == b->proto && a->port == b->port;
}

static int ref_index(const struct ref_set *r, const struct nfhp_set_key *k)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (key_eq(&r->e[i].key, k))
			return i;
	return -1;
}

/**
 * struct walk_check - what a walk of the set must list
 * @ref: the reference
 * @seen: which of its entries the walk listed
 * @bad: entries listed that are not in it, or listed twice, or with
 *	another value
 */
struct walk_check {
	const struct ref_set *ref;
	bool seen[REF_MAX];
	unsigned int bad;
};

static int walk_one(void *arg, const struct nfhp_set_key *key, u32 value)
{
	struct walk_check *w = arg;
	int i = ref_index(w->ref, key);

	/* Now and then refuse the entry: the next call must offer it again. */
	if (rnd() % 6 == 0)
		return -1;
	if (i < 0 || w->seen[i] || w->ref->e[i].value != value)
		w->bad++;
	else
		w->seen[i] = true;
	/* Stop now and then: the cursor must take the walk on. */
	return rnd() % 4 == 0;
}

static bool walk_agrees(const struct nfhp_set_algo *algo, const void *set,
			const struct ref_set *ref)
{
	struct walk_check w = { .ref = ref };
	u64 cursor = 0;
	unsigned int i;

	while (algo->walk(set, &cursor, walk_one, &w))
		;
	for (i = 0; i < ref->n; i++)
		if (!w.seen[i])
			w.bad++;
	return !w.bad && algo->count(set) == ref->n;
}

/**
 * struct run - one algorithm in one family, beside the reference
 * @c: the algorithm
 * @family: the family
 * @width: its address width
 * @ctx: the writer's context
 * @set: the instance
 * @ref: the reference
 * @pool: the keys, POOL_SIZE of them (the includer's)
 * @bad: steps that disagreed
 * @hits: lookups that found an entry
 */
struct run {
	const struct algo_case *c;
	u8 family;
	unsigned int width;
	struct nfhp_set_ctx ctx;
	void *set;
	struct ref_set ref;
	struct nfhp_set_key pool[POOL_SIZE];
	unsigned int bad;
	unsigned int hits;
};

/*
 * Add @k to the set and the reference, with or without update, now and
 * then out of memory (which must change nothing).
 */
static void step_add(struct run *r, const struct nfhp_set_key *k)
{
	bool update = rnd() % 2;
	u32 value = (u32)rnd();
	int i = ref_index(&r->ref, k), want, got;

	nfhp_shim_fail_countdown = rnd() % 8 == 0 ? 1 + rnd() % 2 : 0;
	got = r->c->algo->add(&r->ctx, r->set, k, value, update);
	nfhp_shim_fail_countdown = 0;
	if (got == -ENOMEM)
		return;
	if (i >= 0) {
		want = update ? NFHP_SET_UPDATED : NFHP_SET_EXISTS;
		if (update)
			r->ref.e[i].value = value;
	} else {
		want = NFHP_SET_ADDED;
		r->ref.e[r->ref.n++] = (struct ref_entry){ *k, value };
	}
	r->bad += got != want;
}

/* Delete @k from the set and the reference. */
static void step_del(struct run *r, const struct nfhp_set_key *k)
{
	int i = ref_index(&r->ref, k), got;

	got = r->c->algo->del(&r->ctx, r->set, k);
	if (i < 0) {
		r->bad += got != NFHP_SET_NOT_FOUND;
		return;
	}
	r->bad += got != NFHP_SET_DELETED;
	r->ref.e[i] = r->ref.e[--r->ref.n];
}

/* Find @k itself: the set's answer and value must be the reference's. */
static void step_find(struct run *r, const struct nfhp_set_key *k)
{
	int i = ref_index(&r->ref, k);
	u32 got = 0;
	bool in_set;

	in_set = r->c->algo->find(r->set, k, &got);
	r->bad += in_set != (i >= 0) || (i >= 0 && got != r->ref.e[i].value);
}

/*
 * @steps random adds, deletes, finds of the pool's keys and lookups
 * (@lookup, the test's), walks now and then, grace periods on the way.
 * Return: the walks that disagreed with the reference.
 */
static unsigned int run_steps(struct run *r, unsigned int steps,
			      void (*lookup)(struct run *r))
{
	unsigned int s, walks_bad = 0;

	for (s = 0; s < steps; s++) {
		const struct nfhp_set_key *k = &r->pool[rnd() % POOL_SIZE];

		switch (rnd() % 8) {
		case 0: case 1: case 2:
			step_add(r, k);
			break;
		case 3: case 4:
			step_del(r, k);
			break;
		case 5:
			step_find(r, k);
			break;
		default:
			lookup(r);
		}
		if (s % 97 == 0)
			walks_bad += !walk_agrees(r->c->algo, r->set, &r->ref);
		if (s % 13 == 0)
			nfhp_set_gc_run(&r->ctx, false);
		if (s % 31 == 0)
			synchronize_rcu();
	}
	return walks_bad;
}

/*
 * Many keys, key_of()'s 0 to 19,999 of @c's family: the sizes grow and
 * shrink through several rehashes.  Each is added (a /32 for prefixes),
 * found, every other one deleted, and then found or not.
 */
static void run_bulk(const struct algo_case *c, u8 family,
		     void (*key_of)(struct nfhp_set_key *k, unsigned int i,
				    unsigned int width))
{
	const char *tag = c->algo->type == NFHP_SET_FLOW ? "flow " : "";
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_set_gc gc = {};
	struct nfhp_set_ctx ctx = { .mem = &mem, .gc = &gc };
	unsigned int width = width_of(family), n = 20000, i, bad = 0;
	void *set = c->algo->create(&ctx, family, 0);
	struct nfhp_set_key k = {};
	u32 v;

	if (!set) {
		check(false, "%s%s/%u: bulk create", tag, c->algo->name, width);
		return;
	}
	for (i = 0; i < n; i++) {
		key_of(&k, i, width);
		k.plen = c->hosts_only ? width : 32;
		bad += c->algo->add(&ctx, set, &k, i, false) != NFHP_SET_ADDED;
	}
	for (i = 0; i < n; i++) {
		key_of(&k, i, width);
		k.plen = width;
		bad += !c->algo->lookup(set, &k, &v) || v != i;
		if (i % 2) {
			k.plen = c->hosts_only ? width : 32;
			bad += c->algo->del(&ctx, set, &k) != NFHP_SET_DELETED;
		}
	}
	for (i = 0; i < n; i++) {
		key_of(&k, i, width);
		k.plen = width;
		bad += c->algo->lookup(set, &k, &v) != !(i % 2);
	}
	check(!bad && c->algo->count(set) == n / 2,
	      "%s%s/%u: %u keys added, half deleted, the rest found (%u bad)",
	      tag, c->algo->name, width, n, bad);
	c->algo->destroy(&ctx, set);
	nfhp_set_gc_run(&ctx, true);
	check(!mem.used, "%s%s/%u: bulk: every byte given back", tag,
	      c->algo->name, width);
}

#endif /* _NFHP_SET_REF_H */
