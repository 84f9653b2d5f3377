// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the packet path.
 *
 * DOC: Classification
 *
 * nfhp_classify() runs under rcu_read_lock(), takes no lock, allocates
 * nothing and writes nothing shared but counters.  It looks the key up in
 * the published trees of its hook (lookup.h), walks the leaves that hold
 * entries with extensions or that are tested (nfhp_classify_walk()), and,
 * once a target changed the packet, walks the rest of the hook entry by
 * entry (nfhp_classify_linear()).
 *
 * DOC: The check point
 *
 * A hook with keep-state or check-state rules has a check point: the
 * position of its first such rule, user chains flattened in, reached or
 * not (&struct nfhp_hook_tables.state_order, nfhp_state_order()).
 * A packet that gets that far without a verdict is looked up in the
 * dynamic states there (&struct nfhp_ext_ops.check_state), once: a live
 * state decides, a miss lets the rules go on.  It is a position, not a
 * rule the packet must match, so the reply to a flow that a keep-state
 * rule of "-i eth0 -j inbound" let through finds its state whether or
 * not it would enter "inbound".  The trees give the deciding entry; only
 * when it comes at or after the check point is the packet looked up, so
 * a packet decided earlier, and every packet of a hook without such
 * rules, pays nothing.  Walks look up before the first entry they reach
 * at or after it.  A keep-state or check-state rule that no packet can
 * reach where it stands (in a user chain, excluded by the conditions of
 * the jumps to it, so that flattening gives it no entry) is the check
 * point all the same: it is the order of the entry after the rule (or
 * after a dropped jump to a chain that leads to one; flat.c,
 * nfhp_flat_dropped()), as nf-hipac-sim's reference counts it.
 *
 * Example: "-A FORWARD -s 10.0.0.0/8 -j DROP", "-A FORWARD -p tcp
 * --dport 22 -m keep-state -j ACCEPT", policy DROP.  The check point is
 * rule 2's order.  A packet from 10.1.1.1 is decided by rule 1 before it:
 * no lookup.  The first SYN to port 22 reaches rule 2: no state yet, so
 * rule 2's keep-state makes one and accepts.  The server's SYN-ACK is
 * decided by the policy, after the check point: looked up, the state
 * accepts it.  With "-A FORWARD -s 10.0.0.0/8 -j inner" first and "-A
 * inner -s 192.168.0.0/16 -m keep-state -j ACCEPT", inner's rule has no
 * entry, and the check point is the order of rule 2's, the DROP: a reply
 * from 10.1.1.1 to a state is looked up before rule 2 drops it.
 */
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>

#include "ruleset_priv.h"

/**
 * nfhp_entries_lower_bound() - where a key falls among entries
 * @s: the entries, their keys rising
 * @lo: the first entry searched
 * @hi: one past the last
 * @order: the key
 *
 * Where @order falls among the entries [@lo, @hi) of @s, their orders
 * rising, as nfhp_entry_lower_bound(): a search of the pages by their first
 * entries, then one of a page.
 *
 * Return: the index of the first entry in [@lo, @hi) whose key is @order or more, @hi if none.
 */
unsigned int nfhp_entries_lower_bound(const struct nfhp_pageseq *s,
				      unsigned int lo, unsigned int hi,
			       u64 order)
{
	const struct nfhp_entry *const *p;
	const struct nfhp_pageseq_slot *slot;
	u32 a, b, k, from, to;

	if (lo >= hi)
		return lo;
	a = nfhp_pageseq_find(s, lo);
	b = nfhp_pageseq_find(s, hi - 1);
	/* The last page from @a on whose first entry comes before @order. */
	while (a < b) {
		k = a + (b - a + 1) / 2;
		p = (const struct nfhp_entry *const *)s->slot[k].page->p;
		if (p[0]->order < order)
			a = k;
		else
			b = k - 1;
	}
	slot = &s->slot[a];
	p = (const struct nfhp_entry *const *)slot->page->p;
	from = max(lo, slot->start) - slot->start;
	to = min(hi, slot->start + (u32)slot->page->n) - slot->start;
	return slot->start + nfhp_entry_lower_bound(p, from, to, order);
}

static void nfhp_count(const struct nfhp_entry *e, unsigned int len)
{
	if (!e->cnt)
		return;
	this_cpu_add(e->cnt->packets, 1);
	this_cpu_add(e->cnt->bytes, len);
}

