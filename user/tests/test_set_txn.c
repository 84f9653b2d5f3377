// SPDX-License-Identifier: GPL-2.0
/*
 * test_set_txn: the registry of named sets, in and out of transactions,
 * against a naive model.
 *
 *	test_set_txn [steps [seed]]
 *
 * A handful of names, each a set or none, take random creates (with and
 * without -exist), destroys (of one and of all), flushes, swaps, limit and
 * lock changes, adds (with and without update) and removes of hosts drawn
 * from a small pool, with rules' references taken and given back between
 * transactions, and transactions begun, committed and aborted.  The model
 * is two arrays of naive sets: the committed one, and the staged one of
 * the open transaction.  After each step:
 *   - listings and tests (nfhp_set_find_committed(), nfhp_set_test(),
 *     nfhp_set_count()) and packets (the algorithm's lookup of the set's
 *     published instance) see exactly the committed model;
 *   - the writers' view (nfhp_set_find(), and the staged body) sees
 *     exactly the staged model.
 * Allocation failures are injected on the way: a refused step changes
 * nothing.  Grace periods pass at random and the retired bodies are
 * collected.  At the end every set and body is freed (LeakSanitizer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "set.h"
#include "tap.h"
#include "xorshift.h"

#define NAMES	5
#define POOL	12

/**
 * struct model_set - a set as the model holds it
 * @exists: there is a set of this name
 * @algo: its algorithm
 * @limit: most entries, 0 for none
 * @locked: adds and removes fail
 * @has: which keys of the pool it holds
 * @value: their values
 * @refs: rules that refer to it
 */
struct model_set {
	bool exists;
	const struct nfhp_set_algo *algo;
	u32 limit;
	bool locked;
	bool has[POOL];
	u32 value[POOL];
	u32 refs;
};

/**
 * struct run - one run of the test
 * @sets: the registry under test
 * @committed: what packets must see
 * @staged: what the open transaction must see
 * @txn: a transaction is open
 * @bad: steps where the registry and the model disagreed
 * @first_bad: the first of them
 * @step: the step under way
 */
struct run {
	struct nfhp_sets sets;
	struct model_set committed[NAMES];
	struct model_set staged[NAMES];
	bool txn;
	unsigned int bad;
	unsigned int first_bad;
	unsigned int step;
};

static const char *const names[NAMES] = { "a", "b", "c", "d", "e" };

static struct nfhp_set_key pool_key(unsigned int k)
{
	/* Hosts every algorithm takes, close together and far apart. */
	return (struct nfhp_set_key){ .addr = k < 6 ? 0x0a000000u + k :
					      0xc0a80000u + (k << 20),
				      .plen = 32 };
}

static void fail(struct run *r, const char *what)
{
	if (!r->bad++) {
		r->first_bad = r->step;
		printf("# step %u: %s\n", r->step, what);
	}
}

static struct model_set *view(struct run *r)
{
	return r->txn ? r->staged : r->committed;
}

static unsigned int model_count(const struct model_set *m)
{
	unsigned int k, n = 0;

	for (k = 0; k < POOL; k++)
		n += m->has[k];
	return n;
}

/* The body the writers' view of @set reads. */
static struct nfhp_set_body *writer_body(const struct run *r,
					 const struct nfhp_set *set)
{
	return r->txn && set->staged ? set->txn.body : set->live.body;
}

static bool body_agrees(const struct nfhp_set_body *body,
			const struct model_set *m, bool packets)
{
	struct nfhp_set_key key;
	bool in;
	u32 v;
	unsigned int k;

	if (body->algo != m->algo || body->algo->count(body->inst) !=
	    model_count(m))
		return false;
	for (k = 0; k < POOL; k++) {
		key = pool_key(k);
		v = 0;
		if (packets)
			in = body->algo->lookup(body->inst, &key, &v);
		else
			in = body->algo->find(body->inst, &key, &v);
		if (in != m->has[k] || (in && v != m->value[k]))
			return false;
	}
	return true;
}

