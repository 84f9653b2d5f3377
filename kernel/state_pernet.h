/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the dynamic states of one network namespace.
 */
#ifndef _NFHP_STATE_PERNET_H
#define _NFHP_STATE_PERNET_H

#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "mem.h"
#include "state.h"

/*
 * How often the tick runs, and how many buckets it walks each time: at
 * least the budget, and a bigger table's share of one walk of it all in
 * %NFHP_STATES_SWEEP_TICKS, so that expiry and growth keep pace with a
 * table grown to millions of buckets.
 */
#define NFHP_STATES_TICK_MS	1000
#define NFHP_STATES_TICK_BUDGET	1024
#define NFHP_STATES_SWEEP_TICKS	8

/**
 * struct nfhp_states - the states of a namespace, with their tick
 * @lock: serializes the tick, flushes, bounds and the table's end (the
 *	table's &struct nfhp_state_table.lock); taken inside the
 *	namespace's mutex when both are held
 * @mem: the account of the table's memory
 * @table: the states; the packet path reads it under rcu_read_lock()
 * @tick: the delayed work that expires states and grows the table, a
 *	budget of buckets every %NFHP_STATES_TICK_MS while it has work
 * @ready: @table is initialized; the tick and /proc may use it
 */
struct nfhp_states {
	struct mutex lock;	/* see @lock above */
	struct nfhp_mem mem;
	struct nfhp_state_table table;
	struct delayed_work tick;
	bool ready;
};

int nfhp_states_init(struct nfhp_states *st, u64 mem_limit);
void nfhp_states_exit(struct nfhp_states *st);
void nfhp_states_kick(struct nfhp_states *st);

#endif /* _NFHP_STATE_PERNET_H */
