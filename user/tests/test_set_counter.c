// SPDX-License-Identifier: GPL-2.0
/*
 * test_set_counter: the per-entry counters of named sets against a naive
 * table.
 *
 *	test_set_counter [steps [seed]]
 *
 * For each type and algorithm, a set with counters takes random adds
 * (with and without update, with none, one or both counts given),
 * removes, packets' lookups of random lengths, tests and walks, over a
 * small pool of keys so that they collide and come back after a remove,
 * with grace periods now and then and allocation failures injected.
 * The reference is an array of (present, value, packets, bytes) per key.
 * Every result, every lookup's value and every entry's counts at every
 * test and walk must agree; an add refused for memory changes nothing.
 *
 * Then the cases a random run meets rarely: a removed entry's slot is
 * not taken again before a grace period; a flush starts the counts
 * again; swaps and transactions carry them; counts given to a set
 * without counters are refused; "-exist" compares the counters too; a
 * bitmap's range counts each number, all or none, even out of memory;
 * the longest prefix counts, not the others.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "set.h"
#include "set_iface.h"
#include "tap.h"
#include "xorshift.h"

#define POOL	48

/**
 * struct ref - what the reference holds of one key of the pool
 * @has: the key is in the set
 * @value: its value
 * @packets: its packets
 * @bytes: its bytes
 */
struct ref {
	bool has;
	u32 value;
	u64 packets;
	u64 bytes;
};

/**
 * struct kind - one algorithm of a type, and how its pool's keys look
 * @type: the set type
 * @algo: the algorithm's name
 */
struct kind {
	u8 type;
	const char *algo;
};

static const struct kind kinds[] = {
	{ NFHP_SET_ADDR, "hash" },
	{ NFHP_SET_ADDR, "lpm" },
	{ NFHP_SET_NUMBER, "bitmap" },
	{ NFHP_SET_NUMBER, "range" },
	{ NFHP_SET_FLOW, "hash" },
	{ NFHP_SET_FLOW, "lpm" },
	{ NFHP_SET_IFACE, "hash" },
	{ NFHP_SET_IFACE, "lpm" },
};

/* Key @k of the pool of @type: a host, a port, a host and port, a name. */
static struct nfhp_set_key pool_key(u8 type, unsigned int k)
{
	struct nfhp_set_key key = {};
	char name[16];

	switch (type) {
	case NFHP_SET_NUMBER:
		key.addr = 1000 + 7 * k;
		key.hi = 1000 + 7 * k;
		break;
	case NFHP_SET_FLOW:
		key.addr = 0x0a000000 + k / 2;
		key.plen = 32;
		key.proto = 6;
		key.port = 80 + k % 2;
		break;
	case NFHP_SET_IFACE:
		snprintf(name, sizeof(name), "eth%u", k);
		nfhp_iface_key_parse(name, &key.addr, &key.plen);
		break;
	default:
		key.addr = 0x0a000000 + 3 * k;
		key.plen = 32;
	}
	return key;
}

/* A set with counters (or not) of @kind, IPv4. */
static struct nfhp_set *make_set(struct nfhp_sets *sets, const char *name,
				 u8 type, const char *algo, bool counting)
{
	struct nfhp_set_spec spec;
	const char *msg = NULL;

	nfhp_set_spec_init(&spec, NFHP_FAMILY_IPV4,
			   nfhp_set_algo_find(type, algo));
	spec.flags = counting ? NFHP_SET_F_COUNTERS : 0;
	if (!spec.algo || nfhp_set_create(sets, name, &spec, &msg))
		return NULL;
	return nfhp_set_find(sets, name);
}

/* Random counts: none, one or both given. */
static struct nfhp_set_counts rnd_counts(void)
{
	struct nfhp_set_counts c = { .given = rnd() % 4 };

	c.packets = rnd() % 1000;
	c.bytes = rnd() % 100000;
	/* Now and then the ends of a u64. */
	if (!(rnd() % 16))
		c.bytes = ~0ull;
	return c;
}

