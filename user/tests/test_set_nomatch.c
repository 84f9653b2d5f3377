// SPDX-License-Identifier: GPL-2.0
/*
 * test_set_nomatch: nomatch entries (ipset's "nomatch") of "lpm" sets
 * against a naive reference.
 *
 *	test_set_nomatch [steps [seed]]
 *
 * For addresses and flows, IPv4 and IPv6, with and without counters, a
 * set takes random adds (nomatch or not, with and without update, out
 * of memory now and then), removes, packets' lookups, tests with and
 * without "nomatch", walks, flushes and transactions committed or
 * aborted (without counters: a transaction's copy loses what packets
 * count meanwhile), over a pool of nested prefixes.  Hosts are probed at the
 * first and last address of a prefix, one past it, and inside it.  The
 * reference is a list of entries: a lookup takes the longest one that
 * holds the packet, and a nomatch one is a miss; its counts go up all
 * the same.  Every result, value, flag and count must agree.
 *
 * Then: a set that never took a nomatch entry reads no slot, one that
 * did does until a flush; "hash" refuses nomatch entries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "set.h"
#include "tap.h"
#include "xorshift.h"

#define POOL	40

/**
 * struct ref - one key of the pool, as the reference holds it
 * @key: the key
 * @has: it is in the set
 * @nomatch: a nomatch entry
 * @value: its value
 * @packets: the packets its lookups found it for
 */
struct ref {
	struct nfhp_set_key key;
	bool has;
	bool nomatch;
	u32 value;
	u64 packets;
};

/**
 * struct kind - a set of the run
 * @type: %NFHP_SET_ADDR or %NFHP_SET_FLOW
 * @family: its family
 * @counting: it has counters
 */
struct kind {
	u8 type;
	u8 family;
	bool counting;
};

static unsigned int width_of(const struct kind *k)
{
	return k->family == NFHP_FAMILY_IPV6 ? 128 : 32;
}

/* The bits of a @width-bit address above its last @plen bits. */
static nfhp_u128 prefix_mask(unsigned int width, unsigned int plen)
{
	nfhp_u128 all = width == 128 ? ~(nfhp_u128)0 :
			((nfhp_u128)1 << width) - 1;

	if (!plen)
		return 0;
	return all & ~((((nfhp_u128)1 << (width - plen)) - 1));
}

/* Does @e's prefix hold the host @h, with its protocol and port? */
static bool holds(const struct kind *k, const struct nfhp_set_key *e,
		  const struct nfhp_set_key *h)
{
	if (k->type == NFHP_SET_FLOW &&
	    (e->proto != h->proto || e->port != h->port))
		return false;
	return (h->addr & prefix_mask(width_of(k), e->plen)) == e->addr;
}

/* A pool of distinct nested prefixes: 10.0.0.0/8-like chains. */
static void make_pool(const struct kind *k, struct ref *ref)
{
	static const u8 lens4[] = { 0, 1, 8, 15, 16, 17, 24, 31, 32 };
	static const u8 lens6[] = { 0, 1, 32, 48, 63, 64, 65, 127, 128 };
	unsigned int w = width_of(k), i, j;
	struct nfhp_set_key key;
	nfhp_u128 base;

	for (i = 0; i < POOL;) {
		key = (struct nfhp_set_key){};
		key.plen = w == 32 ? lens4[rnd() % 9] : lens6[rnd() % 9];
		if (k->type == NFHP_SET_FLOW && !key.plen)
			key.plen = 1;
		/* Few distinct bits: the prefixes nest and touch. */
		base = w == 32 ? 0x0a000000 : (nfhp_u128)0x20010db8 << 96;
		base |= (nfhp_u128)(rnd() % 4) << (w - 16);
		base |= (nfhp_u128)(rnd() % 4) << (w - 24);
		base |= rnd() % 3;
		if (rnd() % 8 == 0)
			base = ~(nfhp_u128)0;
		key.addr = base & prefix_mask(w, key.plen);
		if (k->type == NFHP_SET_FLOW) {
			key.proto = rnd() % 2 ? 6 : 17;
			key.port = 80 + rnd() % 2;
		}
		for (j = 0; j < i; j++)
			if (!memcmp(&ref[j].key, &key, sizeof(key)))
				break;
		if (j < i)
			continue;
		ref[i++] = (struct ref){ .key = key };
	}
}

