// SPDX-License-Identifier: GPL-2.0
/*
 * test_set_num: the algorithms of number sets against a naive list.
 *
 *	test_set_num [steps [seed]]
 *
 * "bitmap" and "range" take random adds (with and without update) of
 * single numbers and ranges, deletes, finds, lookups and walks, the
 * ranges drawn from a small pool so that they collide, nest, overlap and
 * come back after a delete, the pool holding the ends 0, 65535, 65536,
 * 2^32 - 1 and their neighbours.  The reference is a list of
 * (first, last, value), searched whole, which follows each algorithm's
 * rules: "range" keeps whole ranges and refuses overlaps; "bitmap" keeps
 * single numbers below 65536, and changes a range's all or none.  Every
 * result, every lookup (at the ends of each range and between them) and
 * the whole content at every walk must agree.  Allocation failures are
 * injected: an add refused for memory leaves the set as it was.  At the
 * end every byte is given back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "set.h"
#include "set_algo.h"
#include "tap.h"
#include "xorshift.h"

#define POOL_SIZE	40
#define REF_MAX		4096
#define BITMAP_KEYS	65536u

/**
 * struct ref_entry - one entry of the reference
 * @lo: its first number
 * @hi: its last ("bitmap": @lo)
 * @value: its value
 */
struct ref_entry {
	u32 lo;
	u32 hi;
	u32 value;
};

/**
 * struct run - one algorithm against its reference
 * @algo: the algorithm
 * @bitmap: it is "bitmap": single numbers, below 65536
 * @ctx: the writer's context
 * @set: the instance
 * @e: the reference's entries, in no order
 * @n: how many
 * @pool: the ranges the steps take
 * @bad: steps that disagreed
 */
struct run {
	const struct nfhp_set_algo *algo;
	bool bitmap;
	struct nfhp_set_ctx ctx;
	void *set;
	struct ref_entry e[REF_MAX];
	unsigned int n;
	struct ref_entry pool[POOL_SIZE];
	unsigned int bad;
};

static struct nfhp_set_key num_key(u32 lo, u32 hi)
{
	return (struct nfhp_set_key){ .addr = lo, .hi = hi };
}

/* The entry of the reference that holds @k, or -1. */
static int ref_holding(const struct run *r, u32 k)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (r->e[i].lo <= k && k <= r->e[i].hi)
			return i;
	return -1;
}

/* The entry that is [@lo, @hi] itself, or -1. */
static int ref_exact(const struct run *r, u32 lo, u32 hi)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (r->e[i].lo == lo && r->e[i].hi == hi)
			return i;
	return -1;
}

/* How many numbers of [@lo, @hi] a "bitmap" reference holds. */
static u32 ref_count_in(const struct run *r, u32 lo, u32 hi)
{
	unsigned int i;
	u32 n = 0;

	for (i = 0; i < r->n; i++)
		n += r->e[i].lo >= lo && r->e[i].lo <= hi;
	return n;
}

static bool ref_overlaps(const struct run *r, u32 lo, u32 hi)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (r->e[i].lo <= hi && lo <= r->e[i].hi)
			return true;
	return false;
}

static void ref_remove(struct run *r, int i)
{
	r->e[i] = r->e[--r->n];
}

/* What the algorithm must answer to an add, and the reference changed. */
static int ref_add(struct run *r, u32 lo, u32 hi, u32 value, bool update)
{
	u32 k, had;
	int i;

	if (!r->bitmap) {
		i = ref_exact(r, lo, hi);
		if (i >= 0) {
			if (update)
				r->e[i].value = value;
			return update ? NFHP_SET_UPDATED : NFHP_SET_EXISTS;
		}
		if (ref_overlaps(r, lo, hi))
			return -EINVAL;
		r->e[r->n++] = (struct ref_entry){ lo, hi, value };
		return NFHP_SET_ADDED;
	}
	if (hi >= BITMAP_KEYS)
		return -EINVAL;
	had = ref_count_in(r, lo, hi);
	if (had && !update)
		return NFHP_SET_EXISTS;
	for (k = lo; k <= hi; k++) {
		i = ref_holding(r, k);
		if (i >= 0)
			r->e[i].value = value;
		else
			r->e[r->n++] = (struct ref_entry){ k, k, value };
	}
	return had == hi - lo + 1 ? NFHP_SET_UPDATED : NFHP_SET_ADDED;
}