/**
 * struct walk_check - a walk compared with the reference
 * @type: the set's type
 * @ref: the reference
 * @seen: entries the walk gave
 * @bad: entries it gave wrong
 */
struct walk_check {
	u8 type;
	const struct ref *ref;
	unsigned int seen;
	unsigned int bad;
};

static int walk_one(void *arg, const struct nfhp_set_key *key, u32 value,
		    const struct nfhp_set_counts *counts, u32 eflags)
{
	struct walk_check *w = arg;
	struct nfhp_set_key k;
	unsigned int i;

	w->seen++;
	for (i = 0; i < POOL; i++) {
		k = pool_key(w->type, i);
		if (!memcmp(&k, key, sizeof(k)))
			break;
	}
	if (i == POOL || !w->ref[i].has || !counts ||
	    w->ref[i].value != value || w->ref[i].packets != counts->packets ||
	    w->ref[i].bytes != counts->bytes)
		w->bad++;
	return 0;
}

/* One step of a random run; false when the set disagreed. */
static bool step(struct nfhp_sets *sets, struct nfhp_set *set, u8 type,
		 struct ref *ref)
{
	unsigned int k = rnd() % POOL, len = rnd() % 1500;
	struct nfhp_set_key key = pool_key(type, k);
	struct nfhp_set_counts c = rnd_counts(), got;
	struct ref *r = &ref[k];
	u32 value = rnd() % 4, flags = rnd() % 2 ? NFHP_SET_F_UPDATE : 0;
	bool hit, injected;
	int res;

	switch (rnd() % 6) {
	case 0:
	case 1:
		injected = !(rnd() % 8);
		nfhp_shim_fail_countdown = injected ? 1 + rnd() % 3 : 0;
		res = nfhp_set_add(sets, set, &key, value, &c, flags);
		nfhp_shim_fail_countdown = 0;
		if (res == NFHP_SET_NOMEM && injected)
			return true;
		if (r->has && !flags)
			return res == NFHP_SET_EXISTS;
		if (res != (r->has ? NFHP_SET_UPDATED : NFHP_SET_ADDED))
			return false;
		if (!r->has)
			r->packets = r->bytes = 0;
		r->has = true;
		r->value = value;
		if (c.given & NFHP_SET_COUNTS_PACKETS)
			r->packets = c.packets;
		if (c.given & NFHP_SET_COUNTS_BYTES)
			r->bytes = c.bytes;
		return true;
	case 2:
		res = nfhp_set_remove(sets, set, &key);
		if (res != (r->has ? NFHP_SET_DELETED : NFHP_SET_NOT_FOUND))
			return false;
		r->has = false;
		return true;
	case 3:
	case 4:
		hit = nfhp_set_lookup(set, &key, len, &value);
		if (hit != r->has || (hit && value != r->value))
			return false;
		if (hit) {
			r->packets++;
			r->bytes += len;
		}
		return true;
	default:
		if (rnd() % 4 == 0)
			synchronize_rcu();
		hit = nfhp_set_test(sets, set, &key, &value, &got, false);
		return hit == r->has &&
		       (!hit || (value == r->value &&
				 got.packets == r->packets &&
				 got.bytes == r->bytes));
	}
}

/* Random steps on a set with counters of each kind. */
static void run_random(unsigned long steps)
{
	unsigned int i, bad, walks_bad;
	struct walk_check w;
	struct nfhp_sets sets;
	struct nfhp_set *set;
	struct ref ref[POOL];
	unsigned long s;
	u64 cursor;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		nfhp_sets_init(&sets, NULL, ~0ull);
		set = make_set(&sets, "c", kinds[i].type, kinds[i].algo, true);
		memset(ref, 0, sizeof(ref));
		bad = walks_bad = 0;
		for (s = 0; set && s < steps; s++) {
			bad += !step(&sets, set, kinds[i].type, ref);
			if (s % 64)
				continue;
			w = (struct walk_check){ .type = kinds[i].type,
						 .ref = ref };
			cursor = 0;
			nfhp_set_walk(&sets, set, &cursor, walk_one, &w);
			walks_bad += w.bad;
		}
		check(set && !bad && !walks_bad,
		      "random: %s %s: %lu steps, %u wrong, %u wrong in walks",
		      kinds[i].type == NFHP_SET_ADDR ? "addr" :
		      kinds[i].type == NFHP_SET_NUMBER ? "number" :
		      kinds[i].type == NFHP_SET_FLOW ? "flow" : "iface",
		      kinds[i].algo, steps, bad, walks_bad);
		nfhp_sets_free(&sets);
	}
}

