// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: dynamic states, the walk of a listing.
 *
 * A listing (the netlink dump of the states) takes the table a piece at
 * a time, each piece in one message buffer, and lets the table go in
 * between: packets make states, the tick frees them and grows the
 * table.  A cursor says where the last piece stopped: the size of the
 * array of buckets it walked, a bucket and how many of that bucket's
 * states it had listed.  Buckets of an array are walked in order, the
 * arrays from the oldest to the newest (a growth's old array, then its
 * future one); new states go to the head of a bucket of the newest.
 *
 * The walk lists every state that lives from the start of the listing
 * to its end.  A growth moves a state from bucket i of an array of n
 * buckets to bucket i or i + n, ... of the next one: when the cursor's
 * array is gone, the walk goes on in the next bigger one from the
 * same bucket, whose lower buckets hold only states of the buckets
 * walked already; unless the old array grew while the walk was in it:
 * a bucket moved on before the walk got there was empty, and its
 * states are in the lower buckets of the new array, which the walk
 * then lists from its first.  States of the walked buckets moved to
 * higher ones are listed again; and a state made meanwhile in a
 * bucket the walk has passed is not listed.
 *
 * Inside a bucket the cursor holds the key of the next state to list,
 * not a position: the tick unlinks dead states and packets link new
 * ones at the head meanwhile, and either would shift a position past
 * a live state.  When that state is gone, or the bucket's array is,
 * the whole bucket is listed again.
 *
 * Example: the cursor stopped at (4 buckets, bucket 2, before the state
 * of flow F).  If the table has not grown, the walk goes on at F in
 * bucket 2, or lists all of bucket 2 again when F has gone meanwhile.
 * If it grew to 8 buckets, bucket 2 of the new array holds the states
 * of old bucket 2 whose hash has bit 2 clear: the walk lists them all
 * (some a second time), then buckets 3 to 7, where the states of old
 * buckets 0 and 1 that moved to 4 and 5 are listed a second time.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>

#include "state.h"

/**
 * nfhp_state_walk_bucket() - list the live states of one bucket
 * @b: the bucket's head
 * @cur: the cursor, at this bucket: with @cur->mid, from its @key on
 * @now: the caller's clock
 * @fn: called with each live state, under rcu_read_lock()
 * @arg: its first argument
 *
 * Return: 0 after the bucket's last state, or @fn's non-zero value with
 * @cur before the state @fn refused.
 */
static int nfhp_state_walk_bucket(struct nfhp_state __rcu *const *b,
				  struct nfhp_state_cursor *cur,
				  unsigned long now,
				  int (*fn)(void *arg,
					    const struct nfhp_state *s),
				  void *arg)
{
	const struct nfhp_state *s, *from;
	int ret;

	from = rcu_dereference(*b);
	for (s = from; cur->mid && s; s = rcu_dereference(s->next)) {
		if (nfhp_state_key_equal(&s->key, &cur->key)) {
			from = s;
			break;
		}
	}
	cur->mid = false;
	for (s = from; s; s = rcu_dereference(s->next)) {
		if (nfhp_state_dead(s, now))
			continue;
		ret = fn(arg, s);
		if (ret) {
			cur->mid = true;
			cur->key = s->key;
			return ret;
		}
	}
	return 0;
}

/**
 * nfhp_state_walk() - list the live states from a cursor on
 * @t: the table
 * @cur: where the last call stopped; zeroed for the first
 * @now: the caller's clock: dead states are not listed
 * @fn: called with each live state; a non-zero value stops the walk
 *	before that state, which the next call lists first
 * @arg: its first argument
 *
 * Under rcu_read_lock() and the table's mutex, which keeps the tick
 * from moving states during the call.  See the top of this file for
 * what a listing sees of the states made, freed and moved between two
 * calls.
 *
 * Return: 0 when every state is listed, or @fn's non-zero value.
 */
int nfhp_state_walk(const struct nfhp_state_table *t,
		    struct nfhp_state_cursor *cur, unsigned long now,
		    int (*fn)(void *arg, const struct nfhp_state *s),
		    void *arg)
{
	const struct nfhp_state_array *a;
	u32 size;
	int ret;

	if (t->lock)
		lockdep_assert_held(t->lock);
	a = rcu_dereference(t->arr);
	if (!cur->size)
		cur->size = a->mask + 1;
	for (; a; a = rcu_dereference(a->future)) {
		size = a->mask + 1;
		if (size < cur->size)
			continue;	/* walked whole before */
		if (size > cur->size) {
			/* The cursor's array grew into this one, or is done. */
			if (cur->moving)
				cur->bucket = 0;
			cur->size = size;
			cur->mid = false;
			cur->moving = false;
		}
		if (rcu_access_pointer(a->future))
			cur->moving = true;
		for (; cur->bucket < size; cur->bucket++) {
			ret = nfhp_state_walk_bucket(&a->head[cur->bucket], cur,
						     now, fn, arg);
			if (ret)
				return ret;
		}
		/* On in the next array, from its first bucket. */
		cur->bucket = 0;
		cur->size = size + 1;
	}
	return 0;
}