static int ref_del(struct run *r, u32 lo, u32 hi)
{
	u32 k;
	int i;

	if (!r->bitmap) {
		i = ref_exact(r, lo, hi);
		if (i < 0)
			return NFHP_SET_NOT_FOUND;
		ref_remove(r, i);
		return NFHP_SET_DELETED;
	}
	if (hi >= BITMAP_KEYS)
		return -EINVAL;
	if (ref_count_in(r, lo, hi) != hi - lo + 1)
		return NFHP_SET_NOT_FOUND;
	for (k = lo; k <= hi; k++)
		ref_remove(r, ref_holding(r, k));
	return NFHP_SET_DELETED;
}

/* The value of a find of [@lo, @hi]: the entry, or all its numbers. */
static bool ref_find(const struct run *r, u32 lo, u32 hi, u32 *value)
{
	int i;

	if (!r->bitmap)
		i = ref_exact(r, lo, hi);
	else if (hi < BITMAP_KEYS && ref_count_in(r, lo, hi) == hi - lo + 1)
		i = ref_holding(r, lo);
	else
		i = -1;
	if (i >= 0)
		*value = r->e[i].value;
	return i >= 0;
}

/*
 * Ranges that collide at the ends: singles and short ranges at 0,
 * 65535, 65536 and 2^32 - 1, and their neighbours; for "range" long ones
 * too, the whole u32 among them.
 */
static void make_pool(struct run *r)
{
	static const u32 ends[] = { 0, 1, 65534, 65535, 65536, 0xfffffffeu,
				    0xffffffffu, 80, 443, 1024 };
	u32 lo, w;
	unsigned int i;

	for (i = 0; i < POOL_SIZE; i++) {
		lo = i < ARRAY_SIZE(ends) ? ends[i] :
		     ends[rnd() % ARRAY_SIZE(ends)] + (u32)(rnd() % 5) - 2;
		if (r->bitmap && rnd() % 5 == 0)
			lo = rnd() % BITMAP_KEYS;
		switch (i % 4) {
		case 0:
			w = 0;
			break;
		case 1:
			w = rnd() % 4;
			break;
		case 2:
			w = rnd() % 16;
			break;
		default:
			w = r->bitmap ? rnd() % 64 : (u32)rnd();
		}
		if (!r->bitmap && i == POOL_SIZE - 1) {
			lo = 0;
			w = 0xffffffffu;
		}
		/* Keep lo + w from wrapping. */
		if (w > 0xffffffffu - lo)
			w = 0xffffffffu - lo;
		r->pool[i] = (struct ref_entry){ lo, lo + w, 0 };
	}
}

/* A number near the pool's: an end, one off an end, or any. */
static u32 random_num(const struct run *r)
{
	const struct ref_entry *p = &r->pool[rnd() % POOL_SIZE];

	switch (rnd() % 6) {
	case 0:
		return p->lo;
	case 1:
		return p->hi;
	case 2:
		return p->lo - 1;
	case 3:
		return p->hi + 1;
	case 4:
		return r->bitmap ? rnd() % (BITMAP_KEYS + 2) : (u32)rnd();
	default:
		return p->lo + (p->hi - p->lo) / 2;
	}
}

static void step_add(struct run *r, const struct ref_entry *p)
{
	struct nfhp_set_key k = num_key(p->lo, p->hi);
	bool update = rnd() % 2;
	u32 value = rnd() % 3 ? (u32)rnd() : 0;
	struct ref_entry saved[REF_MAX];
	unsigned int n = r->n;
	int got, want;

	nfhp_shim_fail_countdown = rnd() % 8 == 0 ? 1 + rnd() % 2 : 0;
	got = r->algo->add(&r->ctx, r->set, &k, value, update);
	nfhp_shim_fail_countdown = 0;
	memcpy(saved, r->e, n * sizeof(*saved));
	want = ref_add(r, p->lo, p->hi, value, update);
	if (got == -ENOMEM &&
	    (want == NFHP_SET_ADDED || want == NFHP_SET_UPDATED)) {
		/* Refused for memory: the set must be as it was. */
		memcpy(r->e, saved, n * sizeof(*saved));
		r->n = n;
		return;
	}
	r->bad += got != want;
}

