// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: dynamic states, the table.
 *
 * DOC: Theory of Operation
 *
 * The states of a namespace live in one hash of buckets, each a singly
 * linked list under RCU.  A flow's key puts its two ends in canonical
 * order (state_key.c), so a packet and its reply hash to one bucket.
 *
 * Lookups (nfhp_state_check()) take no lock: under rcu_read_lock() they
 * walk the bucket, skip dead states, and renew the one they find
 * (state_tcp.c).  Writers take the lock of the bucket: bucket i of any
 * array is under lock i & lock_mask, with at most
 * %NFHP_STATE_LOCKS_MAX locks and never more than the first array's
 * buckets.  A state made on the packet path (nfhp_state_keep()) takes
 * its bucket's lock, looks again, counts itself against max_states
 * with an atomic counter (refused and counted beyond it), takes its
 * limit's parent if the rule has a limit (state_limit.c), and is
 * published at the head of the bucket: no global lock.  Its memory
 * was reserved on the table's account when max_states was set
 * (nfhp_state_set_bounds()), so the packet path never touches the
 * account.
 *
 * A dead state stays linked until the tick (nfhp_state_tick(), in
 * state_gc.c) reaches its bucket: the tick walks a budget of buckets
 * per call and frees what it finds dead, a grace period later.  A
 * packet that makes a state whose dead twin is still linked unlinks
 * the twin first.
 *
 * Growth: when the states outnumber the buckets (bucket_load states
 * each), the tick hangs a bigger array on the current one (&struct
 * nfhp_state_array.future) and from then on moves a budget of buckets
 * per tick.  How big the table may grow follows max_states, up to a hard
 * cap (nfhp_state_buckets_bound()), and the arrays are taken on the
 * table's account, so the namespace's memory bound holds them too.  A bucket is
 * moved under its lock, one state at a time from its tail: the tail
 * is linked at the head of its new bucket, then cut from the old.  A
 * lookup that misses in an array tries its future one: a state it
 * could not see in the old bucket had been moved already, and a
 * reader standing on a moved tail walks on into the new bucket, having
 * seen everything before it.  The state's lock is the same in both
 * arrays, because both sizes are multiples of the lock count.  New
 * states go to the newest array.  When every bucket is moved, the new
 * array becomes the table's and the old one is freed after a grace
 * period.
 *
 * Example, with ipfw's lifetimes and a clock of 100 ticks a second.
 * "keep-state" for 10.0.0.1:40000 -> 10.0.0.2:80 meets a SYN at tick
 * 0: the key is (10.0.0.1:40000, 10.0.0.2:80), the packet forward,
 * the word SYN, so the state expires at 2000 (syn, 20 s).  The SYN-ACK
 * at tick 5 is reverse: the word is SYN|SYN<<8, established, and its
 * ACK sets ACK_REV but renews nothing.  The client's ACK at tick 6
 * sets ACK_FWD: both bits, so they are cleared and the state expires
 * at 6 + 30000 (ack, 300 s).  Data with ACKs both ways renews it each
 * round trip.  A FIN each way makes it expire 1 s after the last, and
 * the tick that reaches its bucket after that frees it.
 *
 * Growth: a table of 4 buckets (lock stripes 0-3) holds 5 states; the
 * tick hangs an array of 8 buckets on it.  A state of hash 0x..6 sits
 * in old bucket 2 and goes to new bucket 6, both under lock 2.  Until
 * bucket 2 is moved, a lookup of it finds it in the old array; after,
 * it misses there and finds it in the new one.
 *
 * Limit: "keep-state limit src-addr 2": the flows from 10.0.0.1 to
 * ports 80 and 443 each take the parent (rule, 10.0.0.1), count 2; a
 * third flow from 10.0.0.1 is refused (-EDQUOT, refused_limit + 1) and
 * the rule does not match.  When one of the two states is freed, the
 * parent's count drops to 1 and a new flow is let in again.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "state.h"

