// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: which of its hook's trees an entry goes to.
 *
 * Width classes
 * -------------
 *
 * A rule that is a wildcard in one address would be copied under every
 * interval of the other address in one tree: the cross-product that made
 * nf-hipac's memory explode.  So the entries of a hook are grouped by how
 * wide their source and destination are, wide (a /8 or more), middle (/9
 * to /20) or narrow, and each group gets a tree of its own
 * (NFHP_HOOK_TREES of them, struct nfhp_tables in ruleset_priv.h).
 *
 * Narrow sources are the exception: they share one tree whatever their
 * destination.  Its root splits the sources, and a narrow source's region
 * meets few rules, so a wide destination is copied only beside the few
 * narrow ones of its own sources, not under every destination of the
 * hook.  Every tree costs a lookup a root search: at fw5_10k a packet
 * entered 3.0 trees, two of them those of narrow sources with wide and
 * with narrow destinations.  In one tree a lookup's estimated cycles fell
 * by 7 % (fw1_10k, fw5_10k) to 15 % (acl2_10k, fw2_10k, fw1_100k), for
 * at most 11 % more memory (acl4_10k).
 *
 * Folding
 * -------
 *
 * The middle class exists for rule sets where middle prefixes nest narrow
 * ones: in bench/seed.py's sets a source /16 holds about 250 of the /24
 * and /32 sources, and in one tree with them each /16 rule is copied
 * under all of those, three times the memory at 40,000 rules.  Where they
 * do not nest (the ClassBench sets), the middle trees only cost lookups:
 * every tree a packet visits is a descent, and at acl2_10k the nine trees
 * cost a third of the instructions of a lookup over those of four.
 *
 * So each dimension's middle class is folded into the narrow one unless
 * that would copy the middle entries too often: nfhp_fold_choose() counts,
 * for each middle entry, the places inside its hull where narrow entries
 * of the tree it would join begin (for a source, every narrow source; for
 * a destination, those of the same width class in the source), and folds
 * a dimension while the sum stays below NFHP_FOLD_COPIES per entry of the
 * hook.  Places, not entries: narrow entries that begin at one address
 * share the region the middle entry is copied into, and the ClassBench
 * sets have many rules a source, so counting entries put them beside the
 * seed sets, whose fold costs memory, build and updates.
 * It sorts the narrow entries' starts once and keeps one of each, then
 * two binary searches per middle entry give its count: O(n log n).
 *
 * Example: a source 10.1.0.0/16 and destination any (middle, wide) meets
 * the narrow sources that begin in 10.1.0.0 to 10.1.255.255: those are the
 * regions it would be copied into.  Per entry of the hook, the ClassBench
 * sets count 0 to 0.42 (acl4_10k 0.42, acl2_10k 0.24), seed.py's sets
 * 1.26 at 1,000 rules and 12.5 at 10,000: each of its /16 sources holds
 * one in 128 of its /24 and /32 ones.  Folded, seed.py's 10,000 rules
 * took twice the memory (25.6 MB against 12.4), 2.8 times the build and
 * 1.4 times the single insert; counted by entries (acl4_10k 19.9, seed
 * 10,000 25.2) a bound could not part the two.
 *
 * The fold is chosen when a hook's trees are built from scratch and kept
 * by updates, whose new entries must land in the trees the old ones are
 * in.  txn.c checks it again every so many commits, and rebuilds the
 * hook when its count has gone past twice the bound or below half of it.
 *
 * Short headers
 * -------------
 *
 * Each rule with a tcp, udp, icmp or multiport match has a hotdrop entry
 * just before it, which drops the packets whose transport header is too
 * short for the match (key.h).  Only such packets can match it: a key
 * that nfhp_key_hot() finds.  In the rule's tree it would split the
 * protocol-port intervals once more and make most list nodes three
 * entries long, past a cache line, where every packet pays for it.  So
 * hotdrop entries have trees of their own, a group beside each width
 * group (%NFHP_WIDTH_TREES more), which nfhp_classify() searches for hot
 * keys alone.  They keep the width group of their rule, because in one
 * tree a wildcard source would be copied under every narrow one: at
 * fw5_10k the tree of all hotdrop entries took 180 MB.  Apart, at
 * fw5_10k, nearly every list node fits a cache line (20 % did), a lookup
 * reads 3.8 lines past L2 where it read 4.4, and its estimated cycles
 * fall by 10 %, for 10 % more memory.
 */
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "group.h"
#include "match.h"
#include "lower_bound.h"
#include "tunables.h"