/* The counts of @key in @set, or ~0 for both when it is not there. */
static struct nfhp_set_counts counts_of(struct nfhp_sets *sets,
					struct nfhp_set *set,
					const struct nfhp_set_key *key)
{
	struct nfhp_set_counts c = { ~0ull, ~0ull };
	u32 v;

	if (!nfhp_set_test(sets, set, key, &v, &c, false))
		c.packets = c.bytes = ~0ull;
	return c;
}

/* A removed entry's slot waits for a grace period; a flush restarts. */
static void run_slots(void)
{
	struct nfhp_set_key a = pool_key(NFHP_SET_ADDR, 1);
	struct nfhp_set_key b = pool_key(NFHP_SET_ADDR, 2);
	struct nfhp_set_key c = pool_key(NFHP_SET_ADDR, 3);
	struct nfhp_set_counts five = { 5, 500, NFHP_SET_COUNTS_PACKETS |
						NFHP_SET_COUNTS_BYTES };
	struct nfhp_set_counts got;
	struct nfhp_set_counters *ctr;
	struct nfhp_sets sets;
	struct nfhp_set *set;
	u32 v;

	nfhp_sets_init(&sets, NULL, ~0ull);
	set = make_set(&sets, "s", NFHP_SET_ADDR, "hash", true);
	if (!set) {
		check(false, "slots: created");
		return;
	}
	ctr = &set->live.body->counters;
	nfhp_set_add(&sets, set, &a, 1, &five, 0);
	nfhp_set_lookup(set, &a, 100, &v);
	got = counts_of(&sets, set, &a);
	check(v == 1 && got.packets == 6 && got.bytes == 600,
	      "slots: an entry starts at the counts given, and counts on");
	nfhp_set_remove(&sets, set, &a);
	nfhp_set_add(&sets, set, &b, 2, NULL, 0);
	check(ctr->made == 2 && ctr->used == 1,
	      "slots: a removed entry's slot is not taken before a grace period");
	synchronize_rcu();
	nfhp_set_add(&sets, set, &c, 3, NULL, 0);
	got = counts_of(&sets, set, &c);
	check(ctr->made == 2 && ctr->used == 2 && !got.packets && !got.bytes,
	      "slots: after it, the slot is taken again, its counts at 0");
	nfhp_set_lookup(set, &b, 60, &v);
	nfhp_set_flush(&sets, set);
	nfhp_set_add(&sets, set, &b, 2, NULL, 0);
	got = counts_of(&sets, set, &b);
	check(!got.packets && !got.bytes,
	      "slots: a flush starts the counts again at 0");
	check(nfhp_set_add(&sets, set, &b, 4,
			   &(struct nfhp_set_counts){ .packets = 9,
				.given = NFHP_SET_COUNTS_PACKETS },
			   NFHP_SET_F_UPDATE) == NFHP_SET_UPDATED &&
	      nfhp_set_test(&sets, set, &b, &v, &got, false) && v == 4 &&
	      got.packets == 9 && !got.bytes,
	      "slots: an update takes the value and the counts given only");
	nfhp_sets_free(&sets);
}

