// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the named sets' part of a transaction.
 *
 * DOC: Sets in transactions
 *
 * Between NFHP_CMD_BEGIN and the commit, a set command of the owner of
 * the transaction changes the set's staged state (&nfhp_set.txn), not
 * what packets read.  A set's first staged write copies its entries into
 * a body of the transaction's own (nfhp_set_body_write()); a flush
 * starts from an empty body instead, and a swap exchanges the staged
 * bodies without copying.  The rules the transaction adds see its sets:
 * a set it created, and no set it destroyed.  Listings and tests show
 * the committed sets.
 *
 * The commit publishes each staged set's body with one pointer store,
 * after every step of the rules' commit that can fail and before their
 * tables are published: a rule the transaction adds never sees a set
 * without its entries.  The sets and the rules are published one after
 * the other, not at one instant: a packet between the stores sees the
 * new sets with the old rules.  Bodies no set holds after the commit go
 * a grace period later; an abort frees what only the transaction saw.
 *
 * A worked example: sets A (entries a1) and B (b1), both read by rules.
 *
 *   BEGIN              A: live a1            B: live b1
 *   SET_FLUSH B        A: live a1            B: live b1, staged {}
 *   SET_ADD B b2       A: live a1            B: live b1, staged {b2}
 *   SET_SWAP A B       A: live a1, staged {b2}
 *                      B: live b1, staged a1 (the same body: no copy)
 *   COMMIT             A: live {b2}          B: live a1
 *
 * b1's body is held by no set after the commit: it is freed a grace
 * period later.  a1's body moved from A to B, and packets read it
 * throughout.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "set.h"

/**
 * nfhp_set_state_write() - the state a writer of a set changes
 * @sets: the namespace's sets
 * @set: the set
 *
 * Return: @set's committed state, or in a transaction its staged state,
 * which starts as the committed one.
 */
struct nfhp_set_state *nfhp_set_state_write(struct nfhp_sets *sets,
					    struct nfhp_set *set)
{
	if (!sets->txn)
		return &set->live;
	if (!set->staged) {
		set->txn = set->live;
		set->staged = true;
	}
	return &set->txn;
}

/**
 * nfhp_set_body_write() - the body a writer of a set's entries changes
 * @sets: the namespace's sets
 * @set: the set
 * @body: set to the body
 *
 * Outside a transaction, the live body.  In one, the staged body: a copy
 * the first time, so that packets keep reading the committed entries.
 *
 * Return: 0, or -ENOMEM when the copy failed.
 */
int nfhp_set_body_write(struct nfhp_sets *sets, struct nfhp_set *set,
			struct nfhp_set_body **body)
{
	struct nfhp_set_state *st = nfhp_set_state_write(sets, set);
	struct nfhp_set_body *copy;

	if (sets->txn && st->body->state != NFHP_SET_BODY_STAGED) {
		copy = nfhp_set_body_copy(sets, st->body, set->family,
					  false);
		if (!copy)
			return -ENOMEM;
		st->body = copy;
	}
	*body = st->body;
	return 0;
}

/**
 * nfhp_sets_begin() - open the sets' part of a transaction
 * @sets: the namespace's sets
 */
void nfhp_sets_begin(struct nfhp_sets *sets)
{
	WARN_ON_ONCE(sets->txn);
	sets->txn = true;
}

/* Free a set the open transaction unlinked; no rule refers to it. */
static void nfhp_set_unlink(struct nfhp_sets *sets, struct nfhp_set **p)
{
	struct nfhp_set *set = *p;

	WARN_ON_ONCE(set->refs);
	*p = set->next;
	sets->n--;
	free_percpu(set->stats);
	kfree(set);
}

/*
 * The commit's first step: the bodies packets read now and the bodies
 * they will read after it, marked so that each body no set holds any
 * more is retired once, whichever sets it went through.
 */
static void nfhp_sets_mark(struct nfhp_sets *sets)
{
	struct nfhp_set *set;

	for (set = sets->first; set; set = set->next)
		if ((set->staged || set->destroyed) && set->live.body)
			set->live.body->state = NFHP_SET_BODY_LEAVING;
	for (set = sets->first; set; set = set->next)
		if (set->staged && !set->destroyed)
			set->txn.body->state = NFHP_SET_BODY_LIVE;
}

/**
 * nfhp_sets_commit() - publish what the open transaction staged
 * @sets: the namespace's sets
 *
 * Cannot fail: the transaction allocated all it needs as it went.
 */
void nfhp_sets_commit(struct nfhp_sets *sets)
{
	struct nfhp_set_body *old;
	struct nfhp_set **p, *set;

	if (!sets->txn)
		return;
	nfhp_sets_mark(sets);
	for (p = &sets->first; (set = *p);) {
		if (set->destroyed) {
			nfhp_set_body_retire(sets, set->live.body);
			if (set->staged)
				nfhp_set_body_retire(sets, set->txn.body);
			nfhp_set_unlink(sets, p);
			continue;
		}
		if (set->staged) {
			old = set->live.body;
			set->live = set->txn;
			rcu_assign_pointer(set->pkt_body, set->live.body);
			nfhp_set_body_retire(sets, old);
		}
		set->staged = false;
		set->created = false;
		p = &set->next;
	}
	sets->txn = false;
}

/**
 * nfhp_sets_abort() - forget what the open transaction staged
 * @sets: the namespace's sets
 *
 * The rules the transaction created are freed first: they may refer to
 * the sets it created, which go here.
 */
void nfhp_sets_abort(struct nfhp_sets *sets)
{
	struct nfhp_set **p, *set;

	if (!sets->txn)
		return;
	for (p = &sets->first; (set = *p);) {
		/* Only a body the transaction made is freed: the others
		 * are some set's committed one.
		 */
		if (set->staged)
			nfhp_set_body_retire(sets, set->txn.body);
		if (set->created) {
			nfhp_set_unlink(sets, p);
			continue;
		}
		set->staged = false;
		set->destroyed = false;
		p = &set->next;
	}
	sets->txn = false;
}
