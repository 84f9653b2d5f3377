// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the named sets of a namespace.
 *
 * DOC: Named sets
 *
 * A set is a name, a family, an algorithm (set.h) and a body
 * (set_body.c): an instance of the algorithm, which holds the entries.
 * Rules refer to sets by name; the reference is taken
 * when the rule is added (set_match.c) and given back when the rule is
 * freed, a grace period after no packet can see it, so a set that rules
 * refer to cannot be destroyed.  Packets reach a set only through rules:
 * they read its body pointer under RCU, then the algorithm's blocks, and
 * in a set with counters the slot of the entry found (set_counter.c).
 *
 * Changing entries changes neither the rules nor their trees: an add or a
 * remove is the algorithm's, on the live instance.  A flush publishes a
 * new, empty body and frees the old one after a grace period; a swap
 * exchanges the bodies of two sets of the same algorithm and family, so
 * the rules that name either see the other's entries from the next
 * packet on.  Inside a transaction, every change is staged and published
 * at its commit (set_txn.c).  Every writer runs under the namespace's
 * mutex.
 *
 * This is part of the pure core: no netlink here (set_netlink.c).
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "set.h"

static const struct nfhp_set_algo *const nfhp_set_algos[] = {
	&nfhp_set_addr_hash,
	&nfhp_set_addr_lpm,
	&nfhp_set_num_bitmap,
	&nfhp_set_num_range,
	&nfhp_set_flow_hash,
	&nfhp_set_flow_lpm,
	&nfhp_set_iface_hash,
	&nfhp_set_iface_lpm,
};

/**
 * nfhp_set_algo_find() - an algorithm by type and name
 * @type: the &enum nfhp_set_type
 * @name: its name
 *
 * Return: the algorithm, or NULL.
 */
const struct nfhp_set_algo *nfhp_set_algo_find(u8 type, const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nfhp_set_algos); i++)
		if (nfhp_set_algos[i]->type == type &&
		    !strcmp(nfhp_set_algos[i]->name, name))
			return nfhp_set_algos[i];
	return NULL;
}

/**
 * nfhp_set_find() - a set by name, as the open transaction sees it
 * @sets: the namespace's sets
 * @name: the name
 *
 * The writers' view: with a transaction open, a set it created is found
 * and a set it destroyed is not.
 *
 * Return: the set, or NULL.
 */
struct nfhp_set *nfhp_set_find(const struct nfhp_sets *sets, const char *name)
{
	struct nfhp_set *set;

	for (set = sets->first; set; set = set->next)
		if (!set->destroyed && !strcmp(set->name, name))
			return set;
	return NULL;
}

/**
 * nfhp_set_find_committed() - a set by name, as packets see it
 * @sets: the namespace's sets
 * @name: the name
 *
 * The view of listings and tests: no set the open transaction created.
 *
 * Return: the set, or NULL.
 */
struct nfhp_set *nfhp_set_find_committed(const struct nfhp_sets *sets,
					 const char *name)
{
	struct nfhp_set *set;

	for (set = sets->first; set; set = set->next)
		if (!set->created && !strcmp(set->name, name))
			return set;
	return NULL;
}

/* Publish @body as @set's live body, outside a transaction. */
static void nfhp_set_publish(struct nfhp_set *set, struct nfhp_set_body *body)
{
	body->state = NFHP_SET_BODY_LIVE;
	set->live.body = body;
	rcu_assign_pointer(set->pkt_body, body);
}

/**
 * nfhp_set_spec_init() - the spec of a set with no limit, unlocked, and
 *	any number allowed
 * @spec: the spec
 * @family: %NFHP_FAMILY_IPV4 or %NFHP_FAMILY_IPV6
 * @algo: its algorithm
 */
void nfhp_set_spec_init(struct nfhp_set_spec *spec, u8 family,
			const struct nfhp_set_algo *algo)
{
	memset(spec, 0, sizeof(*spec));
	spec->family = family;
	spec->algo = algo;
	spec->range_hi = U32_MAX;
}

/* Is @set what @spec would make, as far as a create can tell? */
static bool nfhp_set_is_spec(const struct nfhp_set *set,
			     const struct nfhp_set_spec *spec)
{
	return set->family == spec->family && set->algo == spec->algo &&
	       set->range_lo == spec->range_lo &&
	       set->range_hi == spec->range_hi &&
	       set->counting == !!(spec->flags & NFHP_SET_F_COUNTERS);
}

