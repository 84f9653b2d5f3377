// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the split of a region in one dimension.
 *
 * DOC: Splits
 *
 * The interval ends of a region's relevant entries in the dimension split,
 * sorted (nfhp_split_events()); the sweep over them that builds a child for
 * each elementary interval, from the entries active there, or takes it from
 * the memo (nfhp_split_children()); and the node of the children, or for
 * very many a node of nodes (nfhp_make_rlp()).  Which dimension is split,
 * and within what budget, is tree.c's (nfhp_split()).
 */
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "memo.h"
#include "tree_priv.h"

static int nfhp_event_cmp(const void *a, const void *b)
{
	const struct nfhp_event *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return 0;
}

/*
 * Copy an event field by field: a kernel build made the assignment of the
 * whole struct a call of memcpy(), a tenth of a bounded build under TCG.
 */
static inline void nfhp_event_copy(struct nfhp_event *to,
				   const struct nfhp_event *from)
{
	to->at = from->at;
	to->idx = from->idx;
	to->on = from->on;
}

/* Byte @b of @at, the least significant being byte 0. */
static inline unsigned int nfhp_event_byte(nfhp_u128 at, unsigned int b)
{
	u64 half = b < 8 ? (u64)at : (u64)(at >> 64);

	return (half >> (8 * (b & 7))) & 0xff;
}

/*
 * Sort the events of @dim by @at, least significant byte first, from @ev
 * to @tmp and back, with @count's 256 counters; return the one sorted
 * last (no copy back: memcpy() is slow under TCG).  Only the bytes in which
 * some events differ are sorted by: most of an interface name's, and the
 * high bytes of the addresses of a narrow region, cost nothing.  The
 * order of equal events does not matter: they are all applied before the
 * next interval is built.
 */
static struct nfhp_event *
nfhp_events_radix(struct nfhp_event *ev, struct nfhp_event *tmp, u32 *count,
		  unsigned int n, unsigned int dim)
{
	unsigned int bytes = sizeof(nfhp_u128);
	struct nfhp_event *src = ev, *dst = tmp;
	unsigned int b, i, pos, c;
	nfhp_u128 differ = 0;

	for (i = 1; i < n; i++)
		differ |= ev[i].at ^ ev[0].at;
	for (b = 0; b < bytes; b++) {
		if (!nfhp_event_byte(differ, b))
			continue;
		memset(count, 0, 256 * sizeof(*count));
		for (i = 0; i < n; i++)
			count[nfhp_event_byte(src[i].at, b)]++;
		for (i = 0, pos = 0; i < 256; i++) {
			c = count[i];
			count[i] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++) {
			pos = count[nfhp_event_byte(src[i].at, b)]++;
			nfhp_event_copy(&dst[pos], &src[i]);
		}
		swap(src, dst);
	}
	return src;
}

static void nfhp_events_insertion(struct nfhp_event *ev, unsigned int n)
{
	struct nfhp_event tmp;
	unsigned int i, j;

	for (i = 1; i < n; i++) {
		if (ev[i - 1].at <= ev[i].at)
			continue;
		tmp = ev[i];
		for (j = i; j && ev[j - 1].at > tmp.at; j--)
			ev[j] = ev[j - 1];
		ev[j] = tmp;
	}
}

/*
 * Sort events by @at, in place or into scratch memory allocated after
 * them; return the sorted ones.  sort()'s indirect calls were a fifth of
 * a build: most splits below the first levels have a handful of events,
 * sorted by insertion, and the wide ones by radix, the interface
 * dimensions too.  Without scratch memory for the radix sort, sort()
 * does it.
 */
static struct nfhp_event *nfhp_events_sort(struct nfhp_forest *f,
					   unsigned int dim,
					   struct nfhp_event *ev,
					   unsigned int n)
{
	struct nfhp_scratch_mark mark;
	struct nfhp_event *tmp, *sorted;
	u32 *count;

	if (n <= nfhp_tunables.events_insertion_max) {
		nfhp_events_insertion(ev, n);
		return ev;
	}
	mark = nfhp_scratch_mark(&f->scratch);
	tmp = nfhp_scratch_alloc(&f->scratch, n, sizeof(*tmp));
	count = nfhp_scratch_alloc(&f->scratch, 256, sizeof(*count));
	if (!tmp || !count) {
		nfhp_scratch_release(&f->scratch, mark);
		sort(ev, n, sizeof(*ev), nfhp_event_cmp, NULL);
		return ev;
	}
	sorted = nfhp_events_radix(ev, tmp, count, n, dim);
	/* Sorted into @tmp, which stays until the caller's release. */
	if (sorted == ev)
		nfhp_scratch_release(&f->scratch, mark);
	return sorted;
}