/* A host to probe: at an end of a pool prefix, one past it, or inside. */
static struct nfhp_set_key probe(const struct kind *k, const struct ref *ref)
{
	const struct nfhp_set_key *e = &ref[rnd() % POOL].key;
	unsigned int w = width_of(k);
	nfhp_u128 low = ~prefix_mask(w, e->plen) & prefix_mask(w, w);
	struct nfhp_set_key h = *e;

	switch (rnd() % 4) {
	case 0:
		break;
	case 1:
		h.addr |= low;
		break;
	case 2:
		h.addr = (h.addr | low) + 1;
		break;
	default:
		h.addr |= low & (((nfhp_u128)rnd() << 64) | rnd());
	}
	h.addr &= prefix_mask(w, w);
	h.plen = w;
	if (k->type == NFHP_SET_FLOW && rnd() % 8 == 0)
		h.port ^= 1;
	return h;
}

/* The reference's longest entry that holds @h, or NULL. */
static struct ref *best(const struct kind *k, struct ref *ref,
			const struct nfhp_set_key *h)
{
	struct ref *b = NULL;
	unsigned int i;

	for (i = 0; i < POOL; i++)
		if (ref[i].has && holds(k, &ref[i].key, h) &&
		    (!b || ref[i].key.plen > b->key.plen))
			b = &ref[i];
	return b;
}

/**
 * struct walk_check - a walk compared with the reference
 * @ref: the reference
 * @counting: the set counts
 * @seen: entries the walk gave
 * @bad: entries it gave wrong
 */
struct walk_check {
	const struct ref *ref;
	bool counting;
	unsigned int seen;
	unsigned int bad;
};

static int walk_one(void *arg, const struct nfhp_set_key *key, u32 value,
		    const struct nfhp_set_counts *counts, u32 eflags)
{
	struct walk_check *w = arg;
	const struct ref *r = NULL;
	unsigned int i;

	w->seen++;
	for (i = 0; i < POOL; i++)
		if (!memcmp(&w->ref[i].key, key, sizeof(*key)))
			r = &w->ref[i];
	if (!r || !r->has || r->value != value ||
	    !(eflags & NFHP_SETE_F_NOMATCH) != !r->nomatch ||
	    (eflags & ~NFHP_SETE_F_NOMATCH) || !counts != !w->counting ||
	    (counts && counts->packets != r->packets))
		w->bad++;
	return 0;
}

/* Does a walk of @set give the entries of @ref, and only them? */
static bool walk_ok(struct nfhp_sets *sets, struct nfhp_set *set,
		    const struct kind *k, const struct ref *ref)
{
	struct walk_check w = { .ref = ref, .counting = k->counting };
	unsigned int i, n = 0;
	u64 cursor = 0;

	nfhp_set_walk(sets, set, &cursor, walk_one, &w);
	for (i = 0; i < POOL; i++)
		n += ref[i].has;
	return !w.bad && w.seen == n;
}

/**
 * struct run - the state of one random run
 * @sets: the registry
 * @set: the set
 * @k: its kind
 * @live: the reference of what packets see
 * @staged: that of the open transaction's entries
 * @txn: a transaction is open
 */
struct run {
	struct nfhp_sets sets;
	struct nfhp_set *set;
	const struct kind *k;
	struct ref live[POOL];
	struct ref staged[POOL];
	bool txn;
};

/* An add of a random entry; false when the set disagreed. */
static bool step_add(struct run *r)
{
	struct ref *w = r->txn ? r->staged : r->live, *e = &w[rnd() % POOL];
	u32 value = rnd() % 4, flags = rnd() % 2 ? NFHP_SET_F_UPDATE : 0;
	bool nomatch = rnd() % 3 == 0, injected = rnd() % 8 == 0;
	int res;

	flags |= nomatch ? NFHP_SET_ADD_NOMATCH : 0;
	nfhp_shim_fail_countdown = injected ? 1 + rnd() % 3 : 0;
	res = nfhp_set_add(&r->sets, r->set, &e->key, value, NULL, flags);
	nfhp_shim_fail_countdown = 0;
	if (res == NFHP_SET_NOMEM && injected)
		return true;
	if (e->has && !(flags & NFHP_SET_F_UPDATE))
		return res == NFHP_SET_EXISTS;
	if (res != (e->has ? NFHP_SET_UPDATED : NFHP_SET_ADDED))
		return false;
	if (!e->has)
		e->packets = 0;
	e->has = true;
	e->nomatch = nomatch;
	e->value = value;
	return true;
}