/**
 * nfhp_set_create() - a new, empty set
 * @sets: the namespace's sets
 * @name: its name, shorter than %NFHP_SET_MAXNAMELEN
 * @spec: what it is made with; a range other than the whole u32 for a
 *	number set only
 * @msg: set to the reason of a failure
 *
 * In a transaction, the set exists for it alone until the commit.
 *
 * Return: 0 or -errno.
 */
int nfhp_set_create(struct nfhp_sets *sets, const char *name,
		    const struct nfhp_set_spec *spec, const char **msg)
{
	struct nfhp_set *set = nfhp_set_find(sets, name);
	struct nfhp_set_body *body;

	if (set) {
		if (spec->flags & NFHP_SET_F_EXIST &&
		    nfhp_set_is_spec(set, spec))
			return 0;
		*msg = "a set of that name exists";
		return -EEXIST;
	}
	if (!name[0] || strlen(name) >= NFHP_SET_MAXNAMELEN) {
		*msg = "bad set name";
		return -EINVAL;
	}
	if (spec->range_lo > spec->range_hi ||
	    (spec->algo->type != NFHP_SET_NUMBER &&
	     (spec->range_lo || spec->range_hi != U32_MAX))) {
		*msg = "bad range: number sets only, its first no greater than its last";
		return -EINVAL;
	}
	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		goto err_nomem;
	set->stats = alloc_percpu(struct nfhp_set_stats);
	if (!set->stats)
		goto err_free_set;
	body = nfhp_set_body_new(sets, spec->algo, spec->family, 0,
				 spec->flags & NFHP_SET_F_COUNTERS, false);
	if (!body)
		goto err_free_stats;
	strscpy(set->name, name, sizeof(set->name));
	set->family = spec->family;
	set->algo = spec->algo;
	set->range_lo = spec->range_lo;
	set->range_hi = spec->range_hi;
	set->counting = spec->flags & NFHP_SET_F_COUNTERS;
	set->live.limit = spec->limit;
	set->live.locked = spec->flags & NFHP_SET_F_LOCKED;
	if (sets->txn) {
		set->txn = set->live;
		set->txn.body = body;
		set->staged = true;
		set->created = true;
	} else {
		nfhp_set_publish(set, body);
	}
	set->next = sets->first;
	sets->first = set;
	sets->n++;
	return 0;

err_free_stats:
	free_percpu(set->stats);
err_free_set:
	kfree(set);
err_nomem:
	*msg = "no memory for the set";
	return -ENOMEM;
}

/* Free @set, which no rule refers to and no packet reaches. */
static void nfhp_set_free(struct nfhp_sets *sets, struct nfhp_set *set)
{
	if (set->live.body)
		nfhp_set_body_free(sets, set->live.body);
	free_percpu(set->stats);
	kfree(set);
}

/**
 * nfhp_set_stats_sum() - the lookups and hits of a set on every CPU
 * @set: the set
 * @sum: filled with their sums
 */
void nfhp_set_stats_sum(const struct nfhp_set *set,
			struct nfhp_set_stats *sum)
{
	const struct nfhp_set_stats *st;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(set->stats, cpu);
		sum->lookups += READ_ONCE(st->lookups);
		sum->hits += READ_ONCE(st->hits);
	}
}

/* Destroy @set, which no rule refers to, at once or at the commit. */
static void nfhp_set_drop(struct nfhp_sets *sets, struct nfhp_set **p)
{
	struct nfhp_set *set = *p;

	if (sets->txn && !set->created) {
		set->destroyed = true;
		return;
	}
	if (set->staged)
		nfhp_set_body_retire(sets, set->txn.body);
	*p = set->next;
	sets->n--;
	nfhp_set_free(sets, set);
}

/**
 * nfhp_set_destroy() - destroy a set, or every set
 * @sets: the namespace's sets
 * @name: the set, or NULL for all of them
 * @msg: set to the reason of a failure
 *
 * No packet reaches a set no rule refers to: its entries go at once, or
 * in a transaction at the commit.
 *
 * Return: 0; -ENOENT for no such set; -EBUSY while rules refer to it (to
 * any of them, for all: then none goes).
 */
int nfhp_set_destroy(struct nfhp_sets *sets, const char *name,
		     const char **msg)
{
	struct nfhp_set **p, *set;

	for (set = sets->first; set && !name; set = set->next) {
		if (set->refs && !set->destroyed) {
			*msg = "a rule refers to a set";
			return -EBUSY;
		}
	}
	for (p = &sets->first; (set = *p);) {
		if (set->destroyed || (name && strcmp(set->name, name))) {
			p = &set->next;
			continue;
		}
		if (set->refs) {
			*msg = "a rule refers to the set";
			return -EBUSY;
		}
		nfhp_set_drop(sets, p);
		if (name)
			return 0;
		if (*p == set)
			p = &set->next;
	}
	if (name) {
		*msg = "no set of that name";
		return -ENOENT;
	}
	return 0;
}