/**
 * nfhp_state_tunables_default() - ipfw's settings
 * @tun: filled with them
 */
void nfhp_state_tunables_default(struct nfhp_state_tunables *tun)
{
	*tun = (struct nfhp_state_tunables){
		.syn_lifetime = NFHP_STATE_SYN_LIFETIME,
		.ack_lifetime = NFHP_STATE_ACK_LIFETIME,
		.fin_lifetime = NFHP_STATE_FIN_LIFETIME,
		.rst_lifetime = NFHP_STATE_RST_LIFETIME,
		.udp_lifetime = NFHP_STATE_UDP_LIFETIME,
		.short_lifetime = NFHP_STATE_SHORT_LIFETIME,
		.max_states = NFHP_STATE_MAX,
		.max_parents = NFHP_STATE_PARENT_MAX,
		.buckets_init = NFHP_STATE_BUCKETS_INIT,
		.buckets_max = NFHP_STATE_BUCKETS_MAX,
		.bucket_load = NFHP_STATE_BUCKET_LOAD,
	};
}

/**
 * nfhp_state_array_size() - the bytes of an array of buckets
 * @buckets: its buckets
 *
 * Return: the bytes.
 */
static size_t nfhp_state_array_size(u32 buckets)
{
	struct nfhp_state_array *a;

	return struct_size(a, head, buckets);
}

/**
 * nfhp_state_array_new() - an empty array of buckets
 * @t: the table, for its account
 * @buckets: a power of two
 *
 * Return: the array, or NULL.
 */
struct nfhp_state_array *nfhp_state_array_new(struct nfhp_state_table *t,
					      u32 buckets)
{
	struct nfhp_state_array *a;

	a = nfhp_alloc(t->mem, nfhp_state_array_size(buckets));
	if (a)
		a->mask = buckets - 1;
	return a;
}

/**
 * nfhp_state_array_free() - free an array no lookup can read
 * @t: the table
 * @a: the array, or NULL
 */
void nfhp_state_array_free(struct nfhp_state_table *t,
			   struct nfhp_state_array *a)
{
	if (a)
		nfhp_free(t->mem, a, nfhp_state_array_size(a->mask + 1));
}

/**
 * nfhp_state_reservation() - the bytes a table's bounds may take
 * @max_states: the states at most
 * @max_parents: the parents at most
 *
 * Return: the bytes the allocator hands out for them, at most.
 */
static u64 nfhp_state_reservation(u32 max_states, u32 max_parents)
{
	return (u64)max_states * kmalloc_size_roundup(sizeof(struct nfhp_state)) +
	       (u64)max_parents *
	       kmalloc_size_roundup(sizeof(struct nfhp_state_parent));
}

/**
 * nfhp_state_set_bounds() - change max_states and max_parents
 * @t: the table
 * @max_states: the new bound on states
 * @max_parents: and on parents
 *
 * Reserves their memory on the table's account.  States and parents
 * already beyond a lowered bound stay until they expire.  The bound of
 * the buckets follows (nfhp_state_buckets_bound()): a raised one lets
 * the next ticks grow the table, a lowered one stops growth, but the
 * table never shrinks.  Serialized with the table's other writers by
 * the caller.
 *
 * Return: 0, or -ENOMEM when the account's bound would be passed (the
 * bounds unchanged).
 */
int nfhp_state_set_bounds(struct nfhp_state_table *t, u32 max_states,
			  u32 max_parents)
{
	u64 want = nfhp_state_reservation(max_states, max_parents);

	nfhp_mem_unreserve(t->mem, t->reserved);
	if (!nfhp_mem_reserve(t->mem, want)) {
		WARN_ON(!nfhp_mem_reserve(t->mem, t->reserved));
		return -ENOMEM;
	}
	t->reserved = want;
	WRITE_ONCE(t->tun.max_states, max_states);
	WRITE_ONCE(t->tun.max_parents, max_parents);
	return 0;
}

