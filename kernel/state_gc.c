// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: dynamic states, the tick: expiry and growth.
 *
 * The packet path never frees a state and never resizes the table;
 * the tick does both, off the packet path (the glue runs it from a
 * delayed work, once a second or so), a budget of buckets per call so
 * that no call holds the CPU long.  One tick either expires buckets
 * or, while the table grows, moves them; see DOC: Theory of Operation
 * in state_table.c.  Ticks, flushes and nfhp_state_set_bounds() are
 * serialized by the caller; the packet path runs beside them.
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>

#include "state.h"

/**
 * nfhp_state_growing() - is the table moving to a bigger array?
 * @t: the table
 *
 * Under rcu_read_lock() or the table's mutex.
 *
 * Return: true while it is.
 */
bool nfhp_state_growing(const struct nfhp_state_table *t)
{
	const struct nfhp_state_array *a;

	a = rcu_dereference_check(t->arr, rcu_read_lock_held() ||
					  nfhp_state_serialized(t));

	return rcu_access_pointer(a->future);
}

/**
 * nfhp_state_growth_left() - the buckets a growth has still to move
 * @t: the table
 *
 * Under the table's mutex.  A listing made while the table grows may
 * list a state twice (see state_walk.c); /proc shows this so that one
 * can wait for the end of a growth.
 *
 * Return: the buckets of the old array not moved yet, 0 when the table
 * does not grow.
 */
u32 nfhp_state_growth_left(const struct nfhp_state_table *t)
{
	const struct nfhp_state_array *a;

	a = rcu_dereference_protected(t->arr, nfhp_state_serialized(t));
	if (!rcu_access_pointer(a->future))
		return 0;
	return a->mask + 1 - t->grow_next;
}

/**
 * nfhp_state_is_dead() - nfhp_state_dead() for nfhp_state_unlink_if()
 * @s: the state
 * @now: the caller's clock, an unsigned long
 *
 * Return: true when @s has expired.
 */
static bool nfhp_state_is_dead(const struct nfhp_state *s, const void *now)
{
	return nfhp_state_dead(s, *(const unsigned long *)now);
}

/**
 * nfhp_state_expire_bucket() - free the dead states of one bucket
 * @t: the table
 * @a: its array
 * @i: the bucket
 * @now: the caller's clock
 *
 * Return: the states freed.
 */
static u32 nfhp_state_expire_bucket(struct nfhp_state_table *t,
				    struct nfhp_state_array *a, u32 i,
				    unsigned long now)
{
	return nfhp_state_unlink_if(t, a, i, nfhp_state_is_dead, &now);
}

/**
 * nfhp_state_move_bucket() - move one bucket to the bigger array
 * @t: the table
 * @a: the array being left, whose @future is set
 * @i: the bucket
 * @now: the caller's clock
 *
 * Moves the states tail first, so that a lookup walking the bucket sees
 * every state in one array or the other, and frees the dead ones on
 * the way.  See DOC: Theory of Operation in state_table.c.
 *
 * Return: the states freed.
 */
static u32 nfhp_state_move_bucket(struct nfhp_state_table *t,
				  struct nfhp_state_array *a, u32 i,
				  unsigned long now)
{
	spinlock_t *lock = nfhp_state_lock(t, i);
	struct nfhp_state __rcu **link, **to;
	struct nfhp_state *s, *next;
	struct nfhp_state_array *f;
	u32 n = 0;

	f = rcu_dereference_protected(a->future, nfhp_state_serialized(t));
	spin_lock_bh(lock);
	while (rcu_access_pointer(a->head[i])) {
		link = &a->head[i];
		s = rcu_dereference_protected(*link, lockdep_is_held(lock));
		while ((next = rcu_dereference_protected(s->next,
						lockdep_is_held(lock)))) {
			link = &s->next;
			s = next;
		}
		if (nfhp_state_dead(s, now)) {
			nfhp_state_unlink(t, s, link);
			n++;
			continue;
		}
		to = &f->head[s->hash & f->mask];
		/*
		 * Seen in the new bucket before it leaves the old one; a
		 * reader on @s walks on into the new bucket, so @s->next is
		 * published as a bucket's head is.
		 */
		rcu_assign_pointer(s->next, rcu_dereference_protected(*to,
						lockdep_is_held(lock)));
		rcu_assign_pointer(*to, s);
		rcu_assign_pointer(*link, NULL);
	}
	spin_unlock_bh(lock);
	return n;
}