/**
 * nfhp_split_events() - the interval ends of a split, sorted
 * @f: the forest, whose scratch stack holds them
 * @s: the relevant entries of the region
 * @dim: the dimension split
 * @span: the region's interval in @dim, to which they are clipped
 * @out: set to the interval ends, sorted
 * @nout: set to their number
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_split_events(struct nfhp_forest *f,
		      const struct nfhp_scan *s, unsigned int dim,
		      const struct nfhp_range *span,
		      struct nfhp_event **out, unsigned int *nout)
{
	unsigned int i, j, n = 0, cap = 0;
	struct nfhp_event *ev;

	for (i = 0; i < s->n; i++)
		cap += 2 * nfhp_box_nranges(s->rel[i]->box, dim);
	ev = nfhp_scratch_alloc(&f->scratch, cap, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		const struct nfhp_box *b = s->rel[i]->box;
		const struct nfhp_range *r = nfhp_box_ranges(b, dim);

		for (j = 0; j < nfhp_box_nranges(b, dim); j++) {
			if (r[j].hi < span->lo || r[j].lo > span->hi)
				continue;
			ev[n].at = max(r[j].lo, span->lo);
			ev[n].idx = i;
			ev[n++].on = true;
			if (r[j].hi >= span->hi)
				continue;
			ev[n].at = r[j].hi + 1;
			ev[n].idx = i;
			ev[n++].on = false;
		}
	}
	*out = nfhp_events_sort(f, dim, ev, n);
	*nout = n;
	return 0;
}

/**
 * nfhp_children_put() - drop the references of the children of a node
 * @f: the forest
 * @c: the children
 */
void nfhp_children_put(struct nfhp_forest *f, struct nfhp_children *c)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		nfhp_tree_put(f, c->node[i]);
}

/**
 * nfhp_children_add() - append a child, merged with an equal left neighbour
 * @f: the forest
 * @c: the children
 * @child: the child, whose reference @c takes
 * @hi: the inclusive upper end of its interval
 */
void nfhp_children_add(struct nfhp_forest *f, struct nfhp_children *c,
		       struct nfhp_node *child, nfhp_u128 hi)
{
	if (c->n && c->node[c->n - 1] == child) {
		nfhp_tree_put(f, child);
		c->hi[c->n - 1] = hi;
		return;
	}
	c->node[c->n] = child;
	c->hi[c->n++] = hi;
}

/**
 * struct nfhp_active - the relevant entries of the parent that intersect
 *	the current elementary interval
 * @bits: one bit per entry of the parent's relevant list
 * @words: one bit per word of @bits that is not zero
 *
 * A wide split has hundreds of thousands of entries but few of them meet
 * any one interval; @words lets the scan skip the empty words of @bits.
 */
struct nfhp_active {
	unsigned long *bits;
	unsigned long *words;
};

static int nfhp_active_init(struct nfhp_forest *f, struct nfhp_active *a,
			    unsigned int n)
{
	unsigned int nbits = BITS_TO_LONGS(n);

	a->bits = nfhp_scratch_zalloc(&f->scratch, nbits, sizeof(long));
	a->words = nfhp_scratch_zalloc(&f->scratch, BITS_TO_LONGS(nbits),
				       sizeof(long));
	return a->bits && a->words ? 0 : -ENOMEM;
}

static void nfhp_active_set(struct nfhp_active *a, unsigned int i, bool on)
{
	unsigned int w = i / BITS_PER_LONG;

	if (on) {
		__set_bit(i, a->bits);
		__set_bit(w, a->words);
		return;
	}
	__clear_bit(i, a->bits);
	if (!a->bits[w])
		__clear_bit(w, a->words);
}

/*
 * Push the active entries into @s in order, up to the one after which
 * nfhp_scan_push() says nothing can matter.
 */
static void nfhp_active_scan(const struct nfhp_active *a,
			     const struct nfhp_scan *parent,
			     const struct nfhp_region *reg, struct nfhp_scan *s)
{
	unsigned int nbits = BITS_TO_LONGS(parent->n), sw, w, i;
	unsigned long words, bits;

	for (sw = 0; sw < BITS_TO_LONGS(nbits); sw++) {
		for (words = a->words[sw]; words; words &= words - 1) {
			w = sw * BITS_PER_LONG + __builtin_ctzl(words);
			for (bits = a->bits[w]; bits; bits &= bits - 1) {
				i = w * BITS_PER_LONG + __builtin_ctzl(bits);
				if (!nfhp_scan_push(s, reg, parent->rel[i]))
					return;
			}
		}
	}
}

/*
 * The work the subtree of a child of @n relevant entries may take: all
 * the run's pool on a build's first attempt, a share of it on the second
 * ("Bounded builds" in DOC: Theory of Operation).
 */