/* Does everything that reads the registry see what the model says? */
static void check_views(struct run *r)
{
	const struct model_set *c, *s;
	struct nfhp_set *set;
	struct nfhp_set_key key;
	unsigned int i, k;
	u32 v;

	for (i = 0; i < NAMES; i++) {
		c = &r->committed[i];
		set = nfhp_set_find_committed(&r->sets, names[i]);
		if (!set != !c->exists) {
			fail(r, "a committed set is there, or not, wrongly");
			continue;
		}
		if (set && (set->live.limit != c->limit ||
			    set->live.locked != c->locked ||
			    set->refs != c->refs ||
			    nfhp_set_count(&r->sets, set) != model_count(c) ||
			    rcu_access_pointer(set->pkt_body) != set->live.body ||
			    !body_agrees(set->live.body, c, true)))
			fail(r, "packets or listings see other entries");
		for (k = 0; set && k < POOL; k++) {
			key = pool_key(k);
			if (nfhp_set_test(&r->sets, set, &key, &v, NULL, false) !=
			    c->has[k])
				fail(r, "a test sees other entries");
		}
		s = view(r) + i;
		set = nfhp_set_find(&r->sets, names[i]);
		if (!set != !s->exists)
			fail(r, "the writers' set is there, or not, wrongly");
		else if (set && !body_agrees(writer_body(r, set), s, false))
			fail(r, "the writers see other entries");
	}
}

static void step_create(struct run *r, unsigned int i)
{
	const struct nfhp_set_algo *algo = rnd() % 2 ? &nfhp_set_addr_hash :
						       &nfhp_set_addr_lpm;
	u32 flags = (rnd() % 2 ? NFHP_SET_F_EXIST : 0) |
		    (rnd() % 8 ? 0 : NFHP_SET_F_LOCKED);
	struct model_set *m = view(r) + i;
	u32 limit = rnd() % 3 ? 0 : 1 + rnd() % 4;
	struct nfhp_set_spec spec;
	const char *msg = NULL;
	int want = 0, got;

	nfhp_set_spec_init(&spec, NFHP_FAMILY_IPV4, algo);
	spec.limit = limit;
	spec.flags = flags;
	nfhp_shim_fail_countdown = rnd() % 6 ? 0 : 1 + rnd() % 4;
	got = nfhp_set_create(&r->sets, names[i], &spec, &msg);
	nfhp_shim_fail_countdown = 0;
	if (m->exists && !(flags & NFHP_SET_F_EXIST && m->algo == algo))
		want = -EEXIST;
	if (got == -ENOMEM && !want && !m->exists)
		return;
	if (got != want)
		fail(r, "create");
	if (got || m->exists)
		return;
	*m = (struct model_set){ .exists = true, .algo = algo,
				 .limit = limit,
				 .locked = flags & NFHP_SET_F_LOCKED };
}

static void step_destroy(struct run *r, unsigned int i)
{
	struct model_set *m = view(r);
	bool all = rnd() % 8 == 0, busy = false;
	const char *msg = NULL;
	unsigned int j;
	int want = 0, got;

	for (j = 0; j < NAMES; j++)
		busy |= m[j].exists && m[j].refs && (all || j == i);
	if (busy)
		want = -EBUSY;
	else if (!all && !m[i].exists)
		want = -ENOENT;
	got = nfhp_set_destroy(&r->sets, all ? NULL : names[i], &msg);
	if (got != want)
		fail(r, "destroy");
	for (j = 0; !got && j < NAMES; j++)
		if (all || j == i)
			m[j].exists = false;
}

static void step_flush(struct run *r, unsigned int i)
{
	struct model_set *m = view(r) + i;
	struct nfhp_set *set = nfhp_set_find(&r->sets, names[i]);
	int got;

	if (!set)
		return;
	nfhp_shim_fail_countdown = rnd() % 6 ? 0 : 1 + rnd() % 3;
	got = nfhp_set_flush(&r->sets, set);
	nfhp_shim_fail_countdown = 0;
	if (got == -ENOMEM)
		return;
	if (got)
		fail(r, "flush");
	memset(m->has, 0, sizeof(m->has));
}

static void step_swap(struct run *r, unsigned int i, unsigned int j)
{
	struct model_set *a = view(r) + i, *b = view(r) + j, t;
	struct nfhp_set *sa = nfhp_set_find(&r->sets, names[i]);
	struct nfhp_set *sb = nfhp_set_find(&r->sets, names[j]);
	const char *msg = NULL;
	int got;

	if (!sa || !sb)
		return;
	got = nfhp_set_swap(&r->sets, sa, sb, &msg);
	if (got != (a->algo == b->algo ? 0 : -EINVAL))
		fail(r, "swap");
	if (got)
		return;
	/* Entries change places; limits, locks and references stay. */
	t = *a;
	memcpy(a->has, b->has, sizeof(a->has));
	memcpy(a->value, b->value, sizeof(a->value));
	memcpy(b->has, t.has, sizeof(b->has));
	memcpy(b->value, t.value, sizeof(b->value));
}

static void step_modify(struct run *r, unsigned int i)
{
	struct model_set *m = view(r) + i;
	struct nfhp_set *set = nfhp_set_find(&r->sets, names[i]);
	u32 limit = rnd() % 2 ? 0 : 1 + rnd() % 4;
	bool locked = rnd() % 3 == 0;

	if (!set)
		return;
	nfhp_set_modify(&r->sets, set, &limit, &locked);
	m->limit = limit;
	m->locked = locked;
}

