// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: dynamic states, limits.
 *
 * "keep-state limit src-addr 2" lets at most two states of the rule
 * share one source address.  Each such group has a parent: the rule and
 * the creating packet's flow cut down to the limit's fields
 * (nfhp_state_tuple_mask()), with the number of its states.  A state
 * takes its parent when it is made and drops it when it is freed; the
 * parent goes with its last state.  Parents live in a small hash of
 * their own, fixed at init, each bucket under its own lock; there are
 * at most max_parents of them, counted like the states.
 *
 * Only the creators and the deleters of states reach a parent, always
 * under its bucket's lock, so parents need no RCU: a lookup never reads
 * one.  A creator holds its state's bucket lock when it takes the
 * parent's, and so does a deleter: the order is always state, then
 * parent, and the two kinds of locks are different arrays.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "state.h"

/**
 * nfhp_parent_hash() - the hash of a parent
 * @t: the table, whose seed it mixes in
 * @rule: the rule whose limit it is
 * @tuple: the masked flow, its unused bytes zero
 *
 * Return: the hash.
 */
static u32 nfhp_parent_hash(const struct nfhp_state_table *t,
			    const void *rule,
			    const struct nfhp_state_tuple *tuple)
{
	u32 w[sizeof(*tuple) / sizeof(u32)];
	u64 h = t->seed ^ (u64)(unsigned long)rule;
	unsigned int i;

	memcpy(w, tuple, sizeof(w));
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return (u32)(h >> 32);
}

/**
 * nfhp_parent_find() - the parent of a rule and a masked flow
 * @t: the table
 * @h: their hash, whose bucket's lock is held
 * @rule: the rule
 * @tuple: the masked flow
 *
 * Return: the parent, or NULL.
 */
static struct nfhp_state_parent *
nfhp_parent_find(struct nfhp_state_table *t, u32 h, const void *rule,
		 const struct nfhp_state_tuple *tuple)
{
	struct nfhp_state_parent *p;

	for (p = t->parents[h & t->parent_mask]; p; p = p->next) {
		if (p->hash == h && p->rule == rule &&
		    !memcmp(&p->tuple, tuple, sizeof(*tuple)))
			return p;
	}
	return NULL;
}

/**
 * nfhp_parent_new() - a new parent, with no state yet
 * @t: the table
 * @h: its hash, whose bucket's lock is held
 * @rule: the rule
 * @tuple: the masked flow
 *
 * Return: the parent, linked in its bucket; ERR_PTR(-ENOSPC) at
 * max_parents, ERR_PTR(-ENOMEM); each refusal counted.
 */
static struct nfhp_state_parent *
nfhp_parent_new(struct nfhp_state_table *t, u32 h, const void *rule,
		const struct nfhp_state_tuple *tuple)
{
	struct nfhp_state_parent *p;

	if (atomic_inc_return(&t->parent_count) >
	    (int)READ_ONCE(t->tun.max_parents)) {
		atomic_dec(&t->parent_count);
		atomic_long_inc(&t->stats.refused_parents);
		return ERR_PTR(-ENOSPC);
	}
	p = kmalloc(sizeof(*p), GFP_ATOMIC);
	if (!p) {
		atomic_dec(&t->parent_count);
		atomic_long_inc(&t->stats.refused_nomem);
		return ERR_PTR(-ENOMEM);
	}
	p->rule = rule;
	memcpy(&p->tuple, tuple, sizeof(*tuple));
	p->hash = h;
	p->count = 0;
	p->next = t->parents[h & t->parent_mask];
	t->parents[h & t->parent_mask] = p;
	return p;
}

/**
 * nfhp_state_parent_get() - count a new state on its limit's parent
 * @t: the table
 * @rule: the keep-state rule, whose @limit is not 0
 * @pkt: the packet that makes the state
 * @parent: the parent, taken once more
 *
 * Runs on the packet path, under the new state's bucket lock.
 *
 * Return: 0; -EDQUOT when the parent has @rule->limit states already;
 * -ENOSPC when a new parent would pass max_parents; -ENOMEM.
 */
int nfhp_state_parent_get(struct nfhp_state_table *t,
			  const struct nfhp_state_rule *rule,
			  const struct nfhp_state_pkt *pkt,
			  struct nfhp_state_parent **parent)
{
	struct nfhp_state_tuple tuple;
	struct nfhp_state_parent *p;
	spinlock_t *lock;
	int err = 0;
	u32 h;

	nfhp_state_tuple_mask(&tuple, &pkt->tuple, rule->limit_mask);
	h = nfhp_parent_hash(t, rule->rule, &tuple);
	lock = &t->parent_locks[h & t->parent_mask];
	spin_lock_bh(lock);
	p = nfhp_parent_find(t, h, rule->rule, &tuple);
	if (!p) {
		p = nfhp_parent_new(t, h, rule->rule, &tuple);
		if (IS_ERR(p)) {
			err = PTR_ERR(p);
			goto out;
		}
	}
	if (p->count >= rule->limit) {
		atomic_long_inc(&t->stats.refused_limit);
		err = -EDQUOT;
		goto out;
	}
	p->count++;
	*parent = p;
out:
	spin_unlock_bh(lock);
	return err;
}

/**
 * nfhp_state_parent_put() - a state of a parent is gone
 * @t: the table
 * @p: its parent; freed with its last state
 */
void nfhp_state_parent_put(struct nfhp_state_table *t,
			   struct nfhp_state_parent *p)
{
	spinlock_t *lock = &t->parent_locks[p->hash & t->parent_mask];
	struct nfhp_state_parent **link;

	spin_lock_bh(lock);
	if (--p->count)
		goto out;
	for (link = &t->parents[p->hash & t->parent_mask]; *link;
	     link = &(*link)->next) {
		if (*link == p) {
			*link = p->next;
			break;
		}
	}
	kfree(p);
	atomic_dec(&t->parent_count);
out:
	spin_unlock_bh(lock);
}

/**
 * nfhp_state_parents_init() - the empty hash of parents
 * @t: the table, with @mem set
 * @buckets: its buckets, a power of two
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_state_parents_init(struct nfhp_state_table *t, u32 buckets)
{
	u32 i;

	t->parent_mask = buckets - 1;
	t->parents = nfhp_alloc(t->mem, buckets * sizeof(*t->parents));
	t->parent_locks = nfhp_alloc(t->mem,
				     buckets * sizeof(*t->parent_locks));
	if (!t->parents || !t->parent_locks) {
		nfhp_state_parents_free(t);
		return -ENOMEM;
	}
	for (i = 0; i < buckets; i++)
		spin_lock_init(&t->parent_locks[i]);
	return 0;
}

/**
 * nfhp_state_parents_free() - free the hash of parents
 * @t: the table, whose states are all gone: so are their parents
 */
void nfhp_state_parents_free(struct nfhp_state_table *t)
{
	u32 n = t->parent_mask + 1;

	WARN_ON_ONCE(atomic_read(&t->parent_count));
	nfhp_free(t->mem, t->parents, n * sizeof(*t->parents));
	nfhp_free(t->mem, t->parent_locks, n * sizeof(*t->parent_locks));
	t->parents = NULL;
	t->parent_locks = NULL;
}