/**
 * nfhp_state_table_init() - an empty table
 * @t: the table
 * @mem: the account of its memory
 * @tun: its settings; the bucket counts powers of two
 * @hz: ticks per second of the clock the caller will give
 * @lock: the mutex the caller will serialize ticks, flushes and
 *	nfhp_state_set_bounds() with, for lockdep; or NULL
 *
 * Return: 0, -EINVAL for bad settings, or -ENOMEM (@t holds nothing).
 */
int nfhp_state_table_init(struct nfhp_state_table *t, struct nfhp_mem *mem,
			  const struct nfhp_state_tunables *tun, u32 hz,
			  struct mutex *lock)
{
	u32 nlocks, nparents, i;
	int err = -ENOMEM;

	if (!tun->buckets_init || !is_power_of_2(tun->buckets_init) ||
	    !is_power_of_2(tun->buckets_max) ||
	    tun->buckets_max < tun->buckets_init || !tun->bucket_load || !hz)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->mem = mem;
	t->hz = hz;
	t->lock = lock;
	t->tun = *tun;
	t->seed = get_random_u32();
	nlocks = min_t(u32, tun->buckets_init, NFHP_STATE_LOCKS_MAX);
	t->locks = nfhp_alloc(mem, nlocks * sizeof(*t->locks));
	if (!t->locks)
		return -ENOMEM;
	for (i = 0; i < nlocks; i++)
		spin_lock_init(&t->locks[i]);
	t->lock_mask = nlocks - 1;
	RCU_INIT_POINTER(t->arr, nfhp_state_array_new(t, tun->buckets_init));
	if (!rcu_access_pointer(t->arr))
		goto err_locks;
	nparents = roundup_pow_of_two(clamp_t(u32, tun->max_parents / 4,
					      16, 4096));
	if (nfhp_state_parents_init(t, nparents))
		goto err_arr;
	err = nfhp_state_set_bounds(t, tun->max_states, tun->max_parents);
	if (err)
		goto err_parents;
	return 0;

err_parents:
	nfhp_state_parents_free(t);
err_arr:
	nfhp_state_array_free(t, rcu_access_pointer(t->arr));
err_locks:
	nfhp_free(mem, t->locks, nlocks * sizeof(*t->locks));
	return err;
}

/**
 * nfhp_state_table_destroy() - free a table and every state in it
 * @t: the table, which no packet path can reach any more
 *
 * Serialized like a flush: under the table's mutex.
 */
void nfhp_state_table_destroy(struct nfhp_state_table *t)
{
	struct nfhp_state_array *a;

	a = rcu_dereference_protected(t->arr, nfhp_state_serialized(t));

	nfhp_state_flush(t, NULL);
	if (t->retired) {
		cond_synchronize_rcu(t->retired_cookie);
		nfhp_state_array_free(t, t->retired);
	}
	nfhp_state_array_free(t, rcu_dereference_protected(a->future,
						nfhp_state_serialized(t)));
	nfhp_state_array_free(t, a);
	nfhp_state_parents_free(t);
	nfhp_mem_unreserve(t->mem, t->reserved);
	nfhp_free(t->mem, t->locks, (t->lock_mask + 1) * sizeof(*t->locks));
}

/**
 * nfhp_state_buckets() - the buckets of the newest array
 * @t: the table
 *
 * Under rcu_read_lock() or the table's mutex.
 *
 * Return: their number.
 */
u32 nfhp_state_buckets(const struct nfhp_state_table *t)
{
	const struct nfhp_state_array *a, *f;

	a = rcu_dereference_check(t->arr, rcu_read_lock_held() ||
					  nfhp_state_serialized(t));
	while ((f = rcu_dereference_check(a->future,
					  rcu_read_lock_held() ||
					  nfhp_state_serialized(t))))
		a = f;
	return a->mask + 1;
}

/**
 * nfhp_state_buckets_bound() - the most buckets growth may reach now
 * @t: the table
 *
 * max_states / bucket_load rounded up to a power of two, within
 * buckets_init and buckets_max: a chain holds about bucket_load states
 * when the table is full.  Any context: max_states is read once.
 *
 * Return: the buckets, a power of two.
 */