static void step_entry(struct run *r, unsigned int i, bool add)
{
	struct model_set *m = view(r) + i;
	struct nfhp_set *set = nfhp_set_find(&r->sets, names[i]);
	unsigned int k = rnd() % POOL;
	struct nfhp_set_key key = pool_key(k);
	u32 value = rnd() % 4, flags = rnd() % 2 ? NFHP_SET_F_UPDATE : 0;
	int want, got;

	if (!set)
		return;
	nfhp_shim_fail_countdown = rnd() % 6 ? 0 : 1 + rnd() % 4;
	if (add)
		got = nfhp_set_add(&r->sets, set, &key, value, NULL, flags);
	else
		got = nfhp_set_remove(&r->sets, set, &key);
	nfhp_shim_fail_countdown = 0;
	if (got == NFHP_SET_NOMEM)
		return;
	if (m->locked)
		want = NFHP_SET_LOCKED;
	else if (!add)
		want = m->has[k] ? NFHP_SET_DELETED : NFHP_SET_NOT_FOUND;
	else if (m->has[k])
		want = flags ? NFHP_SET_UPDATED : NFHP_SET_EXISTS;
	else if (m->limit && model_count(m) >= m->limit)
		want = NFHP_SET_LIMIT;
	else
		want = NFHP_SET_ADDED;
	if (got != want)
		fail(r, add ? "add" : "remove");
	if (want == NFHP_SET_ADDED || want == NFHP_SET_UPDATED)
		m->value[k] = value;
	if (want == NFHP_SET_ADDED || want == NFHP_SET_DELETED)
		m->has[k] = add;
}

/* A rule takes or gives back a reference, between transactions. */
static void step_ref(struct run *r, unsigned int i)
{
	struct nfhp_set *set = nfhp_set_find(&r->sets, names[i]);
	struct model_set *m = r->committed + i;

	if (!set)
		return;
	if (m->refs && rnd() % 2) {
		set->refs--;
		m->refs--;
	} else {
		set->refs++;
		m->refs++;
	}
}

static void step_txn(struct run *r)
{
	if (!r->txn) {
		nfhp_sets_begin(&r->sets);
		memcpy(r->staged, r->committed, sizeof(r->staged));
		r->txn = true;
	} else if (rnd() % 3) {
		nfhp_sets_commit(&r->sets);
		memcpy(r->committed, r->staged, sizeof(r->committed));
		r->txn = false;
	} else {
		nfhp_sets_abort(&r->sets);
		r->txn = false;
	}
}

static void run_steps(struct run *r, unsigned int steps)
{
	unsigned int i;

	for (r->step = 0; r->step < steps; r->step++) {
		i = rnd() % NAMES;
		switch (rnd() % 16) {
		case 0:
		case 1:
			step_create(r, i);
			break;
		case 2:
			step_destroy(r, i);
			break;
		case 3:
			step_flush(r, i);
			break;
		case 4:
			step_swap(r, i, rnd() % NAMES);
			break;
		case 5:
			step_modify(r, i);
			break;
		case 6:
			if (!r->txn)
				step_ref(r, i);
			break;
		case 7:
		case 8:
			step_txn(r);
			break;
		case 9:
			synchronize_rcu();
			nfhp_sets_collect(&r->sets);
			break;
		default:
			step_entry(r, i, rnd() % 3);
		}
		check_views(r);
	}
}

/* Give back every reference and free it all. */
static void run_end(struct run *r)
{
	struct nfhp_set *set;

	if (r->txn)
		nfhp_sets_abort(&r->sets);
	for (set = r->sets.first; set; set = set->next)
		set->refs = 0;
	nfhp_sets_free(&r->sets);
}

int main(int argc, char **argv)
{
	unsigned int steps = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
	unsigned int seed = argc > 2 ? strtoul(argv[2], NULL, 0) : 44;
	unsigned int runs = 8, n;
	struct run *r;

	for (n = 0; n < runs; n++) {
		r = calloc(1, sizeof(*r));
		if (!r)
			return 1;
		rng_state = 0x9e3779b97f4a7c15ull * (seed + n + 1);
		nfhp_sets_init(&r->sets, NULL, ~0ull);
		run_steps(r, steps);
		check(!r->bad, "run %u, seed %u: %u steps, every view as the model (%u bad, first at %u)",
		      n, seed, steps, r->bad, r->first_bad);
		run_end(r);
		free(r);
	}
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