/* Fill @verdict from the deciding entry @best. */
static void nfhp_decide(const struct nfhp_tables *t, enum nfhp_hook hook,
			const struct nfhp_entry *best,
			struct nfhp_verdict *verdict)
{
	verdict->hook = hook;
	verdict->rule = best->rule;
	verdict->action = best->action;
	verdict->hotdrop = false;
	if (best->action == NFHP_ENTRY_POLICY) {
		verdict->action = t->hooks[hook].policy;
	} else if (best->action == NFHP_ENTRY_HOTDROP) {
		verdict->rule = NULL;
		verdict->action = NFHP_ACT_DROP;
		verdict->hotdrop = true;
	}
}

/*
 * At the check point of @hook: does a state decide the packet?  Fill
 * @verdict if one does.
 */
static bool nfhp_state_decides(const struct nfhp_ruleset *rs,
			       enum nfhp_hook hook, void *pkt,
			       struct nfhp_verdict *verdict)
{
	u8 action = rs->ext_ops->check_state(rs->ext_priv, pkt);

	if (action == NFHP_ACT_NONE)
		return false;
	verdict->hook = hook;
	verdict->rule = NULL;
	verdict->action = action;
	verdict->hotdrop = false;
	return true;
}

/*
 * The hit entry with the smallest order not yet walked, or NULL; @walk is
 * set to how its hit is walked.
 */
static const struct nfhp_entry *
nfhp_merge_next(const struct nfhp_hit *hit, unsigned int nhits,
		unsigned int *pos, u8 *walk)
{
	const struct nfhp_entry *e, *best = NULL;
	unsigned int g, from = 0;

	for (g = 0; g < nhits; g++) {
		if (pos[g] == hit[g].n)
			continue;
		e = hit[g].items[pos[g]];
		if (!best || e->order < best->order) {
			best = e;
			from = g;
		}
	}
	if (best) {
		pos[from]++;
		*walk = hit[from].walk;
	}
	return best;
}

/*
 * Do the extension matches of the rule of @e, which the tree found the
 * packet in, match too?  A jump that does not match skips its chain.
 */
static enum nfhp_ext_result nfhp_eval_match(const struct nfhp_ruleset *rs,
					    const struct nfhp_entry *e,
					    void *pkt, u64 *skip)
{
	enum nfhp_ext_result res;

	if (!(e->flags & NFHP_ENTRY_EVAL) || !e->rule->ext_match)
		return NFHP_EXT_MATCH;
	res = rs->ext_ops->match(e->rule->ext, pkt);
	if (res == NFHP_EXT_NOMATCH && e->action != NFHP_ACT_RETURN &&
	    e->scope_end != NFHP_ORDER_UNSET)
		*skip = max(*skip, e->scope_end);
	return res;
}

/**
 * struct nfhp_walk - a packet-time walk over entries
 * @rs: the rule set
 * @t: its published tables
 * @hook: the hook
 * @pkt: the packet, for the extensions
 * @len: its length, for the counters
 * @skip: entries ordered before this are skipped (returns, jumps not taken)
 * @key: the packet's key, brought up to date when a target changes it
 * @rekeyed: the trees' leaves no longer describe the packet
 * @state_order: the hook's check point, U64_MAX once looked up
 */
struct nfhp_walk {
	const struct nfhp_ruleset *rs;
	const struct nfhp_tables *t;
	enum nfhp_hook hook;
	void *pkt;
	unsigned int len;
	u64 skip;
	struct nfhp_key key;
	bool rekeyed;
	u64 state_order;
};

/* Before entry @e of a walk: a state decides at the check point? */
static bool nfhp_walk_state_decides(struct nfhp_walk *w,
				    const struct nfhp_entry *e,
				    struct nfhp_verdict *verdict)
{
	if (likely(e->order < w->state_order))
		return false;
	w->state_order = U64_MAX;
	return nfhp_state_decides(w->rs, w->hook, w->pkt, verdict);
}

static void nfhp_decide_hotdrop(struct nfhp_verdict *verdict)
{
	verdict->rule = NULL;
	verdict->action = NFHP_ACT_DROP;
	verdict->hotdrop = true;
}

/*
 * An entry of a walk that matches the packet, extensions included: count
 * it and do what it says.  Return true when the walk goes on, false when
 * @verdict is decided.
 */