/* Swaps and transactions carry the counts; mixed swaps are refused. */
static void run_moves(void)
{
	struct nfhp_set_key a = pool_key(NFHP_SET_ADDR, 1);
	struct nfhp_set_key b = pool_key(NFHP_SET_ADDR, 2);
	struct nfhp_set_counts seven = { 7, 70, NFHP_SET_COUNTS_PACKETS |
						 NFHP_SET_COUNTS_BYTES };
	struct nfhp_set *x, *y, *plain;
	struct nfhp_set_counts got;
	struct nfhp_set_spec spec;
	const char *msg = NULL;
	struct nfhp_sets sets;
	u32 v;

	nfhp_sets_init(&sets, NULL, ~0ull);
	x = make_set(&sets, "x", NFHP_SET_ADDR, "lpm", true);
	y = make_set(&sets, "y", NFHP_SET_ADDR, "lpm", true);
	plain = make_set(&sets, "p", NFHP_SET_ADDR, "lpm", false);
	if (!x || !y || !plain) {
		check(false, "moves: created");
		nfhp_sets_free(&sets);
		return;
	}
	nfhp_set_add(&sets, x, &a, 1, &seven, 0);
	check(!nfhp_set_swap(&sets, x, y, &msg) &&
	      counts_of(&sets, y, &a).packets == 7 &&
	      counts_of(&sets, x, &a).packets == ~0ull,
	      "moves: a swap takes the counts along");
	check(nfhp_set_swap(&sets, y, plain, &msg) == -EINVAL &&
	      counts_of(&sets, y, &a).packets == 7,
	      "moves: a swap of a set with counters and one without is refused");
	check(nfhp_set_add(&sets, plain, &a, 1, &seven, 0) ==
	      NFHP_SET_INVALID && !nfhp_set_count(&sets, plain) &&
	      nfhp_set_add(&sets, plain, &a, 1,
			   &(struct nfhp_set_counts){ 0 }, 0) == NFHP_SET_ADDED,
	      "moves: counts given to a set without counters are refused");
	nfhp_sets_begin(&sets);
	nfhp_set_add(&sets, y, &b, 2, NULL, 0);
	nfhp_set_lookup(y, &a, 30, &v);
	nfhp_sets_commit(&sets);
	got = counts_of(&sets, y, &a);
	check(got.packets == 7 && got.bytes == 70 &&
	      counts_of(&sets, y, &b).packets == 0,
	      "moves: a transaction's copy has the counts of its start");
	nfhp_set_spec_init(&spec, NFHP_FAMILY_IPV4,
			   nfhp_set_algo_find(NFHP_SET_ADDR, "lpm"));
	spec.flags = NFHP_SET_F_EXIST;
	check(nfhp_set_create(&sets, "y", &spec, &msg) == -EEXIST,
	      "moves: -exist: a set without counters is not one with");
	spec.flags |= NFHP_SET_F_COUNTERS;
	check(!nfhp_set_create(&sets, "y", &spec, &msg),
	      "moves: -exist: one with counters is");
	nfhp_sets_free(&sets);
}

/* The counts of number @n of a bitmap, or ~0 when it is not there. */
static u64 port_packets(struct nfhp_sets *sets, struct nfhp_set *set, u32 n)
{
	struct nfhp_set_key k = { .addr = n, .hi = n };

	return counts_of(sets, set, &k).packets;
}