/* A packet's lookup, or a test; false when the set disagreed. */
static bool step_read(struct run *r)
{
	struct nfhp_set_key h = probe(r->k, r->live);
	struct ref *b = best(r->k, r->live, &h), *e;
	bool hit, nomatch = rnd() % 2;
	u32 value;

	switch (rnd() % 3) {
	case 0:
		hit = nfhp_set_lookup(r->set, &h, 64, &value);
		if (b)
			b->packets++;
		return hit == (b && !b->nomatch) && (!hit || value == b->value);
	case 1:
		hit = nfhp_set_test(&r->sets, r->set, &h, &value, NULL,
				    nomatch);
		return hit == (b && b->nomatch == nomatch) &&
		       (!hit || value == b->value);
	default:
		/* A prefix must be an entry itself. */
		e = &r->live[rnd() % POOL];
		if (e->key.plen == width_of(r->k))
			return true;
		hit = nfhp_set_test(&r->sets, r->set, &e->key, &value, NULL,
				    nomatch);
		return hit == (e->has && e->nomatch == nomatch) &&
		       (!hit || value == e->value);
	}
}

/* One step of a random run; false when the set disagreed. */
static bool step(struct run *r)
{
	struct ref *w = r->txn ? r->staged : r->live, *e = &w[rnd() % POOL];
	unsigned int i;
	int res;

	switch (rnd() % 16) {
	case 0 ... 4:
		return step_add(r);
	case 5:
	case 6:
		res = nfhp_set_remove(&r->sets, r->set, &e->key);
		if (res != (e->has ? NFHP_SET_DELETED : NFHP_SET_NOT_FOUND))
			return false;
		e->has = false;
		return true;
	case 7:
		if (rnd() % 16)
			return true;
		if (nfhp_set_flush(&r->sets, r->set))
			return false;
		for (i = 0; i < POOL; i++)
			w[i].has = false;
		return true;
	case 8:
		/* A transaction loses what packets count meanwhile. */
		if (rnd() % 4 || r->k->counting)
			return true;
		if (!r->txn) {
			nfhp_sets_begin(&r->sets);
			memcpy(r->staged, r->live, sizeof(r->live));
			r->txn = true;
			return true;
		}
		if (rnd() % 3) {
			nfhp_sets_commit(&r->sets);
			memcpy(r->live, r->staged, sizeof(r->live));
		} else {
			nfhp_sets_abort(&r->sets);
		}
		r->txn = false;
		return walk_ok(&r->sets, r->set, r->k, r->live);
	case 9:
		synchronize_rcu();
		nfhp_sets_collect(&r->sets);
		return r->txn || walk_ok(&r->sets, r->set, r->k, r->live);
	default:
		return step_read(r);
	}
}

static const struct kind kinds[] = {
	{ NFHP_SET_ADDR, NFHP_FAMILY_IPV4, false },
	{ NFHP_SET_ADDR, NFHP_FAMILY_IPV4, true },
	{ NFHP_SET_ADDR, NFHP_FAMILY_IPV6, false },
	{ NFHP_SET_ADDR, NFHP_FAMILY_IPV6, true },
	{ NFHP_SET_FLOW, NFHP_FAMILY_IPV4, false },
	{ NFHP_SET_FLOW, NFHP_FAMILY_IPV4, true },
	{ NFHP_SET_FLOW, NFHP_FAMILY_IPV6, false },
	{ NFHP_SET_FLOW, NFHP_FAMILY_IPV6, true },
};