/**
 * nfhp_state_grow() - start a growth if the states outnumber the buckets
 * @t: the table
 * @a: its array, which does not grow yet
 *
 * When the states pass bucket_load per bucket, hangs an array of the
 * states' number / bucket_load buckets, rounded up to a power of two and
 * at most nfhp_state_buckets_bound(), on @a.  The array is taken on the
 * table's account: when the account's bound refuses it, the table stays
 * as it is and a later tick tries again.  Waits, tick after tick, until
 * the array the last growth replaced is freed.
 */
static void nfhp_state_grow(struct nfhp_state_table *t,
			    struct nfhp_state_array *a)
{
	u32 count = atomic_read(&t->count), buckets = a->mask + 1, want;
	u32 bound = nfhp_state_buckets_bound(t);
	struct nfhp_state_array *f;

	if (count / t->tun.bucket_load <= buckets || buckets >= bound)
		return;
	/* The array the last growth left must be gone first. */
	if (t->retired) {
		if (!poll_state_synchronize_rcu(t->retired_cookie))
			return;
		nfhp_state_array_free(t, t->retired);
		t->retired = NULL;
	}
	want = min_t(u32, bound,
		     roundup_pow_of_two(count / t->tun.bucket_load));
	f = nfhp_state_array_new(t, want);
	if (!f)
		return;
	t->grow_next = 0;
	rcu_assign_pointer(a->future, f);
}

/**
 * nfhp_state_grow_step() - move a budget of buckets to the bigger array
 * @t: the table
 * @a: its array, which grows
 * @now: the caller's clock
 * @budget: buckets to move at most
 *
 * After the last bucket, publishes the new array as the table's and
 * retires @a, to be freed after a grace period.
 */
static void nfhp_state_grow_step(struct nfhp_state_table *t,
				 struct nfhp_state_array *a,
				 unsigned long now, u32 budget)
{
	u32 dead = 0;

	while (budget-- && t->grow_next <= a->mask)
		dead += nfhp_state_move_bucket(t, a, t->grow_next++, now);
	atomic_long_add(dead, &t->stats.expired);
	if (t->grow_next <= a->mask)
		return;
	rcu_assign_pointer(t->arr, rcu_dereference_protected(a->future,
						nfhp_state_serialized(t)));
	t->retired = a;
	t->retired_cookie = get_state_synchronize_rcu();
	t->gc_next = 0;
}

/**
 * nfhp_state_tick() - expire states and grow the table, a little
 * @t: the table
 * @now: the caller's clock
 * @budget: buckets to walk at most
 *
 * Walks @budget buckets from where the last tick stopped, freeing the
 * dead states it finds, then starts a growth if the states outnumber
 * the buckets.  While the table grows, a tick moves @budget buckets
 * instead, and frees the dead ones it meets.  Frees the array a growth
 * replaced once its grace period is over.
 */
void nfhp_state_tick(struct nfhp_state_table *t, unsigned long now,
		     u32 budget)
{
	struct nfhp_state_array *a;
	u32 dead = 0;

	a = rcu_dereference_protected(t->arr, nfhp_state_serialized(t));
	if (t->retired && poll_state_synchronize_rcu(t->retired_cookie)) {
		nfhp_state_array_free(t, t->retired);
		t->retired = NULL;
	}
	if (rcu_access_pointer(a->future)) {
		nfhp_state_grow_step(t, a, now, budget);
		return;
	}
	budget = min(budget, a->mask + 1);
	while (budget--) {
		dead += nfhp_state_expire_bucket(t, a, t->gc_next, now);
		t->gc_next = (t->gc_next + 1) & a->mask;
	}
	atomic_long_add(dead, &t->stats.expired);
	nfhp_state_grow(t, a);
}