static bool nfhp_walk_matched(struct nfhp_walk *w, const struct nfhp_entry *e,
			      struct nfhp_verdict *verdict)
{
	u32 v;

	nfhp_count(e, w->len);
	switch (e->action) {
	case NFHP_ACT_NONE:
		return true;
	case NFHP_ACT_RETURN:
		w->skip = max(w->skip, e->scope_end);
		return true;
	case NFHP_ACT_XT:
		v = w->rs->ext_ops->target(e->rule->ext, w->pkt);
		if (v == NFHP_EXT_CONTINUE) {
			if (w->rs->ext_ops->rekey &&
			    w->rs->ext_ops->rekey(w->pkt, &w->key))
				w->rekeyed = true;
			return true;
		}
		nfhp_decide(w->t, w->hook, e, verdict);
		verdict->xt_verdict = v;
		return false;
	default:
		nfhp_decide(w->t, w->hook, e, verdict);
		return false;
	}
}

/* An entry of a walk whose box holds the packet, see nfhp_walk_matched(). */
static bool nfhp_walk_entry(struct nfhp_walk *w, const struct nfhp_entry *e,
			    struct nfhp_verdict *verdict)
{
	switch (nfhp_eval_match(w->rs, e, w->pkt, &w->skip)) {
	case NFHP_EXT_NOMATCH:
		return true;
	case NFHP_EXT_HOTDROP:
		nfhp_decide_hotdrop(verdict);
		return false;
	default:
		return nfhp_walk_matched(w, e, verdict);
	}
}

/*
 * Does the rule part of @e hold @key?  Its box is narrowed by the jumps
 * that lead to it, which were taken before the key changed; its rule's
 * own box is what counts now.
 */
static bool nfhp_entry_own_match(const struct nfhp_entry *e,
				 const struct nfhp_key *key)
{
	const struct nfhp_rule *r = e->rule;
	const struct nfhp_box *own;

	if (!r)
		return true;	/* the policy, the return after a goto */
	if (e->action == NFHP_ENTRY_HOTDROP)
		own = r->body.hot;
	else
		own = e->flags & NFHP_ENTRY_ALT ? r->body.alt : r->body.box;
	return nfhp_box_contains_key(own, key);
}

static bool nfhp_entry_jumps(const struct nfhp_entry *e)
{
	return e->rule && e->action == NFHP_ACT_NONE &&
	       (e->rule->action == NFHP_ACT_JUMP ||
		e->rule->action == NFHP_ACT_GOTO);
}

/*
 * After a target changed the packet (a mark), the rest of the hook's
 * entries in order, as ipt_do_table would go on: the trees were searched
 * with the old key, and the entries' boxes hold the conditions of jumps
 * taken with it.  So each entry is tested with its rule's own box, and a
 * jump not taken now skips the deeper entries after it, its chain.
 */
static void nfhp_classify_linear(struct nfhp_walk *w, u64 after,
				 struct nfhp_verdict *verdict)
{
	const struct nfhp_pageseq *all = &w->t->hooks[w->hook].entries;
	int untaken = -1;	/* depth of the jump not taken */
	const struct nfhp_entry *e;
	enum nfhp_ext_result res;
	struct nfhp_pageseq_iter it;

	/* Orders are at most NFHP_ORDER_POLICY: @after + 1 does not wrap. */
	nfhp_pageseq_iter_init(&it, all,
			       nfhp_entries_lower_bound(all, 0, all->n,
							after + 1));
	while ((e = nfhp_pageseq_iter_next(&it))) {
		if (nfhp_walk_state_decides(w, e, verdict))
			return;
		if (untaken >= 0 && e->depth > untaken)
			continue;
		untaken = -1;
		if (e->order < w->skip)
			continue;
		res = NFHP_EXT_NOMATCH;
		if (nfhp_entry_own_match(e, &w->key))
			res = nfhp_eval_match(w->rs, e, w->pkt, &w->skip);
		if (res == NFHP_EXT_HOTDROP) {
			nfhp_decide_hotdrop(verdict);
			return;
		}
		if (res == NFHP_EXT_NOMATCH) {
			if (nfhp_entry_jumps(e))
				untaken = e->depth;
			continue;
		}
		if (!nfhp_walk_matched(w, e, verdict))
			return;
	}
	WARN_ON_ONCE(1);	/* the policy matches every packet */
}

