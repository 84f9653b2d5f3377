/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac-sim: dynamic states, keep-state and CHECK-STATE rules.
 *
 * An evaluator (ext.h) that keeps the states of a rule set in the core's
 * own table (kernel/state*.c), as the module's xt_run.c and state_rule.c
 * do: keep-state is the last match of its rule's handle, the check point
 * looks the packet's flow up, a state's packets count on the rule that
 * made it, a removed rule's states go with it.  What else a rule carries
 * (set matches, opaque extensions) it hands to an inner evaluator
 * (sets.h), or refuses as the core does without one.
 *
 * The tree and the reference each get their own &struct nfhp_sim_states,
 * so that --check compares two tables fed the same packets.  The clock is
 * the packets' (time=, pkt.h): nfhp_sim_states_advance() sets it before
 * each packet and ticks the whole table, so that states die at the same
 * instants in both.
 */
#ifndef _NFHP_SIM_STATES_H
#define _NFHP_SIM_STATES_H

#include "ext.h"
#include "mem.h"
#include "state.h"

/**
 * struct nfhp_sim_states - the dynamic states of one classifier
 * @ops: the evaluator, to give the rule set (or the reference) with this
 *	struct as its priv; a copy per instance, for the inner's @rekey
 * @table: the states
 * @mem: the account of @table's memory, unbounded
 * @inner: the evaluator of the rules' other extensions, or NULL
 * @inner_priv: what @inner's create gets
 * @flow: the flow of a packet given to the evaluator, as the states key
 *	it (its family need not be set), and its TCP flags, acknowledgment
 *	number and length
 * @family: the rule set's &enum nfhp_family, the flows'
 * @now: the clock, in ticks of the packets' clock
 * @decided: a state decided the last packet looked up; the caller
 *	clears it
 */
struct nfhp_sim_states {
	struct nfhp_ext_ops ops;
	struct nfhp_state_table table;
	struct nfhp_mem mem;
	const struct nfhp_ext_ops *inner;
	void *inner_priv;
	const struct nfhp_state_tuple *(*flow)(const void *pkt, u8 *tcp_flags,
					       u32 *ack, u32 *len);
	u8 family;
	unsigned long now;
	bool decided;
};

int nfhp_sim_states_init(struct nfhp_sim_states *st, u8 family, u32 hz,
			 const struct nfhp_state_tunables *tun);
void nfhp_sim_states_set_inner(struct nfhp_sim_states *st,
			       const struct nfhp_ext_ops *inner, void *priv);
void nfhp_sim_states_advance(struct nfhp_sim_states *st, unsigned long now);
void nfhp_sim_states_destroy(struct nfhp_sim_states *st);

#endif /* _NFHP_SIM_STATES_H */
