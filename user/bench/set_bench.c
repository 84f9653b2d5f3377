// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac-set-bench: the algorithms of named sets, timed in userspace.
 *
 *	nf-hipac-set-bench [-n keys] [-l lookups] [-s seed] [-r|-c] ALGO
 *			   FAMILY MIX
 *
 * ALGO is an algorithm of the addr type ("hash", "lpm"), FAMILY 4 or 6,
 * MIX "hosts" (random /32, or /128 under 2001:db8::/32) or "routes"
 * (like a routing table: 60 % /24, 30 % /16 to /22, 10 % /25 to /32; in
 * IPv6 the same under 2001:db8::/32, each length 32 longer).  Or ALGO is
 * one of the number type's ("bitmap", "range"), FAMILY 4 (unused), MIX
 * "ports" (random ports, one each) or "ranges" (disjoint ranges of u32,
 * up to half of an equal share each, added in random order).  It prints
 * one line: the batched add of every key (s), the set's memory (bytes a
 * key, as allocated), a lookup (ns, random addresses inside random keys,
 * in an order the caches cannot follow), and a single add and a single
 * delete (p50 and p99 ns, each timed alone).  With -r every operation
 * goes through the sets' registry (set.c) as the module's do, lookups
 * through nfhp_set_lookup() as packets'; with -c too, and the set has
 * counters (set_counter.c), so that the two show what counting costs.
 * bench/set-bench.sh runs it over every algorithm and writes
 * bench/results/sets.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "set.h"

static const struct nfhp_set_algo *const algos[] = {
	&nfhp_set_addr_hash,
	&nfhp_set_addr_lpm,
	&nfhp_set_num_bitmap,
	&nfhp_set_num_range,
};

static u64 rng_state = 0x5e7b5e7b;

static u64 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static unsigned int route_plen(void)
{
	unsigned int r = rnd() % 100;

	if (r < 60)
		return 24;
	if (r < 90)
		return 16 + rnd() % 7;
	return 25 + rnd() % 8;
}

/* A key of @mix, IPv4 ones in the low 32 bits or moved under a /32. */
static struct nfhp_set_key make_key(bool is6, bool routes)
{
	unsigned int plen = routes ? route_plen() : 32;
	u32 a = (u32)rnd() & (~0u << (32 - plen));
	struct nfhp_set_key k = { a, plen };

	if (plen == 32)
		k.addr = (u32)rnd();
	if (!is6)
		return k;
	if (!routes) {
		k.addr = ((nfhp_u128)rnd() << 32 ^ rnd()) &
			 (((nfhp_u128)1 << 96) - 1);
		k.addr |= (nfhp_u128)0x20010db8 << 96;
		k.plen = 128;
		return k;
	}
	k.addr = (nfhp_u128)0x20010db8 << 96 | k.addr << 64;
	k.plen += 32;
	return k;
}

/* A random address inside @k. */
static nfhp_u128 addr_in(const struct nfhp_set_key *k, unsigned int width)
{
	nfhp_u128 r = (nfhp_u128)rnd() << 64 | rnd();
	nfhp_u128 host = k->plen >= width ? 0 :
			 (((nfhp_u128)1 << (width - k->plen)) - 1);

	return k->addr | (r & host);
}

/*
 * The keys of a number mix: random ports, or @n disjoint ranges, one in
 * each equal share of the u32 space, in random order.
 */
static void make_num_keys(struct nfhp_set_key *keys, unsigned int n,
			  bool ranges)
{
	u64 share = (1ull << 32) / n;
	struct nfhp_set_key t;
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		keys[i].addr = ranges ? i * share : rnd() % 65536;
		keys[i].hi = ranges ? (u32)(i * share + rnd() % (share / 2 + 1)) :
				      (u32)keys[i].addr;
	}
	for (i = n - 1; ranges && i > 0; i--) {
		j = rnd() % (i + 1);
		t = keys[i];
		keys[i] = keys[j];
		keys[j] = t;
	}
}

/* A random number inside the number key @k. */
static nfhp_u128 num_in(const struct nfhp_set_key *k)
{
	return (u32)k->addr + rnd() % ((u64)k->hi - (u32)k->addr + 1);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static const struct nfhp_set_algo *algo_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(algos); i++)
		if (!strcmp(algos[i]->name, name))
			return algos[i];
	return NULL;
}