static void step_del(struct run *r, const struct ref_entry *p)
{
	struct nfhp_set_key k = num_key(p->lo, p->hi);
	struct ref_entry saved[REF_MAX];
	unsigned int n = r->n;
	int got, want;

	nfhp_shim_fail_countdown = rnd() % 8 == 0 ? 1 : 0;
	got = r->algo->del(&r->ctx, r->set, &k);
	nfhp_shim_fail_countdown = 0;
	memcpy(saved, r->e, n * sizeof(*saved));
	want = ref_del(r, p->lo, p->hi);
	if (got == -ENOMEM && want == NFHP_SET_DELETED) {
		memcpy(r->e, saved, n * sizeof(*saved));
		r->n = n;
		return;
	}
	r->bad += got != want;
}

static void step_lookup(struct run *r)
{
	u32 k = random_num(r), want = 0, got = 0;
	struct nfhp_set_key key = num_key(k, k);
	int i = ref_holding(r, k);
	bool in_set;

	if (i >= 0)
		want = r->e[i].value;
	in_set = r->algo->lookup(r->set, &key, &got);
	r->bad += in_set != (i >= 0) || (in_set && want != got);
}

static void step_find(struct run *r, const struct ref_entry *p)
{
	struct nfhp_set_key k = num_key(p->lo, p->hi);
	u32 want = 0, got = 0;
	bool in_ref, in_set;

	in_ref = ref_find(r, p->lo, p->hi, &want);
	in_set = r->algo->find(r->set, &k, &got);
	r->bad += in_set != in_ref || (in_ref && got != want);
}

/**
 * struct walk_check - what a walk of the set must list
 * @r: the run, whose reference it must list
 * @seen: which of its entries the walk listed
 * @bad: entries listed that are not in it, listed twice or with another
 *	value
 */
struct walk_check {
	const struct run *r;
	bool seen[REF_MAX];
	unsigned int bad;
};

static int walk_one(void *arg, const struct nfhp_set_key *key, u32 value)
{
	struct walk_check *w = arg;
	int i = ref_exact(w->r, nfhp_set_key_num(key), key->hi);

	/* Now and then refuse the entry: the next call must offer it again. */
	if (rnd() % 6 == 0)
		return -1;
	if (i < 0 || w->seen[i] || w->r->e[i].value != value || key->addr >> 32)
		w->bad++;
	else
		w->seen[i] = true;
	return rnd() % 4 == 0;
}

static bool walk_agrees(const struct run *r)
{
	struct walk_check *w = calloc(1, sizeof(*w));
	u64 cursor = 0;
	unsigned int i;
	bool ok;

	w->r = r;
	while (r->algo->walk(r->set, &cursor, walk_one, w))
		;
	for (i = 0; i < r->n; i++)
		w->bad += !w->seen[i];
	ok = !w->bad && r->algo->count(r->set) == r->n;
	free(w);
	return ok;
}

/* Keys no number algorithm takes: a range that ends before it begins. */
static bool refuses_bad_keys(struct run *r)
{
	struct nfhp_set_key back = num_key(9, 8);
	struct nfhp_set_key wide = { .addr = (nfhp_u128)1 << 32, .hi = 1 };
	struct nfhp_set_key big = num_key(65535, 65536);
	bool ok;

	ok = r->algo->add(&r->ctx, r->set, &back, 1, true) == -EINVAL &&
	     r->algo->add(&r->ctx, r->set, &wide, 1, true) == -EINVAL &&
	     r->algo->del(&r->ctx, r->set, &back) != NFHP_SET_DELETED;
	if (r->bitmap)
		ok &= r->algo->add(&r->ctx, r->set, &big, 1, true) == -EINVAL;
	return ok && r->algo->count(r->set) == r->n;
}