static u64 nfhp_child_budget(const struct nfhp_forest *f,
			     const struct nfhp_sweep *w, unsigned int n)
{
	if (!f->shares)
		return w->pool;
	if (!w->work)
		return 0;
	return min(w->pool, div64_u64(w->pool * n * NFHP_SHARE_OVERCOMMIT,
				      w->work));
}

/*
 * Build (or find in the memo) the child of one elementary interval, whose
 * relevant entries go to @s: a scan on the scratch stack, not in this
 * frame, as the build recurses through it.  Its share of the run's pool
 * is as its entries are to the run's that are left.  A leaf's region is
 * not remembered: its leaf is found as fast by deduplication.
 */
static int nfhp_build_child(struct nfhp_forest *f, struct nfhp_region *reg,
			    const struct nfhp_scan *parent,
			    const struct nfhp_active *active,
			    struct nfhp_sweep *w, struct nfhp_scan *s,
			    struct nfhp_node **out)
{
	struct nfhp_memo_key key;
	struct nfhp_node *twin = NULL;
	int err;

	*s = (struct nfhp_scan){ .rel = s->rel,
				 .cut = parent->cut | BIT(w->dim) };
	nfhp_active_scan(active, parent, reg, s);
	key = (struct nfhp_memo_key){ .rel = s->rel, .n = s->n, .cut = s->cut };
	if (s->split) {
		nfhp_memo_hash(&key);
		twin = nfhp_memo_find(f->memo, &key);
	}
	if (!f->shares) {
		/* A first attempt pays for each child's scan as it goes. */
		if (w->pool < s->n)
			return -ERANGE;
		w->pool -= s->n;
		w->used += s->n;
	}
	if (twin) {
		nfhp_node_get(f, twin);
		*out = twin;
	} else {
		s->budget = nfhp_child_budget(f, w, s->n);
		err = nfhp_build(f, reg, s, out);
		if (err)
			return err;
		if (s->split)
			nfhp_memo_store(f->memo, &key, *out);
		w->pool -= s->used;
		w->used += s->used;
	}
	w->work -= min_t(u64, w->work, s->n);
	return 0;
}

/**
 * nfhp_children_min() - the earliest entry below any of the children
 * @c: the children
 *
 * Return: that entry's order, or U64_MAX for no children.
 */
u64 nfhp_children_min(const struct nfhp_children *c)
{
	u64 min_order = U64_MAX;
	unsigned int i;

	for (i = 0; i < c->n; i++)
		min_order = min(min_order, c->node[i]->min_order);
	return min_order;
}

/*
 * The kind of a node whose @n keys are @hi: u32 keys when its region ends
 * below 2^32, as in every region of a 32-bit dimension; the top halves
 * when every key ends in 64 one bits, as the ends of IPv6 prefixes of /64
 * or shorter do; else nfhp_u128 (IPv6 hosts, interface names).
 */
static u8 nfhp_node_kind_for(const nfhp_u128 *hi, unsigned int n)
{
	unsigned int i;

	if (hi[n - 1] <= U32_MAX)
		return NFHP_NODE_RLP32;
	for (i = 0; i < n; i++)
		if ((u64)hi[i] != U64_MAX)
			return NFHP_NODE_RLP128;
	return NFHP_NODE_RLP64;
}

/* One node of the children @c, whose earliest entry is @min_order. */
static int nfhp_make_node(struct nfhp_forest *f, unsigned int dim,
			  struct nfhp_children *c, u64 min_order,
			  struct nfhp_node **out)
{
	u8 kind = nfhp_node_kind_for(c->hi, c->n);
	struct nfhp_node *node;
	unsigned int i;

	if (c->n == 1) {
		*out = c->node[0];
		return 0;
	}
	node = nfhp_draft_new(f, kind, c->n);
	if (!node)
		return -ENOMEM;
	node->dim = dim;
	node->min_order = min_order;
	for (i = 0; i < c->n; i++) {
		if (kind == NFHP_NODE_RLP128)
			nfhp_keys128(node)[i] = c->hi[i];
		else if (kind == NFHP_NODE_RLP64)
			nfhp_keys64(node)[i] = (u64)(c->hi[i] >> 64);
		else
			nfhp_keys32(node)[i] = (u32)c->hi[i];
		nfhp_children(node)[i] = c->node[i];
	}
	if (kind != NFHP_NODE_RLP128)
		nfhp_index_fill(node);
	*out = nfhp_node_intern(f, node);
	return *out ? 0 : -ENOMEM;
}

/*
 * Cut the children @c into nodes of nfhp_tunables.node_piece intervals under a
 * parent node of the same dimension, see "Wide nodes" in DOC: Theory of
 * Operation.  On failure the references are @c's again, as with one node.
 */