/*
 * An address range at least this wide counts as a wildcard for grouping:
 * for IPv4 a /8, middle from a /20.  IPv6's classes are IPv4's moved up
 * by the shift of the hook's fold, which nfhp_fold_choose() takes from
 * the rule set (nfhp_fold_shift_of()): where the longest prefixes of its
 * rules end, as IPv4's hosts end at bit 0.  A rule set whose narrowest
 * prefixes are /56s, as bench/ipv4to6.py makes them, gets 72: wide a /32,
 * middle from a /44.  One of /128 hosts gets 0, IPv4's classes in the
 * low 32 bits; one of /64 subnets 64: wide a /40, middle from a /52.
 * nfhp_fold_key() reads the 32 bits of an address above the shift.
 */
#define NFHP_WIDE_ADDR4		BIT_ULL(24)
#define NFHP_MIDDLE_ADDR4	BIT_ULL(12)
#define NFHP_ADDR6_SHIFT_MAX	96

enum nfhp_width {
	NFHP_WIDTH_WIDE,
	NFHP_WIDTH_MIDDLE,
	NFHP_WIDTH_NARROW,
};

/*
 * The width class of a box in an address dimension, with IPv6's classes
 * @shift bits up.
 */
static enum nfhp_width nfhp_width_of(const struct nfhp_box *b,
				     unsigned int dim, unsigned int shift)
{
	const struct nfhp_range *r = nfhp_box_ranges(b, dim);
	bool v6 = b->family == NFHP_FAMILY_IPV6;
	nfhp_u128 wide = (nfhp_u128)NFHP_WIDE_ADDR4 << (v6 ? shift : 0);
	nfhp_u128 middle = (nfhp_u128)NFHP_MIDDLE_ADDR4 << (v6 ? shift : 0);
	nfhp_u128 size = 0;
	unsigned int i;

	if (!nfhp_box_nranges(b, dim))
		return NFHP_WIDTH_WIDE;
	/* Ranges of a restricted dimension miss a value: no overflow. */
	for (i = 0; i < nfhp_box_nranges(b, dim); i++)
		size += r[i].hi - r[i].lo + 1;
	if (size >= wide)
		return NFHP_WIDTH_WIDE;
	return size >= middle ? NFHP_WIDTH_MIDDLE : NFHP_WIDTH_NARROW;
}

static enum nfhp_width nfhp_width_folded(const struct nfhp_box *b,
					 unsigned int dim, u8 fold, u8 bit)
{
	enum nfhp_width w = nfhp_width_of(b, dim, nfhp_fold_shift(fold));

	return w == NFHP_WIDTH_MIDDLE && (fold & bit) ? NFHP_WIDTH_NARROW : w;
}

/**
 * nfhp_group_of() - the group of an entry
 * @e: the entry, its box and action set
 * @fold: its hook's fold, %NFHP_FOLD_SRC and %NFHP_FOLD_DST bits
 *
 * Return: the group, below %NFHP_HOOK_TREES: source class times three
 * plus destination class, but one group for all narrow sources (below
 * %NFHP_WIDTH_TREES); %NFHP_WIDTH_TREES more for a hotdrop entry.
 */
unsigned int nfhp_group_of(const struct nfhp_entry *e, u8 fold)
{
	enum nfhp_width s, d;
	unsigned int g;

	s = nfhp_width_folded(e->box, NFHP_DIM_SRC, fold, NFHP_FOLD_SRC);
	d = nfhp_width_folded(e->box, NFHP_DIM_DST, fold, NFHP_FOLD_DST);
	g = s * 3 + (s == NFHP_WIDTH_NARROW ? NFHP_WIDTH_WIDE : d);
	return e->action == NFHP_ENTRY_HOTDROP ? g + NFHP_WIDTH_TREES : g;
}

/*
 * A sort key: the other dimension's class above where the hull begins,
 * as 32 bits of an address: all of an IPv4 one; of an IPv6 one, those
 * its classes are cut from, @shift bits up (places in one block of
 * 2^@shift count once, an estimate).
 */
static u64 nfhp_fold_key(u8 family, unsigned int shift,
			 enum nfhp_width other, nfhp_u128 at)
{
	unsigned int cut = family == NFHP_FAMILY_IPV6 ? shift : 0;

	return (u64)other << 32 | (u32)(at >> cut);
}