/**
 * nfhp_set_flush() - remove every entry of a set
 * @sets: the namespace's sets
 * @set: the set
 *
 * A new, empty body replaces the set's: packets see either.  The old one
 * is freed after a grace period (at once if only a transaction saw it).
 *
 * Return: 0 or -ENOMEM, with the set as it was.
 */
int nfhp_set_flush(struct nfhp_sets *sets, struct nfhp_set *set)
{
	struct nfhp_set_state *st = nfhp_set_state_write(sets, set);
	struct nfhp_set_body *body, *old = st->body;

	body = nfhp_set_body_new(sets, set->algo, set->family, 0,
				 set->counting, false);
	if (!body)
		return -ENOMEM;
	if (sets->txn) {
		st->body = body;
	} else {
		nfhp_set_publish(set, body);
		old->state = NFHP_SET_BODY_LEAVING;
	}
	nfhp_set_body_retire(sets, old);
	return 0;
}

/**
 * nfhp_set_swap() - exchange the entries of two sets
 * @sets: the namespace's sets
 * @a: one set
 * @b: the other
 * @msg: set to the reason of a failure
 *
 * Their bodies change places; names, limits, locks and the rules'
 * references stay.
 *
 * Return: 0, or -EINVAL for sets of another algorithm, family or range,
 * or when one counts and the other does not.
 */
int nfhp_set_swap(struct nfhp_sets *sets, struct nfhp_set *a,
		  struct nfhp_set *b, const char **msg)
{
	struct nfhp_set_state *sa, *sb;

	if (a->algo != b->algo || a->family != b->family) {
		*msg = "the sets differ in type, algorithm or family";
		return -EINVAL;
	}
	/* Each keeps its range: entries must not land outside one. */
	if (a->range_lo != b->range_lo || a->range_hi != b->range_hi) {
		*msg = "the sets differ in range";
		return -EINVAL;
	}
	/* Each body counts or not for good: it may not change sets. */
	if (a->counting != b->counting) {
		*msg = "one set has counters, the other not";
		return -EINVAL;
	}
	sa = nfhp_set_state_write(sets, a);
	sb = nfhp_set_state_write(sets, b);
	swap(sa->body, sb->body);
	if (!sets->txn) {
		rcu_assign_pointer(a->pkt_body, a->live.body);
		rcu_assign_pointer(b->pkt_body, b->live.body);
	}
	return 0;
}

/**
 * nfhp_set_modify() - change the limit or the lock of a set
 * @sets: the namespace's sets
 * @set: the set
 * @limit: the new limit, or NULL to keep it
 * @locked: the new lock, or NULL to keep it
 */
void nfhp_set_modify(struct nfhp_sets *sets, struct nfhp_set *set,
		     const u32 *limit, const bool *locked)
{
	struct nfhp_set_state *st = nfhp_set_state_write(sets, set);

	if (limit)
		st->limit = *limit;
	if (locked)
		st->locked = *locked;
}

/* Would an add of @key pass @st's limit with the entries it adds? */
static bool nfhp_set_full(const struct nfhp_set_state *st,
			  const struct nfhp_set_key *key)
{
	const struct nfhp_set_body *body = st->body;
	const struct nfhp_set_algo *algo = body->algo;
	u64 fresh;
	u32 old;

	/* The algorithms' readers run under RCU, whoever calls them. */
	rcu_read_lock();
	fresh = algo->fresh ? algo->fresh(body->inst, key) :
			      !algo->find(body->inst, key, &old);
	fresh = fresh ? fresh + algo->count(body->inst) : 0;
	rcu_read_unlock();
	return fresh > st->limit;
}

/* The result of an algorithm's add or del: its own, or for an errno. */
static int nfhp_set_result(int ret)
{
	if (ret == -EINVAL)
		return NFHP_SET_INVALID;
	/* lpm rebuilds a bucket to delete a prefix, and may run out. */
	return ret < 0 ? NFHP_SET_NOMEM : ret;
}

/**
 * nfhp_set_body_slot() - give a set's written body slots, for nomatch
 * @sets: the namespace's sets
 * @set: the set
 * @body: the body a writer of @set changes; set to its slotted copy
 *
 * The copy replaces it as a flush's empty body does: live at once
 * outside a transaction (the old body goes after a grace period), staged
 * in one (the old staged body goes at once).
 *
 * Return: 0, or -ENOMEM with @set as it was.
 */
