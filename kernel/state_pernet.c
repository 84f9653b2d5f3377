// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the dynamic states of one network namespace.
 *
 * Each namespace has one table of states for both families, made when
 * the namespace is, with ipfw's settings, and a tick: a delayed work
 * that every %NFHP_STATES_TICK_MS walks a budget of the table's buckets
 * (nfhp_states_budget()), freeing the dead states, and grows the table
 * when the states outnumber the buckets (nfhp_state_tick()).  The tick runs only while there is
 * work: the first state kicks it (nfhp_states_kick()), and it stops once
 * the table is empty, not growing and holding no old array, so that the
 * namespaces of a host without states never wake.  The clock of the
 * states is jiffies.
 * The namespace's end stops the tick before it destroys the table; the
 * module's unload ends every namespace's nf-hipac the same way.
 */
#include <linux/jiffies.h>
#include <linux/kernel.h>

#include "state_pernet.h"

/**
 * nfhp_states_budget() - the buckets one tick walks
 * @t: the table
 *
 * Under the states' mutex.
 *
 * Return: %NFHP_STATES_TICK_BUDGET, or the newest array's buckets over
 * %NFHP_STATES_SWEEP_TICKS when that is more.
 */
static u32 nfhp_states_budget(const struct nfhp_state_table *t)
{
	return max_t(u32, NFHP_STATES_TICK_BUDGET,
		     nfhp_state_buckets(t) / NFHP_STATES_SWEEP_TICKS);
}

/**
 * nfhp_states_tick() - the tick of a namespace's states
 * @work: &struct nfhp_states.tick
 *
 * Runs nfhp_state_tick() under the states' mutex and comes back in
 * %NFHP_STATES_TICK_MS while the table has work left.  A state made
 * after the check kicks it again: the work is not pending while it runs.
 */
static void nfhp_states_tick(struct work_struct *work)
{
	struct nfhp_states *st = container_of(to_delayed_work(work),
					      struct nfhp_states, tick);
	struct nfhp_state_table *t = &st->table;
	bool idle;

	mutex_lock(&st->lock);
	nfhp_state_tick(t, jiffies, nfhp_states_budget(t));
	idle = !atomic_read(&t->count) && !nfhp_state_growing(t) &&
	       !t->retired;
	mutex_unlock(&st->lock);
	if (!idle)
		nfhp_states_kick(st);
}

/**
 * nfhp_states_kick() - make sure the tick comes
 * @st: the namespace's states, which just got a state
 *
 * Any context, the packet path included: a no-op while the tick is
 * pending.
 */
void nfhp_states_kick(struct nfhp_states *st)
{
	queue_delayed_work(system_power_efficient_wq, &st->tick,
			   msecs_to_jiffies(NFHP_STATES_TICK_MS));
}

/**
 * nfhp_states_init() - the empty states of a new namespace, ticking
 * @st: the namespace's states, zeroed
 * @mem_limit: the bound of their memory account, in bytes
 *
 * Return: 0, or -ENOMEM (@st holds nothing).
 */
int nfhp_states_init(struct nfhp_states *st, u64 mem_limit)
{
	struct nfhp_state_tunables tun;
	int ret;

	mutex_init(&st->lock);
	st->mem.limit = mem_limit;
	nfhp_state_tunables_default(&tun);
	ret = nfhp_state_table_init(&st->table, &st->mem, &tun, HZ, &st->lock);
	if (ret)
		goto err_mutex;
	INIT_DELAYED_WORK(&st->tick, nfhp_states_tick);
	st->ready = true;
	return 0;

err_mutex:
	mutex_destroy(&st->lock);
	return ret;
}

/**
 * nfhp_states_exit() - stop the tick and free every state of a namespace
 * @st: the namespace's states, which no packet can reach any more
 *
 * Waits for a tick that runs; the states go a grace period later.
 */
void nfhp_states_exit(struct nfhp_states *st)
{
	if (!st->ready)
		return;
	cancel_delayed_work_sync(&st->tick);
	mutex_lock(&st->lock);
	st->ready = false;
	/* The namespace is going: no one to tell of its states' end. */
	st->table.event = NULL;
	nfhp_state_table_destroy(&st->table);
	mutex_unlock(&st->lock);
	mutex_destroy(&st->lock);
}