/* Bits of a sort key, and of a pass of the radix sort over them. */
#define NFHP_FOLD_KEY_BITS	34
#define NFHP_FOLD_DIGIT		8

/*
 * Sort the @n keys of @a by radix, with @b as room: heapsort's calls of a
 * compare function took as long as a tenth of a 100k rule build.
 * Return: whichever of @a and @b holds the sorted keys.
 */
static u64 *nfhp_fold_sort(u64 *a, u64 *b, unsigned int n)
{
	unsigned int count[1 << NFHP_FOLD_DIGIT], shift, i, sum, c;
	u64 *t;

	for (shift = 0; shift < NFHP_FOLD_KEY_BITS; shift += NFHP_FOLD_DIGIT) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(a[i] >> shift) & (ARRAY_SIZE(count) - 1)]++;
		for (i = 0, sum = 0; i < ARRAY_SIZE(count); i++) {
			c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[count[(a[i] >> shift) & (ARRAY_SIZE(count) - 1)]++] =
				a[i];
		t = a;
		a = b;
		b = t;
	}
	return a;
}

/*
 * Keep one of each run of equal sorted keys: narrow entries that begin
 * at the same address share the region a middle entry is copied into.
 * Return: how many keys are left.
 */
static unsigned int nfhp_fold_unique(u64 *keys, unsigned int n)
{
	unsigned int i, m = 0;

	for (i = 0; i < n; i++)
		if (!m || keys[i] != keys[m - 1])
			keys[m++] = keys[i];
	return m;
}

/**
 * struct nfhp_fold_work - what nfhp_fold_choose() works in
 * @width: each entry's width class in the source and the destination
 * @keys: the sort keys of the narrow entries of one dimension
 * @room: as many again, for the sort
 * @shift: IPv6's classes are this many bits up (nfhp_fold_shift_of())
 */
struct nfhp_fold_work {
	u8 (*width)[2];
	u64 *keys;
	u64 *room;
	unsigned int shift;
};

/*
 * The class in the other address of an entry whose class in dimension @d
 * is narrow, as far as its tree goes: a narrow source has a tree of its
 * own whatever the destination (nfhp_group_of()).
 */
static enum nfhp_width nfhp_fold_other(unsigned int d, enum nfhp_width o)
{
	return d ? o : NFHP_WIDTH_WIDE;
}

/*
 * The copies the middle entries of dimension @d (0 source, 1 destination)
 * would make folded: the places where narrow entries of their tree in the
 * other dimension begin inside their hulls.
 */
static u64 nfhp_fold_copies_of(const struct nfhp_pageseq *e, unsigned int d,
			       struct nfhp_fold_work *w)
{
	unsigned int dim = d ? NFHP_DIM_DST : NFHP_DIM_SRC, i, m = 0, n = e->n;
	const struct nfhp_entry *x;
	const struct nfhp_range *r;
	struct nfhp_pageseq_iter it;
	u64 copies = 0, *keys;
	enum nfhp_width o;
	nfhp_u128 hi;

	for (i = 0; i < n && w->width[i][d] != NFHP_WIDTH_MIDDLE; i++)
		;
	if (i == n)
		return 0;
	nfhp_pageseq_iter_init(&it, e, 0);
	for (i = 0; i < n; i++) {
		x = nfhp_pageseq_iter_next(&it);
		if (w->width[i][d] != NFHP_WIDTH_NARROW)
			continue;
		o = nfhp_fold_other(d, w->width[i][!d]);
		w->keys[m++] = nfhp_fold_key(x->box->family, w->shift, o,
					     nfhp_box_ranges(x->box, dim)->lo);
	}
	keys = nfhp_fold_sort(w->keys, w->room, m);
	m = nfhp_fold_unique(keys, m);
	nfhp_pageseq_iter_init(&it, e, 0);
	for (i = 0; i < n; i++) {
		x = nfhp_pageseq_iter_next(&it);
		if (w->width[i][d] != NFHP_WIDTH_MIDDLE)
			continue;
		o = nfhp_fold_other(d, w->width[i][!d]);
		r = nfhp_box_ranges(x->box, dim);
		hi = r[nfhp_box_nranges(x->box, dim) - 1].hi;
		copies += nfhp_u64_lower_bound(keys, m,
					       nfhp_fold_key(x->box->family,
							     w->shift, o,
							     hi) + 1) -
			  nfhp_u64_lower_bound(keys, m,
					       nfhp_fold_key(x->box->family,
							     w->shift, o,
							     r->lo));
	}
	return copies;
}