static int nfhp_set_body_slot(struct nfhp_sets *sets, struct nfhp_set *set,
			      struct nfhp_set_body **body)
{
	struct nfhp_set_state *st = nfhp_set_state_write(sets, set);
	struct nfhp_set_body *copy, *old = *body;

	copy = nfhp_set_body_copy(sets, old, set->family, true);
	if (!copy)
		return -ENOMEM;
	if (sets->txn) {
		st->body = copy;
	} else {
		nfhp_set_publish(set, copy);
		old->state = NFHP_SET_BODY_LEAVING;
	}
	nfhp_set_body_retire(sets, old);
	*body = copy;
	return 0;
}

/**
 * nfhp_set_add() - add an entry, or give an entry a new value
 * @sets: the namespace's sets
 * @set: the set
 * @key: the entry's key
 * @value: its value
 * @counts: the counts it starts at, of a set with counters; NULL for 0
 * @flags: %NFHP_SET_F_UPDATE; %NFHP_SET_ADD_NOMATCH for a nomatch entry
 *
 * The first nomatch entry of a body without slots makes it a slotted
 * copy first (DOC: Counters).
 *
 * Return: an &enum nfhp_set_result: %NFHP_SET_INVALID for counts given
 * to a set without counters, or a nomatch entry to an algorithm without
 * them.
 */
int nfhp_set_add(struct nfhp_sets *sets, struct nfhp_set *set,
		 const struct nfhp_set_key *key, u32 value,
		 const struct nfhp_set_counts *counts, u32 flags)
{
	struct nfhp_set_state *st = nfhp_set_state_write(sets, set);
	struct nfhp_set_body *body;
	struct nfhp_set_ctx ctx;
	int ret;

	if (st->locked)
		return NFHP_SET_LOCKED;
	if (counts && counts->given && !set->counting)
		return NFHP_SET_INVALID;
	if ((flags & NFHP_SET_ADD_NOMATCH) && !set->algo->nomatch)
		return NFHP_SET_INVALID;
	if (set->algo->type == NFHP_SET_NUMBER &&
	    (nfhp_set_key_num(key) < set->range_lo || key->hi > set->range_hi))
		return NFHP_SET_OUT_OF_RANGE;
	if (st->limit && nfhp_set_full(st, key))
		return NFHP_SET_LIMIT;
	if (nfhp_set_body_write(sets, set, &body))
		return NFHP_SET_NOMEM;
	if ((flags & NFHP_SET_ADD_NOMATCH) && !body->slotted &&
	    nfhp_set_body_slot(sets, set, &body))
		return NFHP_SET_NOMEM;
	ctx = nfhp_set_body_ctx(sets, body);
	ret = nfhp_set_body_add(&ctx, body, key, value, counts,
				flags & (NFHP_SET_F_UPDATE |
					 NFHP_SET_ADD_NOMATCH));
	nfhp_set_gc_run(&ctx, false);
	return nfhp_set_result(ret);
}

/**
 * nfhp_set_remove() - remove an entry
 * @sets: the namespace's sets
 * @set: the set
 * @key: the entry's key
 *
 * Return: an &enum nfhp_set_result.
 */
int nfhp_set_remove(struct nfhp_sets *sets, struct nfhp_set *set,
		    const struct nfhp_set_key *key)
{
	struct nfhp_set_state *st = nfhp_set_state_write(sets, set);
	struct nfhp_set_body *body;
	struct nfhp_set_ctx ctx;
	int ret;

	if (st->locked)
		return NFHP_SET_LOCKED;
	if (nfhp_set_body_write(sets, set, &body))
		return NFHP_SET_NOMEM;
	ctx = nfhp_set_body_ctx(sets, body);
	ret = nfhp_set_body_del(&ctx, body, key);
	nfhp_set_gc_run(&ctx, false);
	return nfhp_set_result(ret);
}

/* The live body of @set for its writers and the readers of its entries. */
static const struct nfhp_set_body *
nfhp_set_body_read(const struct nfhp_sets *sets, const struct nfhp_set *set)
{
	return rcu_dereference_check(set->pkt_body, !sets->lock ||
				     lockdep_is_held(sets->lock));
}