static void run_one(const struct nfhp_set_algo *algo, unsigned int steps)
{
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_set_gc gc = {};
	struct run *r = calloc(1, sizeof(*r));
	unsigned int s, walks_bad = 0;

	r->algo = algo;
	r->bitmap = !strcmp(algo->name, "bitmap");
	r->ctx = (struct nfhp_set_ctx){ .mem = &mem, .gc = &gc };
	make_pool(r);
	r->set = algo->create(&r->ctx, NFHP_FAMILY_IPV4, rnd() % 16);
	check(r->set, "%s: create", algo->name);
	if (!r->set) {
		free(r);
		return;
	}
	for (s = 0; s < steps; s++) {
		const struct ref_entry *p = &r->pool[rnd() % POOL_SIZE];

		switch (rnd() % 8) {
		case 0: case 1: case 2:
			step_add(r, p);
			break;
		case 3: case 4:
			step_del(r, p);
			break;
		case 5:
			step_find(r, p);
			break;
		default:
			step_lookup(r);
		}
		if (s % 97 == 0)
			walks_bad += !walk_agrees(r);
		if (s % 13 == 0)
			nfhp_set_gc_run(&r->ctx, false);
		if (s % 31 == 0)
			synchronize_rcu();
	}
	check(!r->bad, "%s: %u steps agree with the list (%u disagree)",
	      algo->name, steps, r->bad);
	check(!walks_bad && walk_agrees(r), "%s: walks list what the list holds",
	      algo->name);
	check(refuses_bad_keys(r), "%s: bad keys refused, set unchanged",
	      algo->name);
	algo->destroy(&r->ctx, r->set);
	nfhp_set_gc_run(&r->ctx, true);
	check(!mem.used && !gc.bytes, "%s: every byte given back (%llu left)",
	      algo->name, (unsigned long long)mem.used);
	free(r);
}

/*
 * The whole key space: every number of the bitmap, or many disjoint
 * ranges of the range algorithm added in random order, each found at its
 * ends and missed just outside.
 */
static void run_bulk(const struct nfhp_set_algo *algo)
{
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_set_gc gc = {};
	struct nfhp_set_ctx ctx = { .mem = &mem, .gc = &gc };
	bool bitmap = !strcmp(algo->name, "bitmap");
	unsigned int n = 5000, i, bad = 0;
	void *set = algo->create(&ctx, NFHP_FAMILY_IPV4, 0);
	struct nfhp_set_key k;
	u32 v, lo, stride = 0xffffffffu / n;

	if (!set) {
		check(false, "%s: bulk create", algo->name);
		return;
	}
	if (bitmap) {
		k = num_key(0, BITMAP_KEYS - 1);
		bad += algo->add(&ctx, set, &k, 7, false) != NFHP_SET_ADDED;
		k = num_key(BITMAP_KEYS - 1, BITMAP_KEYS - 1);
		bad += !algo->lookup(set, &k, &v) || v != 7;
		k = num_key(BITMAP_KEYS, BITMAP_KEYS);
		bad += algo->lookup(set, &k, &v);
		bad += algo->count(set) != BITMAP_KEYS;
		k = num_key(0, BITMAP_KEYS - 1);
		bad += algo->del(&ctx, set, &k) != NFHP_SET_DELETED;
		n = 0;
	}
	for (i = 0; i < n; i++) {
		/* Every 7th slot in turn (7 is prime to n): no sorted order. */
		lo = (i * 7 % n) * stride;
		k = num_key(lo, lo + stride / 2);
		bad += algo->add(&ctx, set, &k, lo, false) != NFHP_SET_ADDED;
	}
	for (i = 0; i < n; i++) {
		lo = i * stride;
		k = num_key(lo + stride / 2, lo + stride / 2);
		bad += !algo->lookup(set, &k, &v) || v != lo;
		k = num_key(lo + stride / 2 + 1, lo + stride / 2 + 1);
		bad += algo->lookup(set, &k, &v);
	}
	check(!bad && algo->count(set) == n,
	      "%s: bulk adds found at their ends, missed beyond (%u bad)",
	      algo->name, bad);
	algo->destroy(&ctx, set);
	nfhp_set_gc_run(&ctx, true);
	check(!mem.used, "%s: bulk: every byte given back", algo->name);
}