/* A set of @type's @algo, @family, with counters or not. */
static struct nfhp_set *make_set(struct nfhp_sets *sets, u8 type,
				 const char *algo, u8 family, bool counting)
{
	struct nfhp_set_spec spec;
	const char *msg = NULL;

	nfhp_set_spec_init(&spec, family, nfhp_set_algo_find(type, algo));
	spec.flags = counting ? NFHP_SET_F_COUNTERS : 0;
	if (!spec.algo || nfhp_set_create(sets, "n", &spec, &msg))
		return NULL;
	return nfhp_set_find(sets, "n");
}

static void run_random(unsigned long steps)
{
	struct run *r = calloc(1, sizeof(*r));
	unsigned int i, bad;
	unsigned long s;

	for (i = 0; r && i < ARRAY_SIZE(kinds); i++) {
		memset(r, 0, sizeof(*r));
		r->k = &kinds[i];
		nfhp_sets_init(&r->sets, NULL, ~0ull);
		r->set = make_set(&r->sets, r->k->type, "lpm", r->k->family,
				  r->k->counting);
		make_pool(r->k, r->live);
		bad = 0;
		for (s = 0; r->set && s < steps; s++)
			bad += !step(r);
		if (r->txn)
			nfhp_sets_abort(&r->sets);
		check(r->set && !bad && walk_ok(&r->sets, r->set, r->k, r->live),
		      "random: %s IPv%d%s: %lu steps, %u wrong",
		      r->k->type == NFHP_SET_ADDR ? "addr" : "flow",
		      r->k->family == NFHP_FAMILY_IPV6 ? 6 : 4,
		      r->k->counting ? " counters" : "", steps, bad);
		nfhp_sets_free(&r->sets);
	}
	free(r);
}

/* The blocklist of the documentation, and when a body reads slots. */
static void run_cases(void)
{
	struct nfhp_set_key p8 = { .addr = 0x0a000000, .plen = 8 };
	struct nfhp_set_key p16 = { .addr = 0x0a010000, .plen = 16 };
	struct nfhp_set_key in16 = { .addr = 0x0a010203, .plen = 32 };
	struct nfhp_set_key in8 = { .addr = 0x0a020304, .plen = 32 };
	struct nfhp_sets sets;
	struct nfhp_set *set, *hash;
	u32 v;

	nfhp_sets_init(&sets, NULL, ~0ull);
	set = make_set(&sets, NFHP_SET_ADDR, "lpm", NFHP_FAMILY_IPV4, false);
	if (!set) {
		check(false, "cases: created");
		return;
	}
	nfhp_set_add(&sets, set, &p8, 1, NULL, 0);
	check(!set->live.body->slotted, "a set without nomatch reads no slot");
	check(nfhp_set_add(&sets, set, &p16, 2, NULL, NFHP_SET_ADD_NOMATCH) ==
	      NFHP_SET_ADDED && set->live.body->slotted &&
	      !nfhp_set_lookup(set, &in16, 64, &v) &&
	      nfhp_set_lookup(set, &in8, 64, &v) && v == 1,
	      "10.0.0.0/8 with 10.1.0.0/16 nomatch: 10.1.2.3 out, 10.2.3.4 in");
	check(nfhp_set_add(&sets, set, &p16, 3, NULL, 0) == NFHP_SET_EXISTS &&
	      nfhp_set_add(&sets, set, &p16, 3, NULL, NFHP_SET_F_UPDATE) ==
	      NFHP_SET_UPDATED && nfhp_set_lookup(set, &in16, 64, &v) &&
	      v == 3, "an update without nomatch turns the entry back");
	nfhp_set_flush(&sets, set);
	check(!set->live.body->slotted, "a flush makes the body plain again");
	nfhp_sets_free(&sets);

	nfhp_sets_init(&sets, NULL, ~0ull);
	hash = make_set(&sets, NFHP_SET_ADDR, "hash", NFHP_FAMILY_IPV4, false);
	check(hash && nfhp_set_add(&sets, hash, &in8, 1, NULL,
				   NFHP_SET_ADD_NOMATCH) == NFHP_SET_INVALID &&
	      nfhp_set_count(&sets, hash) == 0,
	      "\"hash\" refuses a nomatch entry");
	nfhp_sets_free(&sets);
}

int main(int argc, char **argv)
{
	unsigned long steps = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed5;
	if (!rng_state)
		rng_state = 1;
	run_random(steps);
	run_cases();
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