/**
 * nfhp_set_test() - is a key in a set, and with what value?
 * @sets: the namespace's sets
 * @set: the set
 * @key: a host, looked up as a packet's address; or a prefix, which must
 *	be an entry itself.  Of a number set: a number, looked up as a
 *	packet's port; or a range, which must be an entry itself.  Of an
 *	interface set: a name, looked up as a packet's device; or a
 *	wildcard, which must be an entry itself
 * @value: set to the value found
 * @counts: set to the entry's counts in a set with counters, or NULL
 * @nomatch: ipset's "test ... nomatch": is the entry found a nomatch one?
 *
 * Call under rcu_read_lock() or the writers' lock.  A test counts no
 * packet.
 *
 * Return: true if it is: an entry is found, and is a nomatch one exactly
 * when @nomatch says so.  Without @nomatch, as a packet would be.
 */
bool nfhp_set_test(const struct nfhp_sets *sets, const struct nfhp_set *set,
		   const struct nfhp_set_key *key, u32 *value,
		   struct nfhp_set_counts *counts, bool nomatch)
{
	unsigned int width = set->algo->type == NFHP_SET_IFACE ? 128 :
			     nfhp_dim_bits(set->family, NFHP_DIM_SRC);
	bool found, lookup;
	u32 eflags;

	lookup = set->algo->type == NFHP_SET_NUMBER ?
		 nfhp_set_key_num(key) == key->hi : key->plen == width;
	rcu_read_lock();
	found = nfhp_set_body_find(nfhp_set_body_read(sets, set), key, lookup,
				   value, counts, &eflags);
	rcu_read_unlock();
	return found && !(eflags & NFHP_SETE_F_NOMATCH) == !nomatch;
}

/**
 * nfhp_set_count() - the entries of a set
 * @sets: the namespace's sets
 * @set: the set
 *
 * Return: how many.
 */
u32 nfhp_set_count(const struct nfhp_sets *sets, const struct nfhp_set *set)
{
	u32 n;

	rcu_read_lock();
	n = set->algo->count(nfhp_set_body_read(sets, set)->inst);
	rcu_read_unlock();
	return n;
}

/**
 * nfhp_set_walk() - call @fn for the entries of a set from *@cursor on
 * @sets: the namespace's sets
 * @set: the set
 * @cursor: where to begin, 0 at first; where to go on, on return
 * @fn: called for each entry, with its value and counts; non-zero stops
 *	the walk
 * @arg: its first argument
 *
 * @fn runs under rcu_read_lock(): it must not sleep.
 *
 * Return: what @fn returned to stop the walk, or 0 at the end.
 */
int nfhp_set_walk(const struct nfhp_sets *sets, const struct nfhp_set *set,
		  u64 *cursor, nfhp_set_entry_fn fn, void *arg)
{
	int ret;

	rcu_read_lock();
	ret = nfhp_set_body_walk(nfhp_set_body_read(sets, set), cursor, fn,
				 arg);
	rcu_read_unlock();
	return ret;
}

/**
 * nfhp_sets_collect() - free the replaced blocks no lookup can read now
 * @sets: the namespace's sets
 *
 * Return: true when some are left, for a later call.
 */
bool nfhp_sets_collect(struct nfhp_sets *sets)
{
	struct nfhp_set_body *bodies[2];
	struct nfhp_set_ctx ctx;
	struct nfhp_set *set;
	bool left = false;
	unsigned int i;

	for (set = sets->first; set; set = set->next) {
		bodies[0] = set->live.body;
		bodies[1] = set->staged ? set->txn.body : NULL;
		for (i = 0; i < ARRAY_SIZE(bodies); i++) {
			if (!bodies[i] || (i && bodies[i] == bodies[0]))
				continue;
			ctx = nfhp_set_body_ctx(sets, bodies[i]);
			nfhp_set_gc_run(&ctx, false);
			left |= !!bodies[i]->gc.head;
		}
	}
	return nfhp_set_bodies_collect(sets, false) || left;
}

/**
 * nfhp_sets_init() - an empty registry
 * @sets: the registry
 * @lock: the mutex its writers hold, for lockdep; NULL in tests
 * @mem_limit: the memory bound of each set's body
 */
void nfhp_sets_init(struct nfhp_sets *sets, struct mutex *lock, u64 mem_limit)
{
	memset(sets, 0, sizeof(*sets));
	sets->lock = lock;
	sets->mem_limit = mem_limit;
}

/**
 * nfhp_sets_free() - free every set of a registry no rule refers to any more
 * @sets: the registry
 */
void nfhp_sets_free(struct nfhp_sets *sets)
{
	struct nfhp_set *set;

	WARN_ON_ONCE(sets->txn);
	while ((set = sets->first)) {
		WARN_ON_ONCE(set->refs);
		sets->first = set->next;
		nfhp_set_free(sets, set);
	}
	sets->n = 0;
	nfhp_set_bodies_collect(sets, true);
}