/* A range [@lo, @hi] of @algo called @name, or NULL. */
static struct nfhp_set *ranged_set(struct nfhp_sets *sets, const char *name,
				   const char *algo, u32 lo, u32 hi, u32 flags)
{
	struct nfhp_set_spec spec;
	const char *msg = NULL;

	nfhp_set_spec_init(&spec, NFHP_FAMILY_IPV4,
			   nfhp_set_algo_find(NFHP_SET_NUMBER, algo));
	spec.range_lo = lo;
	spec.range_hi = hi;
	spec.flags = flags;
	if (nfhp_set_create(sets, name, &spec, &msg))
		return NULL;
	return nfhp_set_find(sets, name);
}

/* The result of adding [@lo, @hi], value 0, to @set. */
static int add_num(struct nfhp_sets *sets, struct nfhp_set *set, u32 lo,
		   u32 hi)
{
	struct nfhp_set_key key = num_key(lo, hi);

	return nfhp_set_add(sets, set, &key, 0, NULL, 0);
}

/*
 * ipset's bitmap:port "range": every number of an entry lies in it, at
 * both of its ends, or nothing is added; a create with -exist must name
 * the same range; a swap needs equal ranges; only number sets have one.
 */
static void run_ranges(struct nfhp_sets *sets)
{
	struct nfhp_set *a, *b, *c;
	struct nfhp_set_spec spec;
	struct nfhp_set_key k = num_key(1995, 1995);
	const char *msg = NULL;
	u32 v;

	a = ranged_set(sets, "ra", "bitmap", 1000, 2000, 0);
	b = ranged_set(sets, "rb", "range", 1000, 2000, 0);
	c = ranged_set(sets, "rc", "range", 0, 5000, 0);
	check(a && b && c, "range: created");
	if (!a || !b || !c)
		return;
	check(add_num(sets, a, 1000, 1000) == NFHP_SET_ADDED &&
	      add_num(sets, a, 2000, 2000) == NFHP_SET_ADDED &&
	      add_num(sets, b, 1000, 2000) == NFHP_SET_ADDED,
	      "range: its first and last numbers are taken");
	check(add_num(sets, a, 999, 999) == NFHP_SET_OUT_OF_RANGE &&
	      add_num(sets, a, 2001, 2001) == NFHP_SET_OUT_OF_RANGE &&
	      add_num(sets, a, 1990, 2010) == NFHP_SET_OUT_OF_RANGE &&
	      add_num(sets, c, 4000, 6000) == NFHP_SET_OUT_OF_RANGE,
	      "range: an entry reaching past either end is refused");
	check(nfhp_set_count(sets, a) == 2 && nfhp_set_count(sets, c) == 0 &&
	      !nfhp_set_test(sets, a, &k, &v, NULL, false),
	      "range: a refused entry added none of its numbers");
	check(!ranged_set(sets, "ra", "bitmap", 1000, 2001, 0) &&
	      ranged_set(sets, "ra", "bitmap", 1000, 2000,
			 NFHP_SET_F_EXIST) == a,
	      "range: -exist takes the same range only");
	check(nfhp_set_swap(sets, b, c, &msg) == -EINVAL &&
	      nfhp_set_count(sets, b) == 1,
	      "range: sets of other ranges do not swap");
	check(!ranged_set(sets, "rd", "range", 7, 6, 0) &&
	      !nfhp_set_find(sets, "rd"), "range: its first past its last");
	nfhp_set_spec_init(&spec, NFHP_FAMILY_IPV4, &nfhp_set_addr_hash);
	spec.range_hi = 80;
	check(nfhp_set_create(sets, "re", &spec, &msg) == -EINVAL,
	      "range: of a number set only");
	check(!nfhp_set_destroy(sets, "ra", &msg) &&
	      !nfhp_set_destroy(sets, "rb", &msg) &&
	      !nfhp_set_destroy(sets, "rc", &msg), "range: destroyed");
}

/*
 * Through the registry (set.c), as the module's commands go: a test of a
 * number is a lookup, of a range a find; the limit, which counts the
 * ports a range adds; the lock.
 */