static int nfhp_make_chunks(struct nfhp_forest *f, unsigned int dim,
			    struct nfhp_children *c, u64 min_order,
			    struct nfhp_node **out)
{
	unsigned int k = nfhp_tunables.node_piece, i, j;
	struct nfhp_scratch_mark mark;
	struct nfhp_children top, part;
	int err;

	top.n = DIV_ROUND_UP(c->n, k);
	top.node = nfhp_scratch_alloc(&f->scratch, top.n, sizeof(*top.node));
	top.hi = nfhp_scratch_alloc(&f->scratch, top.n, sizeof(*top.hi));
	if (!top.node || !top.hi)
		return -ENOMEM;
	for (j = 0, err = 0; j < top.n && !err; j++) {
		part.node = c->node + j * k;
		part.hi = c->hi + j * k;
		part.n = min(k, c->n - j * k);
		mark = nfhp_scratch_mark(&f->scratch);
		err = nfhp_make_node(f, dim, &part, nfhp_children_min(&part),
				     &top.node[j]);
		nfhp_scratch_release(&f->scratch, mark);
		top.hi[j] = part.hi[part.n - 1];
	}
	if (err)
		j--;	/* the failed part kept its references */
	else
		err = nfhp_make_rlp(f, dim, &top, min_order, out);
	if (!err)
		return 0;
	/* The parts took their children's references: hand them back. */
	for (i = 0; i < min(j * k, c->n); i++)
		nfhp_node_get(f, c->node[i]);
	for (i = 0; i < j; i++)
		nfhp_tree_put(f, top.node[i]);
	return err;
}

/**
 * nfhp_make_rlp() - the range-location node of children
 * @f: the forest
 * @dim: the dimension whose intervals they are
 * @c: the children; the node takes over their references, which on
 *	failure stay with @c
 * @min_order: the earliest entry below them
 * @out: set to the node, holding one reference
 *
 * One node, or for very many children a node of nodes
 * (nfhp_make_chunks()).
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_make_rlp(struct nfhp_forest *f, unsigned int dim,
		  struct nfhp_children *c, u64 min_order,
		  struct nfhp_node **out)
{
	if (c->n > 2 * nfhp_tunables.node_fanout)
		return nfhp_make_chunks(f, dim, c, min_order, out);
	return nfhp_make_node(f, dim, c, min_order, out);
}

/**
 * nfhp_split_children() - build the children of a run of a split
 * @f: the forest
 * @reg: the region split, as it was again on return
 * @s: its relevant entries
 * @w: the run: the interval ends of @w->dim it sweeps, and its budget
 * @c: the children, appended to
 *
 * Sweep the interval ends of @w->dim, building one child per interval.  A
 * commit whose task has a signal stops here, and nothing of the build
 * stays: an admin's Ctrl-C on a restore leaves the old rules in force.
 *
 * Return: 0 or an error of nfhp_build().
 */
int nfhp_split_children(struct nfhp_forest *f, struct nfhp_region *reg,
			const struct nfhp_scan *s,
			struct nfhp_sweep *w,
			struct nfhp_children *c)
{
	const struct nfhp_event *ev = w->ev;
	struct nfhp_range span = reg->d[w->dim];
	unsigned int i, e, nev = w->nev;
	struct nfhp_active active;
	struct nfhp_scan *cs;
	struct nfhp_node *child;
	nfhp_u128 lo, hi;
	int err, k = 0;

	cs = nfhp_scratch_alloc(&f->scratch, 1, sizeof(*cs));
	if (cs)
		cs->rel = nfhp_scratch_alloc(&f->scratch, s->n, sizeof(*cs->rel));
	if (!cs || !cs->rel || nfhp_active_init(f, &active, s->n))
		return -ENOMEM;
	for (i = 0; i < s->n; i++)
		if (!nfhp_box_nranges(s->rel[i]->box, w->dim))
			nfhp_active_set(&active, i, true);
	/* A later run starts with the entries the earlier ones left on. */
	for (e = 0; e < w->from; e++)
		nfhp_active_set(&active, ev[e].idx, ev[e].on);
	lo = w->from ? ev[w->from].at : span.lo;
	for (;;) {
		for (; e < nev && ev[e].at == lo; e++)
			nfhp_active_set(&active, ev[e].idx, ev[e].on);
		hi = e < nev ? ev[e].at - 1 : span.hi;
		reg->d[w->dim].lo = lo;
		reg->d[w->dim].hi = hi;
		f->may_share = k++ == w->heavy;
		err = nfhp_build_child(f, reg, s, &active, w, cs, &child);
		f->may_share = false;
		if (err)
			break;
		nfhp_children_add(f, c, child, hi);
		cond_resched();
		if (signal_pending(current)) {
			err = -ECANCELED;
			break;
		}
		if (e >= w->to)
			break;
		lo = ev[e].at;
	}
	reg->d[w->dim] = span;
	return err;
}