/* A bitmap's range: each number its own counts, all or none. */
static void run_bitmap(void)
{
	struct nfhp_set_counts two = { 2, 0, NFHP_SET_COUNTS_PACKETS };
	struct nfhp_set_key r = { .addr = 100, .hi = 104 };
	struct nfhp_set_key r2 = { .addr = 102, .hi = 106 };
	struct nfhp_set_key big = { .addr = 200, .hi = 400 };
	struct nfhp_set_key k101 = { .addr = 101, .hi = 101 };
	unsigned int i, kept = 0, done = 0;
	struct nfhp_sets sets;
	struct nfhp_set *set;
	u32 v;
	int res;

	nfhp_sets_init(&sets, NULL, ~0ull);
	set = make_set(&sets, "b", NFHP_SET_NUMBER, "bitmap", true);
	if (!set) {
		check(false, "bitmap: created");
		return;
	}
	nfhp_set_add(&sets, set, &r, 3, &two, 0);
	nfhp_set_lookup(set, &k101, 40, &v);
	check(v == 3 && nfhp_set_count(&sets, set) == 5 &&
	      port_packets(&sets, set, 100) == 2 &&
	      port_packets(&sets, set, 101) == 3 &&
	      port_packets(&sets, set, 104) == 2,
	      "bitmap: a range's numbers count each on their own");
	check(nfhp_set_add(&sets, set, &r2, 5, NULL, 0) == NFHP_SET_EXISTS &&
	      port_packets(&sets, set, 105) == ~0ull &&
	      nfhp_set_count(&sets, set) == 5,
	      "bitmap: a range with a number there already adds none");
	check(nfhp_set_add(&sets, set, &r2, 5, NULL, NFHP_SET_F_UPDATE) ==
	      NFHP_SET_ADDED && nfhp_set_count(&sets, set) == 7 &&
	      port_packets(&sets, set, 103) == 2 &&
	      port_packets(&sets, set, 106) == 0 &&
	      nfhp_set_test(&sets, set, &k101, &v, NULL, false) && v == 3 &&
	      nfhp_set_test(&sets, set, &r2, &v, NULL, false) && v == 5,
	      "bitmap: with update, the new numbers are added, the others take the value");
	for (i = 1; i < 40 && !done; i++) {
		nfhp_shim_fail_countdown = i;
		res = nfhp_set_add(&sets, set, &big, 1, NULL, 0);
		nfhp_shim_fail_countdown = 0;
		if (res == NFHP_SET_ADDED) {
			done = i;
			break;
		}
		kept += res == NFHP_SET_NOMEM &&
			nfhp_set_count(&sets, set) == 7 &&
			port_packets(&sets, set, 200) == ~0ull &&
			port_packets(&sets, set, 400) == ~0ull;
	}
	check(done > 1 && kept == done - 1 && nfhp_set_count(&sets, set) == 208,
	      "bitmap: an add of 201 numbers out of memory at each of its %u allocations added none",
	      done - 1);
	check(nfhp_set_remove(&sets, set, &(struct nfhp_set_key){
			.addr = 99, .hi = 101 }) == NFHP_SET_NOT_FOUND &&
	      nfhp_set_remove(&sets, set, &r) == NFHP_SET_DELETED &&
	      nfhp_set_count(&sets, set) == 203 &&
	      port_packets(&sets, set, 105) == 0,
	      "bitmap: a range's remove takes all its numbers or none");
	nfhp_sets_free(&sets);
}

/* The longest prefix counts, and only it. */
static void run_lpm(void)
{
	struct nfhp_set_key p8 = { .addr = 0x0a000000, .plen = 8 };
	struct nfhp_set_key p16 = { .addr = 0x0a010000, .plen = 16 };
	struct nfhp_set_key h1 = { .addr = 0x0a010203, .plen = 32 };
	struct nfhp_set_key h2 = { .addr = 0x0a020001, .plen = 32 };
	struct nfhp_sets sets;
	struct nfhp_set *set;
	u32 v;

	nfhp_sets_init(&sets, NULL, ~0ull);
	set = make_set(&sets, "l", NFHP_SET_ADDR, "lpm", true);
	if (!set) {
		check(false, "lpm: created");
		return;
	}
	nfhp_set_add(&sets, set, &p8, 8, NULL, 0);
	nfhp_set_add(&sets, set, &p16, 16, NULL, 0);
	nfhp_set_lookup(set, &h1, 100, &v);
	check(v == 16, "lpm: a host in both prefixes has the /16's value");
	nfhp_set_lookup(set, &h2, 50, &v);
	nfhp_set_lookup(set, &h2, 50, &v);
	check(v == 8 && counts_of(&sets, set, &p16).packets == 1 &&
	      counts_of(&sets, set, &p16).bytes == 100 &&
	      counts_of(&sets, set, &p8).packets == 2 &&
	      counts_of(&sets, set, &p8).bytes == 100,
	      "lpm: each packet counts in its longest prefix only");
	nfhp_sets_free(&sets);
}

int main(int argc, char **argv)
{
	unsigned long steps = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed5;
	if (!rng_state)
		rng_state = 1;
	run_random(steps);
	run_slots();
	run_moves();
	run_bitmap();
	run_lpm();
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