static void run_registry(void)
{
	struct nfhp_set_key k8090 = num_key(8090, 8090), r = num_key(8000, 8099);
	struct nfhp_set_key r2 = num_key(9000, 9001);
	struct nfhp_set_spec spec;
	const char *msg = NULL;
	struct nfhp_sets sets;
	struct nfhp_set *set;
	bool locked = true;
	u32 v = 0, lim = 1;

	nfhp_sets_init(&sets, NULL, ~0ull);
	nfhp_set_spec_init(&spec, NFHP_FAMILY_IPV4,
			   nfhp_set_algo_find(NFHP_SET_NUMBER, "range"));
	check(!nfhp_set_create(&sets, "hi", &spec, &msg) &&
	      !nfhp_set_algo_find(NFHP_SET_ADDR, "range") &&
	      !nfhp_set_algo_find(NFHP_SET_NUMBER, "lpm"),
	      "registry: range is a number algorithm, and lpm none");
	set = nfhp_set_find(&sets, "hi");
	check(set && nfhp_set_add(&sets, set, &r, 2, NULL, 0) == NFHP_SET_ADDED &&
	      nfhp_set_test(&sets, set, &k8090, &v, NULL, false) && v == 2 &&
	      nfhp_set_test(&sets, set, &r, &v, NULL, false) &&
	      !nfhp_set_test(&sets, set, &(struct nfhp_set_key){ .addr = 8000,
							      .hi = 8001 }, &v, NULL,
			     false),
	      "registry: a number tests as a lookup, a range as an entry");
	check(set && nfhp_set_add(&sets, set, &k8090, 1, NULL, 0) == NFHP_SET_INVALID,
	      "registry: an overlap is NFHP_SET_INVALID");
	nfhp_set_modify(&sets, set, &lim, NULL);
	check(nfhp_set_add(&sets, set, &r2, 1, NULL, 0) == NFHP_SET_LIMIT &&
	      nfhp_set_add(&sets, set, &r, 3, NULL, NFHP_SET_F_UPDATE) ==
	      NFHP_SET_UPDATED,
	      "registry: the limit refuses a new range, not an update");
	nfhp_set_modify(&sets, set, NULL, &locked);
	check(nfhp_set_remove(&sets, set, &r) == NFHP_SET_LOCKED &&
	      nfhp_set_count(&sets, set) == 1, "registry: locked");
	check(!nfhp_set_destroy(&sets, "hi", &msg), "registry: destroyed");

	lim = 4;
	nfhp_set_spec_init(&spec, NFHP_FAMILY_IPV4,
			   nfhp_set_algo_find(NFHP_SET_NUMBER, "bitmap"));
	spec.limit = lim;
	check(!nfhp_set_create(&sets, "p", &spec, &msg),
	      "registry: a bitmap of 4 ports");
	set = nfhp_set_find(&sets, "p");
	r = num_key(1, 3);
	r2 = num_key(3, 5);
	check(set && nfhp_set_add(&sets, set, &r, 0, NULL, 0) == NFHP_SET_ADDED &&
	      nfhp_set_add(&sets, set, &r2, 0, NULL, NFHP_SET_F_UPDATE) ==
	      NFHP_SET_LIMIT &&
	      nfhp_set_add(&sets, set, &(struct nfhp_set_key){ .addr = 3,
							    .hi = 4 },
			   0, NULL, NFHP_SET_F_UPDATE) == NFHP_SET_ADDED &&
	      nfhp_set_count(&sets, set) == 4,
	      "registry: a range passing the limit with its new ports is refused");
	check(!nfhp_set_destroy(&sets, "p", &msg), "registry: destroyed");
	run_ranges(&sets);
	nfhp_sets_free(&sets);
}

int main(int argc, char **argv)
{
	static const struct nfhp_set_algo *const algos[] = {
		&nfhp_set_num_bitmap, &nfhp_set_num_range,
	};
	unsigned int steps = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
	unsigned int i;

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5e7;
	for (i = 0; i < ARRAY_SIZE(algos); i++) {
		run_one(algos[i], steps);
		run_bulk(algos[i]);
	}
	run_registry();
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