u32 nfhp_state_buckets_bound(const struct nfhp_state_table *t)
{
	u32 want = DIV_ROUND_UP(READ_ONCE(t->tun.max_states),
				t->tun.bucket_load);

	want = min(want, t->tun.buckets_max);
	return max_t(u32, roundup_pow_of_two(max(want, 1u)),
		     t->tun.buckets_init);
}

/**
 * nfhp_state_lookup() - the state of a flow, in every array
 * @t: the table
 * @key: the flow
 * @h: its hash
 * @now: the caller's clock, or NULL for dead states too
 *
 * Under rcu_read_lock().  A miss in one array
 * goes on in its future one; see DOC: Theory of Operation.
 *
 * Return: the state, or NULL.
 */
static struct nfhp_state *nfhp_state_lookup(const struct nfhp_state_table *t,
					    const struct nfhp_state_key *key,
					    u32 h, const unsigned long *now)
{
	const struct nfhp_state_array *a;
	struct nfhp_state *s;

	a = rcu_dereference_check(t->arr, rcu_read_lock_held());
	while (a) {
		s = rcu_dereference_check(a->head[h & a->mask],
					  rcu_read_lock_held());
		for (; s; s = rcu_dereference_check(s->next,
						     rcu_read_lock_held())) {
			if (s->hash == h && nfhp_state_key_equal(&s->key, key) &&
			    (!now || !nfhp_state_dead(s, *now)))
				return s;
		}
		/* A miss here: the state may have moved on, see the DOC. */
		smp_rmb();
		a = rcu_dereference_check(a->future, rcu_read_lock_held());
	}
	return NULL;
}

/**
 * nfhp_state_find() - the state of a flow, dead or alive
 * @t: the table
 * @key: the flow
 *
 * For listings, tests and ICMP errors (state_rule.c), under
 * rcu_read_lock().
 *
 * Return: the state, or NULL.
 */
struct nfhp_state *nfhp_state_find(const struct nfhp_state_table *t,
				   const struct nfhp_state_key *key)
{
	return nfhp_state_lookup(t, key, nfhp_state_hash(t, key), NULL);
}

/**
 * nfhp_state_check() - the check point: the state of a packet's flow
 * @t: the table
 * @pkt: the packet
 * @now: the caller's clock
 *
 * Counts the packet on the state it finds and renews the state's
 * lifetime.  The packet path, under rcu_read_lock(), unlocked.
 *
 * Return: the live state, whose @verdict the packet gets; or NULL.
 */
struct nfhp_state *nfhp_state_check(struct nfhp_state_table *t,
				    const struct nfhp_state_pkt *pkt,
				    unsigned long now)
{
	struct nfhp_state *s;

	s = nfhp_state_lookup(t, &pkt->key, nfhp_state_hash(t, &pkt->key),
			      &now);
	if (s)
		nfhp_state_update(t, s, pkt, pkt->reverse != s->creator_reverse,
				  now);
	return s;
}

/**
 * nfhp_state_unlink() - unlink a state and free it after a grace period
 * @t: the table
 * @s: the state
 * @link: the pointer to @s in its bucket, whose lock is held
 *
 * Tells the table's @event, if any, before the grace period starts.
 */
void nfhp_state_unlink(struct nfhp_state_table *t, struct nfhp_state *s,
		       struct nfhp_state __rcu **link)
{
	rcu_assign_pointer(*link, rcu_dereference_protected(s->next,
			   lockdep_is_held(nfhp_state_lock(t, s->hash))));
	if (s->parent)
		nfhp_state_parent_put(t, s->parent);
	atomic_dec(&t->count);
	if (t->event)
		t->event(t->event_arg, s, false);
	kfree_rcu(s, rcu);
}