/*
 * The walk for hits with extensions or tested entries: their entries in
 * order, merged across the trees, running extensions where the tree
 * could not decide, testing the boxes of the entries of a region whose
 * build was cut short (%NFHP_WALK_TESTED).  An entry reached through a
 * jump has the jump's box in its own, so a jump whose box misses the
 * packet takes its chain with it.  Every hit ends in an entry no earlier
 * one can skip, so the walk ends there at the latest.  Once a target
 * changed the packet, the rest is nfhp_classify_linear().
 */
static void nfhp_classify_walk(struct nfhp_walk *w,
			       const struct nfhp_hit *hit, unsigned int nhits,
			       struct nfhp_verdict *verdict)
{
	unsigned int pos[NFHP_GROUPS] = {};
	const struct nfhp_entry *e;
	u8 how = 0;

	while ((e = nfhp_merge_next(hit, nhits, pos, &how))) {
		if (nfhp_walk_state_decides(w, e, verdict))
			return;
		if (e->order < w->skip)
			continue;
		if (how & NFHP_WALK_TESTED &&
		    !nfhp_box_contains_key(e->box, &w->key))
			continue;
		if (!nfhp_walk_entry(w, e, verdict))
			return;
		if (unlikely(w->rekeyed)) {
			nfhp_classify_linear(w, e->order, verdict);
			return;
		}
	}
	WARN_ON_ONCE(1);	/* a policy ends every hit */
}

/**
 * nfhp_classify() - classify a packet, counting the rules it matches
 * @rs: the rule set
 * @hook: the hook the packet is at
 * @key: the packet, as nfhp_key_fold_port() left it
 * @len: its length, for the byte counters
 * @pkt: what the rule set's &struct nfhp_ext_ops need to run extensions
 *	on the packet, or NULL when it has none
 * @verdict: filled with the outcome
 *
 * Lockless: call under rcu_read_lock() (netfilter hooks already are).
 */
void nfhp_classify(const struct nfhp_ruleset *rs, enum nfhp_hook hook,
		   const struct nfhp_key *key, unsigned int len, void *pkt,
		   struct nfhp_verdict *verdict)
{
	const struct nfhp_tables *t = rcu_dereference(rs->tables);
	const struct nfhp_entry *const *items, *best = NULL, *last;
	unsigned int g, i, nhits = 0, hot, hots = nfhp_key_hot(key);
	const struct nfhp_node *const *seq;
	struct nfhp_hit hit[NFHP_GROUPS], *h;
	u64 bound = U64_MAX, checked;
	bool eval = false;

	/*
	 * Branch and bound: a tree can only beat the decision so far.  The
	 * trees of hotdrop entries come second, and only for hot keys.
	 */
	for (hot = 0; hot <= hots; hot++) {
		seq = t->hooks[hook].seq[hot];
		for (g = 0; g < t->hooks[hook].ntrees[hot]; g++) {
			if (seq[g]->min_order >= bound)
				break;
			h = &hit[nhits];
			if (!nfhp_tree_lookup(seq[g], key, bound, h))
				continue;
			nhits++;
			eval |= h->walk;
			last = h->items[h->n - 1];
			if (last->order < bound) {
				best = last;
				bound = best->order;
			}
		}
	}
	if (unlikely(eval)) {
		struct nfhp_walk w = {
			.rs = rs, .t = t, .hook = hook, .pkt = pkt, .len = len,
			.key = *key, .state_order = t->hooks[hook].state_order,
		};

		verdict->hook = hook;
		verdict->action = t->hooks[hook].policy;
		verdict->rule = NULL;
		verdict->hotdrop = false;
		nfhp_classify_walk(&w, hit, nhits, verdict);
		return;
	}
	/* Past the check point: a state may decide before the rules. */
	checked = t->hooks[hook].state_order;
	if (likely(bound < checked) ||
	    !nfhp_state_decides(rs, hook, pkt, verdict))
		checked = U64_MAX;
	/* Count what matched before the decision, in every tree, once. */
	for (g = 0; g < nhits; g++) {
		items = hit[g].items;
		for (i = 0; items[i]->order < min(bound, checked); i++)
			nfhp_count(items[i], len);
	}
	if (checked != U64_MAX)
		return;
	nfhp_count(best, len);
	nfhp_decide(t, hook, best, verdict);
}