/**
 * struct bench - one run
 * @algo: the algorithm
 * @is6: IPv6 keys
 * @routes: the routes mix, not hosts (for numbers: ranges, not ports)
 * @number: number keys
 * @n: keys
 * @keys: them
 * @ctx: the writer's context
 * @mem: its account
 * @gc: its retire list
 * @set: the instance
 * @registry: through the registry: @sets and @rset, not @set
 * @sets: the registry's sets
 * @rset: the set, with counters or not
 */
struct bench {
	const struct nfhp_set_algo *algo;
	bool is6, routes, number;
	unsigned int n;
	struct nfhp_set_key *keys;
	struct nfhp_set_ctx ctx;
	struct nfhp_mem mem;
	struct nfhp_set_gc gc;
	void *set;
	bool registry;
	struct nfhp_sets sets;
	struct nfhp_set *rset;
};

/* Add @key with @value to the set: the algorithm's, or the registry's. */
static int b_add(struct bench *b, const struct nfhp_set_key *key, u32 value,
		 bool update)
{
	if (b->registry)
		return nfhp_set_add(&b->sets, b->rset, key, value, NULL,
				    update ? NFHP_SET_F_UPDATE : 0);
	return b->algo->add(&b->ctx, b->set, key, value, update);
}

static int b_del(struct bench *b, const struct nfhp_set_key *key)
{
	if (b->registry)
		return nfhp_set_remove(&b->sets, b->rset, key);
	return b->algo->del(&b->ctx, b->set, key);
}

/* Let a grace period end and free what waited for it. */
static void b_grace(struct bench *b)
{
	synchronize_rcu();
	if (b->registry)
		nfhp_sets_collect(&b->sets);
	else
		nfhp_set_gc_run(&b->ctx, false);
}

static double bench_add_all(struct bench *b)
{
	u64 t0 = now_ns();
	unsigned int i, added = 0;

	for (i = 0; i < b->n; i++) {
		added += b_add(b, &b->keys[i], i, false) == NFHP_SET_ADDED;
		/* A grace period ends now and then, as in the kernel. */
		if (i % 4096 == 4095)
			b_grace(b);
	}
	if (!added)
		fprintf(stderr, "set_bench: no key added\n");
	return (now_ns() - t0) / 1e9;
}

static double bench_lookup(struct bench *b, unsigned int lookups)
{
	unsigned int width = b->is6 ? 128 : 32, i, hits = 0;
	struct nfhp_set_key *probe = malloc(lookups * sizeof(*probe));
	u64 t0, sum = 0;
	u32 v;

	if (!probe)
		return 0;
	for (i = 0; i < lookups; i++) {
		const struct nfhp_set_key *k = &b->keys[rnd() % b->n];

		probe[i].addr = b->number ? num_in(k) : addr_in(k, width);
		probe[i].plen = width;
	}
	t0 = now_ns();
	for (i = 0; i < lookups && !b->registry; i++) {
		if (b->algo->lookup(b->set, &probe[i], &v)) {
			hits++;
			sum += v;
		}
	}
	/* A packet of 64 bytes each, for a set with counters. */
	for (i = 0; i < lookups && b->registry; i++) {
		if (nfhp_set_lookup(b->rset, &probe[i], 64, &v)) {
			hits++;
			sum += v;
		}
	}
	t0 = now_ns() - t0;
	free(probe);
	if (hits != lookups)
		fprintf(stderr, "set_bench: %u of %u lookups missed\n",
			lookups - hits, lookups);
	return (double)t0 / lookups + (sum == 42 ? 1e-9 : 0);
}

/* Delete and add back keys one at a time: p50 and p99 of each. */
static void bench_single(struct bench *b, unsigned int ops, u64 *del_p,
			 u64 *add_p)
{
	u64 *tdel = calloc(ops, sizeof(u64)), *tadd = calloc(ops, sizeof(u64));
	unsigned int i, j;
	u64 t0;

	for (i = 0; i < ops && tdel && tadd; i++) {
		j = rnd() % b->n;
		t0 = now_ns();
		b_del(b, &b->keys[j]);
		tdel[i] = now_ns() - t0;
		t0 = now_ns();
		b_add(b, &b->keys[j], j, true);
		tadd[i] = now_ns() - t0;
		if (i % 64 == 0)
			b_grace(b);
	}
	if (tdel && tadd) {
		qsort(tdel, ops, sizeof(u64), cmp_u64);
		qsort(tadd, ops, sizeof(u64), cmp_u64);
		del_p[0] = tdel[ops / 2];
		del_p[1] = tdel[ops * 99 / 100];
		add_p[0] = tadd[ops / 2];
		add_p[1] = tadd[ops * 99 / 100];
	}
	free(tdel);
	free(tadd);
}