/**
 * nfhp_state_unlink_if() - unlink the states of one bucket a test picks
 * @t: the table
 * @a: the array of the bucket
 * @i: the bucket
 * @pick: true for a state to unlink
 * @arg: for @pick
 *
 * Takes the bucket's lock.  Off the packet path: the tick's expiry and
 * the flushes.
 *
 * Return: the states unlinked.
 */
u32 nfhp_state_unlink_if(struct nfhp_state_table *t,
			 struct nfhp_state_array *a, u32 i,
			 bool (*pick)(const struct nfhp_state *s,
				      const void *arg),
			 const void *arg)
{
	struct nfhp_state __rcu **link = &a->head[i];
	spinlock_t *lock = nfhp_state_lock(t, i);
	struct nfhp_state *s;
	u32 n = 0;

	spin_lock_bh(lock);
	while ((s = rcu_dereference_protected(*link, lockdep_is_held(lock)))) {
		if (!pick(s, arg)) {
			link = &s->next;
			continue;
		}
		nfhp_state_unlink(t, s, link);
		n++;
	}
	spin_unlock_bh(lock);
	return n;
}

/**
 * nfhp_state_twin() - the state of a flow, seen under its bucket's lock
 * @t: the table
 * @key: the flow
 * @h: its hash, whose bucket's lock is held
 * @now: the caller's clock
 *
 * Unlinks a dead state of @key, so that a new one takes its place.
 *
 * Return: the live state of @key, or NULL.
 */
static struct nfhp_state *nfhp_state_twin(struct nfhp_state_table *t,
					  const struct nfhp_state_key *key,
					  u32 h, unsigned long now)
{
	struct nfhp_state_array *a = rcu_dereference(t->arr);
	struct nfhp_state __rcu **link;
	struct nfhp_state *s;

	for (; a; a = rcu_dereference(a->future)) {
		link = &a->head[h & a->mask];
		while ((s = rcu_dereference_protected(*link,
				lockdep_is_held(nfhp_state_lock(t, h))))) {
			if (s->hash != h || !nfhp_state_key_equal(&s->key, key)) {
				link = &s->next;
				continue;
			}
			if (!nfhp_state_dead(s, now))
				return s;
			nfhp_state_unlink(t, s, link);
		}
	}
	return NULL;
}

/**
 * nfhp_state_new() - a new state, counted, not yet linked
 * @t: the table
 * @pkt: the packet that makes it
 * @rule: the keep-state rule
 * @h: the hash of @pkt's flow, whose bucket's lock is held
 * @err: why it was refused
 *
 * Takes a place under max_states and, for a limit, a parent's.
 *
 * Return: the state, or NULL with *@err set, each refusal counted.
 */
static struct nfhp_state *nfhp_state_new(struct nfhp_state_table *t,
					 const struct nfhp_state_pkt *pkt,
					 const struct nfhp_state_rule *rule,
					 u32 h, int *err)
{
	struct nfhp_state_parent *parent = NULL;
	struct nfhp_state *s;

	if (READ_ONCE(rule->retired)) {
		*err = -ENOENT;
		return NULL;
	}
	if (atomic_inc_return(&t->count) > (int)READ_ONCE(t->tun.max_states)) {
		atomic_long_inc(&t->stats.refused_max);
		*err = -ENOSPC;
		goto err_count;
	}
	if (rule->limit) {
		*err = nfhp_state_parent_get(t, rule, pkt, &parent);
		if (*err)
			goto err_count;
	}
	s = kzalloc(sizeof(*s), GFP_ATOMIC);
	if (!s) {
		atomic_long_inc(&t->stats.refused_nomem);
		*err = -ENOMEM;
		goto err_parent;
	}
	s->key = pkt->key;
	s->hash = h;
	s->creator_reverse = pkt->reverse;
	s->rule = rule->rule;
	s->rule_number = rule->number;
	s->verdict = rule->verdict;
	s->parent = parent;
	return s;

err_parent:
	if (parent)
		nfhp_state_parent_put(t, parent);
err_count:
	atomic_dec(&t->count);
	return NULL;
}