/*
 * Does a dimension whose middle entries make @copies fold, against the
 * bound @most?  A hook whose dimension is folded already (@was) unfolds
 * at twice the bound, one not folded folds at half of it: a count near
 * the bound would otherwise flip the fold, a rebuild, at every check.
 */
static bool nfhp_fold_dim(u64 copies, u64 most, bool sticky, bool was)
{
	if (!sticky)
		return copies < most;
	return was ? copies < 2 * most : 2 * copies < most;
}

/* Bits of the narrowest address range of @b, 128 when none is narrow. */
static unsigned int nfhp_box_addr_bits(const struct nfhp_box *b)
{
	unsigned int d, bits = 128, dims[] = { NFHP_DIM_SRC, NFHP_DIM_DST };
	const struct nfhp_range *r;
	nfhp_u128 span;

	for (d = 0; d < ARRAY_SIZE(dims); d++) {
		if (nfhp_box_nranges(b, dims[d]) != 1)
			continue;
		r = nfhp_box_ranges(b, dims[d]);
		span = r->hi - r->lo;
		bits = min(bits, span >> 64 ? 128 - __builtin_clzll(span >> 64) :
			   span ? 64 - __builtin_clzll((u64)span) : 0);
	}
	return bits;
}

/*
 * The shift of an IPv6 hook's width classes: the host bits of its
 * narrowest prefixes, those of the narrowest sixteenth of its entries
 * that name one (a few hosts among /64 subnets do not move the classes),
 * down to a whole byte.  0 for IPv4.
 */
static unsigned int nfhp_fold_shift_of(const struct nfhp_pageseq *e)
{
	unsigned int count[129] = { 0 }, i, n = 0, seen = 0, bits;
	const struct nfhp_entry *x;
	struct nfhp_pageseq_iter it;

	nfhp_pageseq_iter_init(&it, e, 0);
	for (i = 0; i < e->n; i++) {
		x = nfhp_pageseq_iter_next(&it);
		if (x->box->family != NFHP_FAMILY_IPV6)
			return 0;
		bits = nfhp_box_addr_bits(x->box);
		if (bits < 128) {
			count[bits]++;
			n++;
		}
	}
	for (bits = 0; bits < 128; bits++) {
		seen += count[bits];
		if (seen && seen >= n / 16)
			break;
	}
	return min_t(unsigned int, bits / 8 * 8, NFHP_ADDR6_SHIFT_MAX);
}

/**
 * nfhp_fold_choose() - the fold of a hook's entries
 * @e: the entries
 * @now: the fold the entries' trees have, or NULL for a choice afresh
 * @fold: set to the fold, %NFHP_FOLD_SRC and %NFHP_FOLD_DST bits
 *
 * Return: 0, or -ENOMEM with @fold untouched.
 */
int nfhp_fold_choose(const struct nfhp_pageseq *e, const u8 *now, u8 *fold)
{
	u64 most = (u64)nfhp_tunables.fold_copies * e->n;
	const struct nfhp_entry *x;
	unsigned int i, n = e->n;
	struct nfhp_pageseq_iter it;
	struct nfhp_fold_work w;
	u8 was = now ? *now : 0;

	w.keys = kvmalloc_array(n, 2 * sizeof(u64) + sizeof(*w.width),
				GFP_KERNEL);
	if (!w.keys)
		return -ENOMEM;
	w.room = w.keys + n;
	w.width = (u8 (*)[2])(w.room + n);
	w.shift = nfhp_fold_shift_of(e);
	nfhp_pageseq_iter_init(&it, e, 0);
	for (i = 0; i < n; i++) {
		x = nfhp_pageseq_iter_next(&it);
		w.width[i][0] = nfhp_width_of(x->box, NFHP_DIM_SRC, w.shift);
		w.width[i][1] = nfhp_width_of(x->box, NFHP_DIM_DST, w.shift);
	}
	*fold = w.shift / 8 << NFHP_FOLD_SHIFT_SHIFT;
	if (nfhp_fold_dim(nfhp_fold_copies_of(e, 0, &w), most, now,
			  was & NFHP_FOLD_SRC))
		*fold |= NFHP_FOLD_SRC;
	if (nfhp_fold_dim(nfhp_fold_copies_of(e, 1, &w), most, now,
			  was & NFHP_FOLD_DST))
		*fold |= NFHP_FOLD_DST;
	kvfree(w.keys);
	return 0;
}
