/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The random steps of the set tests that check an algorithm against a
 * list: adds and deletes, finds, lookups, and now and then a walk, a
 * collection of retired blocks and a grace period.
 */
#ifndef _NFHP_SET_PHASE_H
#define _NFHP_SET_PHASE_H

#include "set_algo.h"
#include "xorshift.h"

/**
 * struct set_phase_ops - one test's steps on its run
 * @add: add pool entry i, checked against the list
 * @del: delete pool entry i, checked
 * @find: find pool entry i, checked
 * @lookup: look a packet's key up, checked
 * @walk_agrees: a walk and the count agree with the list
 */
struct set_phase_ops {
	void (*add)(void *run, unsigned int i);
	void (*del)(void *run, unsigned int i);
	void (*find)(void *run, unsigned int i);
	void (*lookup)(void *run);
	bool (*walk_agrees)(void *run);
};

/* Now and then an allocation of the next step fails. */
static void set_fail_maybe(void)
{
	nfhp_shim_fail_countdown = rnd() % 16 == 0 ? 1 + rnd() % 3 : 0;
}

/**
 * set_list_add() - the list's side of an add, checked against the set's
 * @in: whether each pool entry is in the set
 * @values: the value of each that is
 * @n: how many are
 * @j: the pool entry of the key that is in the set already, or -1
 * @i: the pool entry added
 * @value: its value
 * @update: the add updates an entry there
 * @got: what the set's add returned, not -ENOMEM
 *
 * Return: whether @got is what the list wants.
 */
static bool set_list_add(bool *in, u32 *values, unsigned int *n, int j,
			 unsigned int i, u32 value, bool update, int got)
{
	if (j >= 0) {
		if (update)
			values[j] = value;
		return got == (update ? NFHP_SET_UPDATED : NFHP_SET_EXISTS);
	}
	in[i] = true;
	values[i] = value;
	++*n;
	return got == NFHP_SET_ADDED;
}

/**
 * set_list_del() - the list's side of a delete, checked against the set's
 * @in: whether each pool entry is in the set
 * @n: how many are
 * @j: the pool entry of the key in the set, or -1
 * @got: what the set's delete returned, not -ENOMEM
 *
 * Return: whether @got is what the list wants.
 */
static bool set_list_del(bool *in, unsigned int *n, int j, int got)
{
	if (j < 0)
		return got == NFHP_SET_NOT_FOUND;
	in[j] = false;
	--*n;
	return got == NFHP_SET_DELETED;
}

/**
 * set_phase() - @steps random steps on a run
 * @ops: the test's steps
 * @run: its run
 * @ctx: the run's writer context
 * @bad: the run's count of disagreements, which a walk adds to
 * @pool: the pool's size
 * @steps: how many
 * @add_pct: the adds among a hundred changes; the others delete
 */
static void set_phase(const struct set_phase_ops *ops, void *run,
		      struct nfhp_set_ctx *ctx, unsigned int *bad,
		      unsigned int pool, unsigned int steps,
		      unsigned int add_pct)
{
	unsigned int s, i;

	for (s = 0; s < steps; s++) {
		i = rnd() % pool;
		switch (rnd() % 4) {
		case 0:
			if (rnd() % 100 < add_pct)
				ops->add(run, i);
			else
				ops->del(run, i);
			break;
		case 1:
			ops->find(run, i);
			break;
		default:
			ops->lookup(run);
		}
		if (s % 1024 == 0)
			*bad += !ops->walk_agrees(run);
		if (s % 17 == 0)
			nfhp_set_gc_run(ctx, false);
		if (s % 53 == 0)
			synchronize_rcu();
	}
}

#endif /* _NFHP_SET_PHASE_H */