/**
 * nfhp_state_publish() - link a new state at the head of its bucket
 * @t: the table
 * @s: the state, counted (nfhp_state_new()) and filled in
 * @lock: its bucket's lock, held
 *
 * New states go to the newest array; see DOC: Theory of Operation.
 */
static void nfhp_state_publish(struct nfhp_state_table *t,
			       struct nfhp_state *s, spinlock_t *lock)
{
	struct nfhp_state_array *a, *f;
	struct nfhp_state __rcu **head;

	a = rcu_dereference(t->arr);
	while ((f = rcu_dereference(a->future)))
		a = f;
	head = &a->head[s->hash & a->mask];
	RCU_INIT_POINTER(s->next, rcu_dereference_protected(*head,
					lockdep_is_held(lock)));
	rcu_assign_pointer(*head, s);
	atomic_long_inc(&t->stats.created);
}

/**
 * nfhp_state_keep() - keep-state: make the state of a packet's flow
 * @t: the table
 * @pkt: the packet, which @rule matched
 * @rule: the keep-state rule
 * @now: the caller's clock
 * @state: the state made or found
 *
 * The packet path, under rcu_read_lock(): takes only the lock of the
 * flow's bucket (and of its parent's, for a limit).  If the flow has a
 * live state already, as when two CPUs meet its first packets, the
 * packet counts on that one.
 *
 * Return: 0 with a new state; -EEXIST with the live one found; or the
 * state refused: -ENOSPC at max_states or max_parents, -EDQUOT at the
 * rule's limit, -ENOMEM, -ENOENT for a rule @rule.retired.
 */
int nfhp_state_keep(struct nfhp_state_table *t,
		    const struct nfhp_state_pkt *pkt,
		    const struct nfhp_state_rule *rule, unsigned long now,
		    struct nfhp_state **state)
{
	u32 h = nfhp_state_hash(t, &pkt->key);
	struct nfhp_state *s;
	spinlock_t *lock;
	int err = 0;

	s = nfhp_state_lookup(t, &pkt->key, h, &now);
	if (s)
		goto found;
	lock = nfhp_state_lock(t, h);
	spin_lock_bh(lock);
	s = nfhp_state_twin(t, &pkt->key, h, now);
	if (s) {
		spin_unlock_bh(lock);
		goto found;
	}
	s = nfhp_state_new(t, pkt, rule, h, &err);
	if (s) {
		/* The creating packet goes forward, by definition. */
		nfhp_state_update(t, s, pkt, false, now);
		nfhp_state_publish(t, s, lock);
	}
	spin_unlock_bh(lock);
	if (s && t->event)
		t->event(t->event_arg, s, true);
	*state = s;
	return err;

found:
	nfhp_state_update(t, s, pkt, pkt->reverse != s->creator_reverse, now);
	*state = s;
	return -EEXIST;
}

/**
 * nfhp_state_of_rule() - is a state one that nfhp_state_flush() deletes?
 * @s: the state
 * @rule: the rule whose states go, or NULL for every state
 *
 * Return: true when it is.
 */
static bool nfhp_state_of_rule(const struct nfhp_state *s, const void *rule)
{
	return !rule || s->rule == rule;
}

/**
 * nfhp_state_flush_if() - delete the states a test picks
 * @t: the table
 * @pick: true for a state to delete
 * @arg: for @pick
 *
 * Takes each bucket's lock in turn; the packet path goes on meanwhile.
 * Serialized with ticks by the caller.
 *
 * Return: the states deleted.
 */
unsigned int nfhp_state_flush_if(struct nfhp_state_table *t,
				 bool (*pick)(const struct nfhp_state *s,
					      const void *arg),
				 const void *arg)
{
	struct nfhp_state_array *a;
	unsigned int n = 0;
	u32 i;

	a = rcu_dereference_protected(t->arr, nfhp_state_serialized(t));
	for (; a; a = rcu_dereference_protected(a->future,
						nfhp_state_serialized(t)))
		for (i = 0; i <= a->mask; i++)
			n += nfhp_state_unlink_if(t, a, i, pick, arg);
	return n;
}