/* The registry's set of the bench's algorithm and family. */
static struct nfhp_set *bench_registry_set(struct bench *b, bool counting)
{
	struct nfhp_set_spec spec;
	const char *msg = NULL;

	nfhp_sets_init(&b->sets, NULL, ~0ull);
	nfhp_set_spec_init(&spec, b->is6 ? NFHP_FAMILY_IPV6 :
			   NFHP_FAMILY_IPV4, b->algo);
	spec.flags = counting ? NFHP_SET_F_COUNTERS : 0;
	if (nfhp_set_create(&b->sets, "bench", &spec, &msg)) {
		fprintf(stderr, "set_bench: %s\n", msg);
		return NULL;
	}
	return nfhp_set_find(&b->sets, "bench");
}

static int usage(void)
{
	fprintf(stderr, "usage: nf-hipac-set-bench [-n keys] [-l lookups] [-s seed] [-r|-c] ALGO 4|6 hosts|routes|ports|ranges\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct bench b = { .n = 1000000 };
	unsigned int lookups = 10000000, i, distinct;
	u64 del_p[2] = {}, add_p[2] = {};
	const struct nfhp_mem *mem = &b.mem;
	bool counting = false;
	double add_s, look_ns;
	int opt;

	while ((opt = getopt(argc, argv, "n:l:s:rc")) != -1) {
		if (opt == 'r' || opt == 'c') {
			b.registry = true;
			counting |= opt == 'c';
		} else if (opt == 'n')
			b.n = strtoul(optarg, NULL, 0);
		else if (opt == 'l')
			lookups = strtoul(optarg, NULL, 0);
		else if (opt == 's')
			rng_state = strtoull(optarg, NULL, 0) | 1;
		else
			return usage();
	}
	if (argc - optind != 3 || !b.n)
		return usage();
	b.algo = algo_named(argv[optind]);
	b.is6 = !strcmp(argv[optind + 1], "6");
	b.number = b.algo && b.algo->type == NFHP_SET_NUMBER;
	b.routes = !strcmp(argv[optind + 2], b.number ? "ranges" : "routes");
	if (!b.algo || (!b.routes && strcmp(argv[optind + 2],
					    b.number ? "ports" : "hosts")))
		return usage();
	b.keys = calloc(b.n, sizeof(*b.keys));
	if (!b.keys)
		return 1;
	if (b.number)
		make_num_keys(b.keys, b.n, b.routes);
	for (i = 0; i < b.n && !b.number; i++)
		b.keys[i] = make_key(b.is6, b.routes);
	b.mem.limit = ~0ull;
	b.ctx = (struct nfhp_set_ctx){ .mem = &b.mem, .gc = &b.gc };
	if (b.registry) {
		b.rset = bench_registry_set(&b, counting);
		if (!b.rset)
			return 1;
		mem = &b.rset->live.body->mem;
	} else {
		b.set = b.algo->create(&b.ctx, b.is6 ? NFHP_FAMILY_IPV6 :
				       NFHP_FAMILY_IPV4, 0);
		if (!b.set)
			return 1;
	}
	add_s = bench_add_all(&b);
	distinct = b.registry ? nfhp_set_count(&b.sets, b.rset) :
				b.algo->count(b.set);
	if (b.registry)
		nfhp_sets_collect(&b.sets);
	else
		nfhp_set_gc_run(&b.ctx, true);
	look_ns = bench_lookup(&b, lookups);
	printf("%s ipv%s %s%s: keys %u (distinct %u) add-all %.3f s  bytes/key %.1f  lookup %.1f ns",
	       b.algo->name, b.is6 ? "6" : "4", argv[optind + 2],
	       counting ? " counters" : b.registry ? " registry" : "",
	       b.n, distinct, add_s, (double)mem->allocated / distinct,
	       look_ns);
	bench_single(&b, 100000, del_p, add_p);
	printf("  del p50 %llu p99 %llu ns  add p50 %llu p99 %llu ns\n",
	       (unsigned long long)del_p[0], (unsigned long long)del_p[1],
	       (unsigned long long)add_p[0], (unsigned long long)add_p[1]);
	if (b.registry) {
		nfhp_sets_free(&b.sets);
	} else {
		b.algo->destroy(&b.ctx, b.set);
		nfhp_set_gc_run(&b.ctx, true);
	}
	free(b.keys);
	return 0;
}
