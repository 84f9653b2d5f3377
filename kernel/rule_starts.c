// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: where each rule of a built-in chain begins, see rule_starts.h.
 *
 * A rule's entries in its hook are its own, at depth 0 (a hotdrop entry,
 * its box, its alternative box), and those of the chains it jumps to,
 * deeper, after each of its own.  Its first entry is the first of its
 * own, so the index takes, from the entries in order, each depth-0 entry
 * whose rule is not the one of the depth-0 entry before it.
 *
 * Example: FORWARD holds "-s 10.0.0.0/8 -j A" (an entry at order 100,
 * then A's two at depth 1, 150 and 175) and "-j DROP" (200).  The index
 * maps the jump to 100 and the DROP to 200.  A rule inserted between them
 * gets an entry at an order between 175 and 200, say 187, and the index
 * learns its 187; the jump's and the DROP's keys stay, where their
 * indexes in the entry array (3 and 4) would have moved.  An update that
 * replaces an entry by a copy (a new scope end) keeps its key, so the
 * copy takes the place of the original in the index.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "rule_starts.h"

/* The slot of @rule, or the free one where it would go. */
static struct nfhp_rule_starts_slot *
nfhp_rule_starts_slot(const struct nfhp_rule_starts *f,
		      const struct nfhp_rule *rule)
{
	u32 i = nfhp_rule_hash(rule) & f->mask;

	while (f->slot[i].rule && f->slot[i].rule != rule)
		i = (i + 1) & f->mask;
	return &f->slot[i];
}

/**
 * nfhp_rule_starts_clear() - empty the index and free its table
 * @mem: the account it was charged to
 * @f: the index
 */
void nfhp_rule_starts_clear(struct nfhp_mem *mem, struct nfhp_rule_starts *f)
{
	if (f->slot)
		nfhp_free(mem, f->slot, (f->mask + 1) * sizeof(*f->slot));
	memset(f, 0, sizeof(*f));
}

/*
 * Slots at most this many fifths full: at 100,000 rules 2 MiB, and a
 * search still reads a few slots, a cache line or two.
 */
#define NFHP_RULE_STARTS_LOAD	4

/* Does a table of @size slots hold @n rules? */
static bool nfhp_rule_starts_fits(u32 size, unsigned int n)
{
	return (u64)n * 5 <= (u64)size * NFHP_RULE_STARTS_LOAD;
}

/* Room for @n rules, the rules held moved over. */
static int nfhp_rule_starts_resize(struct nfhp_mem *mem,
				   struct nfhp_rule_starts *f,
				   unsigned int n)
{
	struct nfhp_rule_starts old = *f;
	u32 size = 16, i;

	while (!nfhp_rule_starts_fits(size, n))
		size *= 2;
	f->slot = nfhp_alloc(mem, size * sizeof(*f->slot));
	if (!f->slot) {
		*f = old;
		return -ENOMEM;
	}
	f->mask = size - 1;
	for (i = 0; old.slot && i <= old.mask; i++)
		if (old.slot[i].rule)
			*nfhp_rule_starts_slot(f, old.slot[i].rule) =
				old.slot[i];
	if (old.slot)
		nfhp_free(mem, old.slot, (old.mask + 1) * sizeof(*old.slot));
	return 0;
}

/**
 * nfhp_rule_starts_add() - note an entry of a rule
 * @mem: the account to charge
 * @f: the index
 * @rule: the rule
 * @order: the order key of one of its entries
 *
 * A rule already held keeps the lower key: its first entry's.
 *
 * Return: 0 or -ENOMEM, the index unchanged then.
 */
int nfhp_rule_starts_add(struct nfhp_mem *mem, struct nfhp_rule_starts *f,
			 const struct nfhp_rule *rule, u64 order)
{
	struct nfhp_rule_starts_slot *s;

	if (!nfhp_rule_starts_fits(f->mask + 1, f->n + 1) &&
	    nfhp_rule_starts_resize(mem, f, 2 * (f->n + 1)))
		return -ENOMEM;
	s = nfhp_rule_starts_slot(f, rule);
	if (s->rule) {
		s->order = min(s->order, order);
		return 0;
	}
	s->rule = rule;
	s->order = order;
	f->n++;
	return 0;
}

/**
 * nfhp_rule_starts_find() - where a rule's entries begin
 * @f: the index
 * @rule: the rule
 *
 * Return: the order key of its first entry, %NFHP_ORDER_UNSET for a
 * rule it does not hold.
 */
u64 nfhp_rule_starts_find(const struct nfhp_rule_starts *f,
			  const struct nfhp_rule *rule)
{
	const struct nfhp_rule_starts_slot *s;

	if (!f->slot)
		return NFHP_ORDER_UNSET;
	s = nfhp_rule_starts_slot(f, rule);
	return s->rule ? s->order : NFHP_ORDER_UNSET;
}

/**
 * nfhp_rule_starts_del() - forget a rule whose first entry goes
 * @f: the index
 * @rule: the rule
 * @order: the order key of the entry that goes
 *
 * Nothing changes unless @rule is held with the key @order.  The rules
 * probed past its slot move back into the gap, so that no search stops
 * early at it; no tombstones.
 */
void nfhp_rule_starts_del(struct nfhp_rule_starts *f,
			  const struct nfhp_rule *rule,
			  u64 order)
{
	struct nfhp_rule_starts_slot *s;
	u32 gap, i, home;

	if (!f->slot)
		return;
	s = nfhp_rule_starts_slot(f, rule);
	if (!s->rule || s->order != order)
		return;
	gap = s - f->slot;
	for (i = (gap + 1) & f->mask; f->slot[i].rule; i = (i + 1) & f->mask) {
		home = nfhp_rule_hash(f->slot[i].rule) & f->mask;
		/* Stays when its home lies cyclically in (gap, i]. */
		if (((i - home) & f->mask) < ((i - gap) & f->mask))
			continue;
		f->slot[gap] = f->slot[i];
		gap = i;
	}
	f->slot[gap].rule = NULL;
	f->n--;
}

/**
 * nfhp_rule_starts_equal() - do two indexes hold the same rules and keys?
 * @a: one index
 * @b: the other
 *
 * For tests, which check an index brought forward against one built.
 *
 * Return: true when they do.
 */
bool nfhp_rule_starts_equal(const struct nfhp_rule_starts *a,
			    const struct nfhp_rule_starts *b)
{
	u32 i;

	if (a->n != b->n)
		return false;
	for (i = 0; a->slot && i <= a->mask; i++)
		if (a->slot[i].rule && a->slot[i].order !=
		    nfhp_rule_starts_find(b, a->slot[i].rule))
			return false;
	return true;
}

/**
 * nfhp_rule_starts_build() - index a hook's entries
 * @mem: the account to charge
 * @f: an empty index
 * @e: the hook's entries in order
 * @n: how many of them to index, from the first
 * @rules: the rules of its built-in chain, to size the table
 *
 * Return: 0, or -ENOMEM with @f empty.
 */
int nfhp_rule_starts_build(struct nfhp_mem *mem, struct nfhp_rule_starts *f,
			   const struct nfhp_pageseq *e, unsigned int n,
		      unsigned int rules)
{
	const struct nfhp_rule *last = NULL;
	const struct nfhp_entry *x;
	struct nfhp_pageseq_iter it;
	unsigned int i;
	int err;

	err = nfhp_rule_starts_resize(mem, f, rules);
	nfhp_pageseq_iter_init(&it, e, 0);
	for (i = 0; i < n && !err; i++) {
		x = nfhp_pageseq_iter_next(&it);
		if (x->depth || !x->rule || x->rule == last)
			continue;
		last = x->rule;
		err = nfhp_rule_starts_add(mem, f, last, x->order);
	}
	if (err)
		nfhp_rule_starts_clear(mem, f);
	f->valid = !err;
	return err;
}