/**
 * nfhp_state_flush() - delete the states of a rule, or all
 * @t: the table
 * @rule: the rule whose states go, or NULL for every state
 *
 * For a rule's deletion and for "flush".  The packet path may make
 * states of @rule in buckets already flushed unless the rule is
 * unpublished first.  Serialized with ticks by the caller.
 *
 * Return: the states deleted.
 */
unsigned int nfhp_state_flush(struct nfhp_state_table *t, const void *rule)
{
	return nfhp_state_flush_if(t, nfhp_state_of_rule, rule);
}

/**
 * nfhp_state_add() - make a state by hand, as a standby restores one
 * @t: the table
 * @pkt: its flow, the creator's packet: its tuple and key (flags, ack and
 *	length unused)
 * @rule: the keep-state rule it is of
 * @init: its expiry, TCP word and counters
 * @now: the caller's clock
 *
 * Counted against max_states and @rule's limit as nfhp_state_keep()
 * counts a packet's state, and told to the table's @event.  Off the
 * packet path, under rcu_read_lock(); takes the flow's bucket lock.
 *
 * Return: 0; -EINVAL when @init->expire is not after @now; -EEXIST when
 * the flow has a live state; -ENOSPC, -EDQUOT, -ENOMEM or -ENOENT (a
 * rule retired) as nfhp_state_keep() refuses a state.
 */
int nfhp_state_add(struct nfhp_state_table *t,
		   const struct nfhp_state_pkt *pkt,
		   const struct nfhp_state_rule *rule,
		   const struct nfhp_state_init *init, unsigned long now)
{
	u32 h = nfhp_state_hash(t, &pkt->key);
	spinlock_t *lock = nfhp_state_lock(t, h);
	struct nfhp_state *s;
	int err = 0;

	if ((long)(init->expire - now) <= 0)
		return -EINVAL;
	spin_lock_bh(lock);
	if (nfhp_state_twin(t, &pkt->key, h, now)) {
		spin_unlock_bh(lock);
		return -EEXIST;
	}
	s = nfhp_state_new(t, pkt, rule, h, &err);
	if (s) {
		s->tcp = init->tcp;
		s->expire = init->expire;
		memcpy(s->pkts, init->pkts, sizeof(s->pkts));
		memcpy(s->bytes, init->bytes, sizeof(s->bytes));
		nfhp_state_publish(t, s, lock);
	}
	spin_unlock_bh(lock);
	if (s && t->event)
		t->event(t->event_arg, s, true);
	return err;
}

/**
 * nfhp_state_delete() - delete the live state of a flow
 * @t: the table
 * @key: the flow
 * @now: the caller's clock
 *
 * Off the packet path, under rcu_read_lock(); takes the flow's bucket
 * lock.  A dead state of the flow is left to the tick.
 *
 * Return: 0, or -ENOENT when the flow has no live state.
 */
int nfhp_state_delete(struct nfhp_state_table *t,
		      const struct nfhp_state_key *key, unsigned long now)
{
	u32 h = nfhp_state_hash(t, key);
	spinlock_t *lock = nfhp_state_lock(t, h);
	struct nfhp_state_array *a = rcu_dereference(t->arr);
	struct nfhp_state __rcu **link;
	struct nfhp_state *s;
	int err = -ENOENT;

	spin_lock_bh(lock);
	for (; a && err; a = rcu_dereference(a->future)) {
		link = &a->head[h & a->mask];
		while ((s = rcu_dereference_protected(*link,
						      lockdep_is_held(lock)))) {
			if (s->hash == h && nfhp_state_key_equal(&s->key, key) &&
			    !nfhp_state_dead(s, now)) {
				nfhp_state_unlink(t, s, link);
				err = 0;
				break;
			}
			link = &s->next;
		}
	}
	spin_unlock_bh(lock);
	return err;
}
