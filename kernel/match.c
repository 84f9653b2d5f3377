// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: from a rule's matches to its boxes, and the rule's body.
 *
 * See match.h.  A rule's matches become interval lists, one per dimension
 * (struct nfhp_rlist), which become its boxes; the boxes and the packed
 * specification are then written into one allocation, the rule's body.
 * Everything here runs on the control path, when a rule is added; the
 * packet path only reads the boxes through the tree.  What a box answers
 * once built is in box.c; how a specification is packed, in
 * packed_spec.c.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "match.h"

/* A match that needs more intervals than this is refused. */
#define NFHP_MAX_DIM_RANGES	4096

/*
 * Most matches are one interval (a prefix, a port range): it stays in the
 * list itself.  A restore builds a few lists per rule, and under kmemleak
 * every allocation costs hundreds of microseconds.  A box is assembled
 * from one list per dimension on the stack (struct nfhp_rlists), so the
 * room is kept to one interval: the lists then take 672 bytes.
 */
#define NFHP_RLIST_INLINE	1

/**
 * struct nfhp_rlist - a growable list of intervals, scratch memory
 * @r: the intervals: @in, or allocated once they outgrow it
 * @n: intervals in use
 * @cap: intervals @r can hold; 0 until the first is added
 * @in: room for the first %NFHP_RLIST_INLINE intervals
 *
 * A list with @r NULL and @n and @cap 0 is empty.  It must not be copied
 * by value: @r may point into the list itself.
 */
struct nfhp_rlist {
	struct nfhp_range *r;
	unsigned int n;
	unsigned int cap;
	struct nfhp_range in[NFHP_RLIST_INLINE];
};

/**
 * nfhp_dim_span() - the largest value a packet can have in a dimension
 * @family: the rule set's &enum nfhp_family
 * @dim: the dimension
 *
 * Complements and "does this cover everything" are computed against this,
 * so "! --dport 22" becomes [0, 21] and [23, 65535].
 *
 * Return: the inclusive maximum.
 */
nfhp_u128 nfhp_dim_span(u8 family, unsigned int dim)
{
	switch (dim) {
	case NFHP_DIM_PROTO:
	case NFHP_DIM_TCPFLAGS:
	case NFHP_DIM_TTL:
		return 0xff;
	case NFHP_DIM_SPORT:
	case NFHP_DIM_DPORT:
	case NFHP_DIM_ICMP:
	case NFHP_DIM_LEN:
		return 0xffff;
	case NFHP_DIM_STATE:
		return NFHP_CT_MAX - 1;
	case NFHP_DIM_FRAG:
		return 1;
	default:
		return nfhp_dim_max(family, dim);
	}
}

/**
 * nfhp_dim_key_max() - the largest value a key can hold in a dimension
 * @dim: the dimension
 *
 * That is nfhp_dim_span(), or the marks of key.h for the dimensions a
 * non-first fragment or a short transport header sets to them; for the
 * protocol, with the destination port (nfhp_key_fold_port()).
 *
 * Return: the inclusive maximum.
 */
static nfhp_u128 nfhp_dim_key_max(u8 family, unsigned int dim)
{
	switch (dim) {
	case NFHP_DIM_SPORT:
	case NFHP_DIM_DPORT:
		return NFHP_L4_SHORT + 0xffff;
	case NFHP_DIM_TCPFLAGS:
		return NFHP_L4_EVIL_FRAG;
	case NFHP_DIM_ICMP:
		return NFHP_L4_TRUNCATED;
	case NFHP_DIM_PROTO:
		return nfhp_proto_port(0xff, NFHP_PORT_MASK);
	default:
		return nfhp_dim_span(family, dim);
	}
}

/**
 * nfhp_region_full() - the region of every possible packet
 * @family: the rule set's &enum nfhp_family
 * @reg: the region to fill
 */
void nfhp_region_full(u8 family, struct nfhp_region *reg)
{
	unsigned int d;

	for (d = 0; d < NFHP_DIM_MAX; d++) {
		reg->d[d].lo = 0;
		reg->d[d].hi = nfhp_dim_key_max(family, d);
	}
}

/* Free what @l allocated; its contents are then undefined. */
static void nfhp_rlist_release(struct nfhp_rlist *l)
{
	if (l->r != l->in)
		kfree(l->r);
}

/* Make @dst hold what @src holds, and @src nothing. */
static void nfhp_rlist_move(struct nfhp_rlist *dst, struct nfhp_rlist *src)
{
	nfhp_rlist_release(dst);
	*dst = *src;
	if (src->r == src->in) {
		dst->r = dst->in;
		memcpy(dst->in, src->in, src->n * sizeof(src->in[0]));
	}
	memset(src, 0, sizeof(*src));
}

static int nfhp_rlist_add(struct nfhp_rlist *l, nfhp_u128 lo, nfhp_u128 hi)
{
	struct nfhp_range *r;

	if (!l->cap) {
		l->r = l->in;
		l->cap = NFHP_RLIST_INLINE;
	}
	if (l->n == l->cap) {
		unsigned int cap = 2 * l->cap;

		if (cap > NFHP_MAX_DIM_RANGES)
			return -E2BIG;
		r = kmalloc_array(cap, sizeof(*r), GFP_KERNEL);
		if (!r)
			return -ENOMEM;
		memcpy(r, l->r, l->n * sizeof(*r));
		nfhp_rlist_release(l);
		l->r = r;
		l->cap = cap;
	}
	l->r[l->n].lo = lo;
	l->r[l->n].hi = hi;
	l->n++;
	return 0;
}

static int nfhp_range_cmp(const void *a, const void *b)
{
	const struct nfhp_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return 0;
}

/* Sort, then merge overlapping and adjacent intervals. */
static void nfhp_rlist_normalize(struct nfhp_rlist *l)
{
	unsigned int i, out = 0;

	/* Most lists are one interval: a restore sorts some per rule. */
	if (l->n < 2)
		return;
	sort(l->r, l->n, sizeof(*l->r), nfhp_range_cmp, NULL);
	for (i = 1; i < l->n; i++) {
		struct nfhp_range *last = &l->r[out];

		if (last->hi == ~(nfhp_u128)0 || l->r[i].lo <= last->hi + 1) {
			if (l->r[i].hi > last->hi)
				last->hi = l->r[i].hi;
			continue;
		}
		l->r[++out] = l->r[i];
	}
	l->n = out + 1;
}

/* Replace a normalized list by its complement within [0, span]. */
static int nfhp_rlist_complement(struct nfhp_rlist *l, nfhp_u128 span)
{
	struct nfhp_rlist c = {};
	nfhp_u128 next = 0;
	bool done = false;
	unsigned int i;
	int err = 0;

	for (i = 0; i < l->n && !done; i++) {
		if (l->r[i].lo > next)
			err = nfhp_rlist_add(&c, next, l->r[i].lo - 1);
		if (err)
			goto out_free;
		if (l->r[i].hi >= span)
			done = true;
		else
			next = l->r[i].hi + 1;
	}
	if (!done)
		err = nfhp_rlist_add(&c, next, span);
	if (err)
		goto out_free;
	nfhp_rlist_move(l, &c);
	return 0;
out_free:
	nfhp_rlist_release(&c);
	return err;
}

/* Intersect a normalized list with the normalized intervals b[0..nb). */
static int nfhp_rlist_intersect(const struct nfhp_range *a, unsigned int na,
				const struct nfhp_range *b, unsigned int nb,
				struct nfhp_rlist *out)
{
	unsigned int i = 0, j = 0;
	int err;

	while (i < na && j < nb) {
		nfhp_u128 lo = max(a[i].lo, b[j].lo);
		nfhp_u128 hi = min(a[i].hi, b[j].hi);

		if (lo <= hi) {
			err = nfhp_rlist_add(out, lo, hi);
			if (err)
				return err;
		}
		if (a[i].hi < b[j].hi)
			i++;
		else
			j++;
	}
	return 0;
}

static int nfhp_prefix_range(u8 family, const struct nfhp_dim_match *m,
			     struct nfhp_rlist *l, const char **msg)
{
	unsigned int bits = nfhp_dim_bits(family, m->dim);
	nfhp_u128 host;

	if (m->nranges > bits) {
		*msg = "prefix length out of range";
		return -EINVAL;
	}
	host = m->nranges ? (((nfhp_u128)1 << (bits - m->nranges)) - 1) :
			    nfhp_dim_max(family, m->dim);
	if (m->nranges == 128)
		host = 0;
	return nfhp_rlist_add(l, m->ranges[0].lo & ~host,
			      (m->ranges[0].lo & ~host) | host);
}

/* The number of bits set in @x. */
static unsigned int nfhp_u128_weight(nfhp_u128 x)
{
	return hweight64((u64)x) + hweight64((u64)(x >> 64));
}

/*
 * value/mask: enumerate small dimensions.  On wide ones a mask of
 * contiguous high bits is one interval; a mask with holes (-s
 * 10.0.0.0/255.0.255.0) is one interval per value of the host bits in
 * the holes, each running through the host bits below the lowest mask
 * bit: 2^holes of them, at most %NFHP_MAX_MASK_RANGES.
 */
static int nfhp_mask_ranges(u8 family, const struct nfhp_dim_match *m,
			    struct nfhp_rlist *l, const char **msg)
{
	nfhp_u128 span = nfhp_dim_span(family, m->dim);
	nfhp_u128 value = m->ranges[0].lo, mask = m->ranges[0].hi;
	nfhp_u128 x, host, low, holes, sub;
	int err;

	if (value & ~mask)
		return 0;
	if (span <= 0xffff) {
		for (x = 0; x <= span; x++) {
			if ((x & mask) != value)
				continue;
			if (l->n && l->r[l->n - 1].hi + 1 == x) {
				l->r[l->n - 1].hi = x;
				continue;
			}
			err = nfhp_rlist_add(l, x, x);
			if (err)
				return err;
		}
		return 0;
	}
	host = ~mask & span;
	if (!(host & (host + 1)))
		return nfhp_rlist_add(l, value, value | host);
	BUILD_BUG_ON(NFHP_MAX_MASK_RANGES >= NFHP_MAX_DIM_RANGES);
	low = (mask & -mask) - 1;
	holes = host & ~low;
	/* nfhp_box_plan() words the error. */
	if (nfhp_u128_weight(holes) >= 32 ||
	    1u << nfhp_u128_weight(holes) > NFHP_MAX_MASK_RANGES)
		return -E2BIG;
	/* The subsets of @holes in increasing order, 0 first. */
	sub = 0;
	do {
		err = nfhp_rlist_add(l, value | sub, value | sub | low);
		if (err)
			return err;
		sub = (sub - holes) & holes;
	} while (sub);
	return 0;
}

static int nfhp_ifname_range(const struct nfhp_dim_match *m,
			     struct nfhp_rlist *l, const char **msg)
{
	char name[NFHP_IFNAME_LEN + 1] = {};
	size_t len = strnlen(m->ifname, sizeof(m->ifname));

	if (len == sizeof(m->ifname) || len > NFHP_IFNAME_LEN) {
		*msg = "interface name too long";
		return -EINVAL;
	}
	memcpy(name, m->ifname, len);
	if (len && name[len - 1] == '+') {
		name[len - 1] = 0;
		return nfhp_rlist_add(l, nfhp_ifname_value(name, 0),
				      nfhp_ifname_value(name, 0xff));
	}
	if (len == NFHP_IFNAME_LEN) {
		*msg = "interface name too long";
		return -EINVAL;
	}
	return nfhp_rlist_add(l, nfhp_ifname_value(name, 0),
			      nfhp_ifname_value(name, 0));
}

/* The normalized intervals of one dimension match, negation applied. */
/*
 * Multiport reads only the ports: it matches a packet whose header is
 * short for its protocol's own match by the ports (%NFHP_L4_SHORT).
 */
static int nfhp_rlist_add_short(struct nfhp_rlist *l)
{
	unsigned int i, n = l->n;
	int err = 0;

	for (i = 0; i < n && !err; i++)
		err = nfhp_rlist_add(l, NFHP_L4_SHORT + l->r[i].lo,
				     NFHP_L4_SHORT + l->r[i].hi);
	return err;
}

static int nfhp_dim_ranges(u8 family, const struct nfhp_dim_match *m,
			   struct nfhp_rlist *l, const char **msg)
{
	nfhp_u128 span = nfhp_dim_span(family, m->dim);
	unsigned int i;
	int err;

	switch (m->form) {
	case NFHP_FORM_RANGES:
		if (!m->nranges || m->nranges > NFHP_MAX_RANGES) {
			*msg = "bad number of ranges";
			return -EINVAL;
		}
		for (i = 0; i < m->nranges; i++) {
			if (m->ranges[i].lo > m->ranges[i].hi ||
			    m->ranges[i].hi > span) {
				*msg = "range out of bounds";
				return -ERANGE;
			}
			err = nfhp_rlist_add(l, m->ranges[i].lo,
					     m->ranges[i].hi);
			if (err)
				return err;
		}
		break;
	case NFHP_FORM_PREFIX:
		err = nfhp_prefix_range(family, m, l, msg);
		break;
	case NFHP_FORM_MASK:
		err = nfhp_mask_ranges(family, m, l, msg);
		break;
	case NFHP_FORM_IFNAME:
		err = nfhp_ifname_range(m, l, msg);
		break;
	default:
		*msg = "unknown match form";
		return -EINVAL;
	}
	if (err)
		return err;
	nfhp_rlist_normalize(l);
	if (m->invert)
		err = nfhp_rlist_complement(l, span);
	if (!err && (m->syntax == NFHP_SYN_MULTIPORT ||
		     m->syntax == NFHP_SYN_MULTIPORT_BOTH))
		err = nfhp_rlist_add_short(l);
	return err;
}

static bool nfhp_rlist_is_full(u8 family, const struct nfhp_rlist *l,
			       unsigned int dim)
{
	return l->n == 1 && l->r[0].lo == 0 &&
	       l->r[0].hi >= nfhp_dim_key_max(family, dim);
}

/* Bytes of the box of @lists' intervals in the dimensions @restricted. */
static size_t nfhp_box_bytes(const struct nfhp_rlist *lists, u16 restricted)
{
	unsigned int d, total = 0;

	for (d = 0; d < NFHP_DIM_MAX; d++)
		if (restricted & (1u << d))
			total += lists[d].n;
	return sizeof(struct nfhp_box) + total * sizeof(struct nfhp_range);
}

/* Write the box of @lists into @b, which has nfhp_box_bytes() of room. */
static void nfhp_box_place(struct nfhp_box *b, u8 family,
			   const struct nfhp_rlist *lists, u16 restricted,
			   bool empty)
{
	unsigned int d, pos = 0;

	b->family = family;
	b->empty = empty;
	b->restricted = restricted;
	for (d = 0; d < NFHP_DIM_MAX; d++) {
		b->start[d] = pos;
		if (!(restricted & (1u << d)) || !lists[d].n)
			continue;
		memcpy(&b->r[pos], lists[d].r, lists[d].n * sizeof(b->r[0]));
		pos += lists[d].n;
	}
	b->start[NFHP_DIM_MAX] = pos;
	b->size = sizeof(*b) + pos * sizeof(b->r[0]);
}

/* Copy per-dimension lists into one accounted box. */
static int nfhp_box_assemble(struct nfhp_mem *mem, u8 family,
			     struct nfhp_rlist *lists, u16 restricted,
			     bool empty, struct nfhp_box **out)
{
	struct nfhp_box *b = nfhp_alloc(mem, nfhp_box_bytes(lists, restricted));

	if (!b)
		return -ENOMEM;
	nfhp_box_place(b, family, lists, restricted, empty);
	*out = b;
	return 0;
}

/**
 * struct nfhp_rlists - the intervals of a box being assembled, per dimension
 * @d: one list per dimension
 *
 * It lives on the stack of the function assembling the box.  It was once
 * allocated: with the kernel's init_on_alloc (Debian's default) each
 * allocation zeroed 2 KiB, twice per rule, 6 % of a restore.
 */
struct nfhp_rlists {
	struct nfhp_rlist d[NFHP_DIM_MAX];
};

/*
 * Empty every list.  Not a memset of the whole: the inline room of each
 * list needs no zeroing.
 */
static struct nfhp_rlist *nfhp_rlists_init(struct nfhp_rlists *rl)
{
	unsigned int d;

	for (d = 0; d < NFHP_DIM_MAX; d++) {
		rl->d[d].r = NULL;
		rl->d[d].n = 0;
		rl->d[d].cap = 0;
	}
	return rl->d;
}

static void nfhp_rlists_release(struct nfhp_rlist *lists)
{
	unsigned int d;

	for (d = 0; d < NFHP_DIM_MAX; d++)
		nfhp_rlist_release(&lists[d]);
}

/* Fold each list into "restricted" and "empty"; drop full dimensions. */
static void nfhp_rlists_classify(u8 family, struct nfhp_rlist *lists,
				 u16 *restricted, bool *empty)
{
	unsigned int d;

	for (d = 0; d < NFHP_DIM_MAX; d++) {
		if (!(*restricted & (1u << d)))
			continue;
		if (!lists[d].n)
			*empty = true;
		else if (nfhp_rlist_is_full(family, &lists[d], d))
			*restricted &= ~(1u << d);
	}
}

/*
 * Protocol and port.
 *
 * Most rules with ports name one protocol: "-p tcp --dport 80" needed a
 * node for the protocol and below it one for the port on every path.  A
 * box's %NFHP_DIM_PROTO holds both (key.h): such a rule's protocol
 * intervals are [6 << 18 | 80, 6 << 18 | 80], its destination port is
 * left unrestricted, and one node decides both.  Any other protocol
 * match covers all ports of its protocols: "! -p tcp" is [0, 5 << 18 |
 * NFHP_PORT_MASK] and [7 << 18, 0xff << 18 | NFHP_PORT_MASK].  Each box
 * is still the exact set of packets it was, so intersections, coverage
 * and lookups need nothing else; hot boxes (nfhp_box_derive()) take the
 * protocol without the port.
 */

/* Turn the protocol list of a planned box into the protocol-port one. */
static int nfhp_rlists_fold_port(struct nfhp_rlist *lists, u16 *restricted)
{
	struct nfhp_rlist *proto = &lists[NFHP_DIM_PROTO];
	struct nfhp_rlist *port = &lists[NFHP_DIM_DPORT];
	struct nfhp_rlist fold = { 0 };
	u32 p;
	unsigned int i;
	int err = 0;

	if (!(*restricted & (1u << NFHP_DIM_PROTO)) || !proto->n)
		return 0;
	if (proto->n == 1 && proto->r[0].lo == proto->r[0].hi &&
	    (*restricted & (1u << NFHP_DIM_DPORT)) && port->n) {
		p = proto->r[0].lo;
		for (i = 0; i < port->n && !err; i++)
			err = nfhp_rlist_add(&fold,
					     nfhp_proto_port(p, port->r[i].lo),
					     nfhp_proto_port(p, port->r[i].hi));
		if (!err) {
			*restricted &= ~(1u << NFHP_DIM_DPORT);
			nfhp_rlist_release(port);
			memset(port, 0, sizeof(*port));
		}
	} else {
		for (i = 0; i < proto->n && !err; i++)
			err = nfhp_rlist_add(&fold,
					     nfhp_proto_port(proto->r[i].lo, 0),
					     nfhp_proto_port(proto->r[i].hi,
							     NFHP_PORT_MASK));
	}
	if (err) {
		nfhp_rlist_release(&fold);
		return err;
	}
	nfhp_rlist_move(proto, &fold);
	return 0;
}

/**
 * struct nfhp_box_plan - a box worked out, not yet placed in memory
 * @rl: its intervals, one list per dimension
 * @restricted: the dimensions it restricts, as bits
 * @empty: it holds no packet
 * @family: the &enum nfhp_family of its rule set
 *
 * A rule's boxes and packed specification share one allocation
 * (nfhp_rule_body_new()), so their sizes are known before any is written.
 */
struct nfhp_box_plan {
	struct nfhp_rlists rl;
	u16 restricted;
	bool empty;
	u8 family;
};

/*
 * Work out the box of @s into @p, for a rule set of @family.  On success the caller releases
 * @p->rl with nfhp_rlists_release(); on error nothing is held.
 */
static int nfhp_box_plan(u8 family, const struct nfhp_rule_spec *s,
			 struct nfhp_box_plan *p, const char **msg)
{
	struct nfhp_rlist *lists = nfhp_rlists_init(&p->rl);
	unsigned int i;
	int err = 0;

	p->family = family;
	p->restricted = 0;
	p->empty = false;
	if (s->nmatch > NFHP_DIM_MAX) {
		*msg = "too many matches";
		return -EINVAL;
	}
	for (i = 0; i < s->nmatch && !err; i++) {
		const struct nfhp_dim_match *m = &s->m[i];

		if (m->dim >= NFHP_DIM_MAX ||
		    (p->restricted & (1u << m->dim))) {
			*msg = "bad or repeated match dimension";
			err = -EINVAL;
			break;
		}
		/* "source or destination port" is two boxes, see below. */
		if (m->syntax == NFHP_SYN_MULTIPORT_BOTH) {
			*msg = "multiport --ports needs nfhp_rule_body_new()";
			err = -EINVAL;
			break;
		}
		p->restricted |= 1u << m->dim;
		err = nfhp_dim_ranges(family, m, &lists[m->dim], msg);
	}
	if (err) {
		if (err == -E2BIG)
			*msg = "match needs too many intervals";
		nfhp_rlists_release(lists);
		return err;
	}
	err = nfhp_rlists_fold_port(lists, &p->restricted);
	if (err) {
		nfhp_rlists_release(lists);
		return err;
	}
	nfhp_rlists_classify(family, lists, &p->restricted, &p->empty);
	return 0;
}

/**
 * nfhp_box_from_spec() - normalize a rule specification
 * @mem: account to allocate the box on
 * @family: the &enum nfhp_family of the rule set
 * @s: the specification
 * @box: set to the new box
 * @msg: set to a reason on error
 *
 * Port, TCP flag and ICMP matches never match a non-first fragment in
 * iptables, even when negated: their intervals stay below
 * %NFHP_L4_FRAGMENT, the value such a fragment has there.  A match of the
 * whole value space restricts nothing and is dropped.
 *
 * Return: 0, or -errno for a specification the tree cannot express.
 */
int nfhp_box_from_spec(struct nfhp_mem *mem, u8 family,
		       const struct nfhp_rule_spec *s, struct nfhp_box **box,
		       const char **msg)
{
	struct nfhp_box_plan p;
	int err = nfhp_box_plan(family, s, &p, msg);

	if (err)
		return err;
	err = nfhp_box_assemble(mem, family, p.rl.d, p.restricted, p.empty,
				box);
	nfhp_rlists_release(p.rl.d);
	return err;
}

/* The index of the "-m multiport --ports" match of @s, or -1. */
static int nfhp_spec_ports_match(const struct nfhp_rule_spec *s)
{
	unsigned int i;

	for (i = 0; i < s->nmatch && i < NFHP_DIM_MAX; i++)
		if (s->m[i].syntax == NFHP_SYN_MULTIPORT_BOTH)
			return i;
	return -1;
}

/*
 * Copy @s into @alt with its --ports match @i written out as a source and
 * a destination port match, both as @s had it (same set, same "!").
 */
static int nfhp_spec_split_ports(const struct nfhp_rule_spec *s, int i,
				 struct nfhp_rule_spec *alt, const char **msg)
{
	if (s->m[i].dim != NFHP_DIM_DPORT ||
	    (i && s->m[i - 1].dim == NFHP_DIM_SPORT)) {
		*msg = "multiport --ports together with another source port match is not supported";
		return -EOPNOTSUPP;
	}
	memcpy(alt, s, sizeof(*alt));
	memmove(&alt->m[i + 1], &s->m[i], (s->nmatch - i) * sizeof(s->m[0]));
	alt->nmatch++;
	alt->m[i].dim = NFHP_DIM_SPORT;
	alt->m[i].syntax = NFHP_SYN_MULTIPORT;
	alt->m[i + 1].syntax = NFHP_SYN_MULTIPORT;
	return 0;
}

/*
 * Work out the boxes of @s: @box, and @alt when @has_alt is set.
 *
 * "-m multiport --ports P" matches when the source or the destination
 * port is in P.  That is no box, but the union of two disjoint ones:
 * "source in P" (@box) and "destination in P, source not in P" (@alt).
 * The rule gets an entry for each (flat.c); a packet matches at most
 * one of them, so it is counted once.  Negated, "neither port in P", it is
 * a single box.  Every other rule has one box.
 *
 * On success the caller releases the plans' lists; on error nothing is
 * held.
 */
static int nfhp_boxes_plan(u8 family, const struct nfhp_rule_spec *s,
			   struct nfhp_box_plan *box, struct nfhp_box_plan *alt,
			   bool *has_alt, const char **msg)
{
	int i = nfhp_spec_ports_match(s), err;
	struct nfhp_rule_spec *split;

	*has_alt = false;
	if (i < 0)
		return nfhp_box_plan(family, s, box, msg);
	split = kmalloc(sizeof(*split), GFP_KERNEL);
	if (!split)
		return -ENOMEM;
	err = nfhp_spec_split_ports(s, i, split, msg);
	if (err || s->m[i].invert) {
		if (!err)
			err = nfhp_box_plan(family, split, box, msg);
		goto out;
	}
	split->m[i].invert = 1;
	err = nfhp_box_plan(family, split, alt, msg);
	if (err)
		goto out;
	split->m[i].invert = 0;
	memmove(&split->m[i + 1], &split->m[i + 2],
		(split->nmatch - i - 2) * sizeof(split->m[0]));
	split->nmatch--;
	err = nfhp_box_plan(family, split, box, msg);
	if (err)
		nfhp_rlists_release(alt->rl.d);
	else
		*has_alt = true;
out:
	kfree(split);
	return err;
}

/*
 * The packets a transport match of @s drops, as an interval of one of the
 * dimensions the match restricts (key.h): the ports, flags or ICMP type of
 * a short header for a tcp, udp or icmp match, the ports' absence for a
 * multiport match alone.  Return: the dimension, or -1 for none.
 */
static int nfhp_spec_hotdrop_dim(const struct nfhp_rule_spec *s,
				 struct nfhp_range *r)
{
	int proto = -1, multiport = -1;
	unsigned int i;

	/* m[] is sorted by dimension: DPORT is preferred, it splits most. */
	for (i = 0; i < s->nmatch && i < NFHP_DIM_MAX; i++) {
		const struct nfhp_dim_match *m = &s->m[i];

		if ((m->dim == NFHP_DIM_SPORT || m->dim == NFHP_DIM_DPORT) &&
		    m->syntax != NFHP_SYN_DEFAULT)
			multiport = m->dim;
		else if (m->dim == NFHP_DIM_SPORT || m->dim == NFHP_DIM_DPORT ||
			 ((m->dim == NFHP_DIM_TCPFLAGS ||
			   m->dim == NFHP_DIM_ICMP) && proto < 0))
			proto = m->dim;
	}
	r->lo = NFHP_L4_TRUNCATED;
	r->hi = NFHP_L4_TRUNCATED;
	if (proto == NFHP_DIM_SPORT || proto == NFHP_DIM_DPORT)
		r->hi = NFHP_L4_SHORT + 0xffff;
	else if (proto == NFHP_DIM_TCPFLAGS)
		r->hi = NFHP_L4_EVIL_FRAG;
	return proto >= 0 ? proto : multiport;
}

/* Is @m part of what iptables checks before any match (ip_packet_match)? */
static bool nfhp_match_in_ip_part(const struct nfhp_dim_match *m)
{
	switch (m->dim) {
	case NFHP_DIM_SRC:
	case NFHP_DIM_DST:
		return m->syntax != NFHP_SYN_IPRANGE;
	case NFHP_DIM_PROTO:
	case NFHP_DIM_FRAG:
	case NFHP_DIM_IIF:
	case NFHP_DIM_OIF:
		return true;
	default:
		return false;
	}
}

/*
 * The places of the native match modules in the order iptables runs them
 * when none is written (NFHPA_RULE_ORDER).  tcp, udp and icmp share one,
 * the protocol's match, as state and conntrack do: a rule that iptables
 * takes has at most one of them.
 */
enum nfhp_mod_place {
	NFHP_PLACE_PROTO,
	NFHP_PLACE_MULTIPORT,
	NFHP_PLACE_IPRANGE,
	NFHP_PLACE_STATE,
	NFHP_PLACE_TTL,
	NFHP_PLACE_LENGTH,
	NFHP_PLACE_MARK,
	NFHP_PLACE_COMMENT,
	NFHP_PLACE_MAX
};

/* The canonical place of the module of @m, or -1 for the IP part. */
static int nfhp_match_place(const struct nfhp_dim_match *m)
{
	switch (m->dim) {
	case NFHP_DIM_SPORT:
	case NFHP_DIM_DPORT:
		return m->syntax == NFHP_SYN_DEFAULT ? NFHP_PLACE_PROTO :
						       NFHP_PLACE_MULTIPORT;
	case NFHP_DIM_TCPFLAGS:
	case NFHP_DIM_ICMP:
		return NFHP_PLACE_PROTO;
	case NFHP_DIM_STATE:
		return NFHP_PLACE_STATE;
	case NFHP_DIM_TTL:
		return NFHP_PLACE_TTL;
	case NFHP_DIM_LEN:
		return NFHP_PLACE_LENGTH;
	case NFHP_DIM_MARK:
		return NFHP_PLACE_MARK;
	default:
		return nfhp_match_in_ip_part(m) ? -1 : NFHP_PLACE_IPRANGE;
	}
}

/*
 * The rank iptables runs each place's module at: those @s->order names
 * first, in that order, then the others in the canonical order.
 */
static void nfhp_spec_ranks(const struct nfhp_rule_spec *s,
			    u8 rank[NFHP_PLACE_MAX])
{
	static const u8 place[NFHP_MOD_MAX] = {
		[NFHP_MOD_TCP] = NFHP_PLACE_PROTO,
		[NFHP_MOD_UDP] = NFHP_PLACE_PROTO,
		[NFHP_MOD_ICMP] = NFHP_PLACE_PROTO,
		[NFHP_MOD_MULTIPORT] = NFHP_PLACE_MULTIPORT,
		[NFHP_MOD_IPRANGE] = NFHP_PLACE_IPRANGE,
		[NFHP_MOD_STATE] = NFHP_PLACE_STATE,
		[NFHP_MOD_CONNTRACK] = NFHP_PLACE_STATE,
		[NFHP_MOD_TTL] = NFHP_PLACE_TTL,
		[NFHP_MOD_LENGTH] = NFHP_PLACE_LENGTH,
		[NFHP_MOD_MARK] = NFHP_PLACE_MARK,
		[NFHP_MOD_COMMENT] = NFHP_PLACE_COMMENT,
	};
	bool ranked[NFHP_PLACE_MAX] = { false };
	unsigned int i, n = 0;

	for (i = 0; i < s->norder && i < NFHP_MAX_ORDER; i++) {
		u8 p;

		if (s->order[i] >= NFHP_MOD_MAX)
			continue;
		p = place[s->order[i]];
		if (!ranked[p]) {
			ranked[p] = true;
			rank[p] = n++;
		}
	}
	for (i = 0; i < NFHP_PLACE_MAX; i++)
		if (!ranked[i])
			rank[i] = n++;
}

/*
 * The rank of the protocol's match (tcp, udp, icmp) of @s, and in
 * @multiport that of its multiport match; NFHP_PLACE_MAX for none.
 */
static unsigned int nfhp_spec_transport_rank(const struct nfhp_rule_spec *s,
					     const u8 rank[NFHP_PLACE_MAX],
					     unsigned int *multiport)
{
	unsigned int i, first = NFHP_PLACE_MAX;
	int place;

	*multiport = NFHP_PLACE_MAX;
	for (i = 0; i < s->nmatch && i < NFHP_DIM_MAX; i++) {
		place = nfhp_match_place(&s->m[i]);
		if (place == NFHP_PLACE_PROTO)
			first = rank[place];
		else if (place == NFHP_PLACE_MULTIPORT)
			*multiport = rank[place];
	}
	return first;
}

/* Bytes of the box nfhp_box_derive() makes from the box planned in @own. */
static size_t nfhp_derived_bytes(const struct nfhp_box_plan *own, u16 keep,
				 unsigned int mark)
{
	unsigned int d, total = 1;

	keep &= own->restricted & ~(1u << mark);
	for (d = 0; d < NFHP_DIM_MAX; d++)
		if (keep & (1u << d))
			total += own->rl.d[d].n;
	return sizeof(struct nfhp_box) + total * sizeof(struct nfhp_range);
}

/*
 * Write into @out the protocol intervals @r (@n of them) without what they
 * say of the port: each protocol they hold with every port.
 *
 * Return: the intervals written, at most @n.
 */
static unsigned int nfhp_ranges_unfold_port(struct nfhp_range *out,
					    const struct nfhp_range *r,
					    unsigned int n)
{
	unsigned int i, w = 0;
	nfhp_u128 lo, hi;

	for (i = 0; i < n; i++) {
		lo = r[i].lo & ~(nfhp_u128)NFHP_PORT_MASK;
		hi = r[i].hi | NFHP_PORT_MASK;
		if (w && lo <= out[w - 1].hi + 1) {
			out[w - 1].hi = max(out[w - 1].hi, hi);
			continue;
		}
		out[w].lo = lo;
		out[w++].hi = hi;
	}
	return w;
}

/*
 * Narrow the protocol interval @r (one of @n) of a single protocol to the
 * destination ports @port.  Return: false, changing nothing, for @n other
 * than one or an interval of several protocols.
 */
static bool nfhp_range_fold_port(struct nfhp_range *r, unsigned int n,
				 const struct nfhp_range *port)
{
	u32 p = r->lo >> NFHP_PROTO_SHIFT;

	if (n != 1 || r->hi != nfhp_proto_port(p, NFHP_PORT_MASK))
		return false;
	r->lo = nfhp_proto_port(p, port->lo);
	r->hi = nfhp_proto_port(p, port->hi);
	return true;
}

/*
 * Write into @b the box of @own's dimensions in @keep, with dimension @mark
 * narrowed to @mr alone.  @own holds them normalized already: copying them
 * spares working out the matches a second time.
 */
static void nfhp_box_derive(struct nfhp_box *b, const struct nfhp_box *own,
			    u16 keep, unsigned int mark,
			    const struct nfhp_range *mr)
{
	unsigned int d, n, pos = 0;
	bool folded = false;

	keep &= own->restricted & ~(1u << mark);
	b->family = own->family;
	b->empty = false;
	for (d = 0; d < NFHP_DIM_MAX; d++) {
		b->start[d] = pos;
		if (d == mark) {
			if (!folded)
				b->r[pos++] = *mr;
		} else if (d == NFHP_DIM_PROTO && (keep & (1u << d))) {
			n = nfhp_ranges_unfold_port(&b->r[pos],
						    nfhp_box_ranges(own, d),
						    nfhp_box_nranges(own, d));
			folded = mark == NFHP_DIM_DPORT &&
				 nfhp_range_fold_port(&b->r[pos], n, mr);
			pos += n;
			b->empty |= !n;
		} else if (keep & (1u << d)) {
			n = nfhp_box_nranges(own, d);
			memcpy(&b->r[pos], nfhp_box_ranges(own, d),
			       n * sizeof(b->r[0]));
			pos += n;
			b->empty |= !n;
		}
	}
	b->restricted = keep | (folded ? 0 : 1u << mark);
	b->start[NFHP_DIM_MAX] = pos;
	b->size = sizeof(*b) + pos * sizeof(b->r[0]);
}

/*
 * The short packets the transport match of @s drops: the box of the
 * rule's box's dimensions in @keep, with dimension @mark narrowed to @mr.
 *
 * iptables checks the addresses, interfaces, protocol and fragment flag of
 * a rule first, then its matches in the order written (@s->order, else
 * the canonical one, where the transport matches come first).  So a short
 * packet (key.h) that passes the first part of a rule and the native
 * matches written before its transport match is dropped there: the box is
 * those with one dimension of the transport match narrowed to the values
 * of the packets it drops.  Those matches are never port matches, so both
 * boxes of a "--ports" rule hold them alike.  A tcp or udp match written
 * after multiport would only drop what multiport let through, a second
 * box; userspace hands such a tcp or udp match to xtables, which keeps the
 * order.
 *
 * Return: 1 with @keep, @mark and @mr set; 0 when the rule has no tcp,
 * udp, icmp or multiport match; or -errno.
 */
static int nfhp_hotdrop_plan(const struct nfhp_rule_spec *s, u16 *keep,
			     unsigned int *mark, struct nfhp_range *mr,
			     const char **msg)
{
	unsigned int first, multiport;
	u8 rank[NFHP_PLACE_MAX];
	int dim, place;
	unsigned int i;

	dim = nfhp_spec_hotdrop_dim(s, mr);
	if (dim < 0)
		return 0;
	nfhp_spec_ranks(s, rank);
	first = nfhp_spec_transport_rank(s, rank, &multiport);
	if (first < NFHP_PLACE_MAX && multiport < first) {
		*msg = "a tcp or udp match written after multiport must be an xtables match";
		return -EINVAL;
	}
	first = min(first, multiport);
	*keep = 0;
	for (i = 0; i < s->nmatch && i < NFHP_DIM_MAX; i++) {
		place = nfhp_match_place(&s->m[i]);
		if (place < 0 || rank[place] < first)
			*keep |= 1u << s->m[i].dim;
	}
	*mark = dim;
	return 1;
}

/**
 * nfhp_box_intersect() - the box of packets matching both @a and @b
 * @mem: account to allocate the result on
 * @a: first box
 * @b: second box
 * @out: set to the new box
 *
 * This is how a rule of a user chain inherits the matches of the rules
 * that jump to it.
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_box_intersect(struct nfhp_mem *mem, const struct nfhp_box *a,
		       const struct nfhp_box *b, struct nfhp_box **out)
{
	u16 restricted = a->restricted | b->restricted;
	bool empty = a->empty || b->empty;
	struct nfhp_rlists rl;
	struct nfhp_rlist *lists;
	unsigned int d;
	int err = 0;

	lists = nfhp_rlists_init(&rl);
	for (d = 0; d < NFHP_DIM_MAX && !err; d++) {
		const struct nfhp_box *one = a;

		if (!(restricted & (1u << d)))
			continue;
		if ((a->restricted & b->restricted) & (1u << d)) {
			err = nfhp_rlist_intersect(nfhp_box_ranges(a, d),
						   nfhp_box_nranges(a, d),
						   nfhp_box_ranges(b, d),
						   nfhp_box_nranges(b, d),
						   &lists[d]);
			continue;
		}
		if (b->restricted & (1u << d))
			one = b;
		for (unsigned int i = 0; i < nfhp_box_nranges(one, d) && !err;
		     i++)
			err = nfhp_rlist_add(&lists[d],
					     nfhp_box_ranges(one, d)[i].lo,
					     nfhp_box_ranges(one, d)[i].hi);
	}
	if (!err) {
		nfhp_rlists_classify(a->family, lists, &restricted, &empty);
		err = nfhp_box_assemble(mem, a->family, lists, restricted,
					empty, out);
	}
	nfhp_rlists_release(lists);
	return err;
}

/* Offsets in a rule's body keep every box aligned. */
#define NFHP_BODY_ALIGN(x)	ALIGN(x, __alignof__(struct nfhp_box))

/**
 * nfhp_rule_body_new() - the boxes and packed specification of a rule
 * @mem: account to allocate on
 * @family: the &enum nfhp_family of the rule set
 * @s: the specification
 * @body: set to the parts, which share one allocation
 * @msg: set to a reason on error
 *
 * Every rule has a box (see nfhp_box_from_spec()) and its packed
 * specification; one with "-m multiport --ports" has a second, disjoint
 * box (nfhp_boxes_plan()); one with a transport match has the box of the
 * short packets that match drops (nfhp_hotdrop_plan()).  They live and
 * die with the rule, so they are planned first and then written into one
 * allocation: four allocations were a tenth of a restore's time in the
 * kernel.
 *
 * Return: 0, or -errno for a specification the tree cannot express.
 */
int nfhp_rule_body_new(struct nfhp_mem *mem, u8 family,
		       const struct nfhp_rule_spec *s, struct nfhp_rule_body *body,
		       const char **msg)
{
	size_t at_alt, at_hot, at_spec, spec_len;
	struct nfhp_box_plan box, alt;
	unsigned int mark = 0;
	struct nfhp_range mr;
	bool has_alt;
	u16 keep = 0;
	int hot, err;
	u8 *block;

	memset(body, 0, sizeof(*body));
	err = nfhp_boxes_plan(family, s, &box, &alt, &has_alt, msg);
	if (err)
		return err;
	hot = nfhp_hotdrop_plan(s, &keep, &mark, &mr, msg);
	if (hot < 0) {
		err = hot;
		goto out;
	}
	at_alt = NFHP_BODY_ALIGN(nfhp_box_bytes(box.rl.d, box.restricted));
	at_hot = at_alt;
	if (has_alt)
		at_hot += NFHP_BODY_ALIGN(nfhp_box_bytes(alt.rl.d,
							 alt.restricted));
	at_spec = at_hot;
	if (hot)
		at_spec += NFHP_BODY_ALIGN(nfhp_derived_bytes(&box, keep, mark));
	spec_len = nfhp_spec_packed_len(s);
	block = nfhp_alloc(mem, at_spec + sizeof(*body->spec) + spec_len);
	if (!block) {
		err = -ENOMEM;
		goto out;
	}
	body->box = (struct nfhp_box *)block;
	nfhp_box_place(body->box, family, box.rl.d, box.restricted,
		       box.empty);
	if (has_alt) {
		body->alt = (struct nfhp_box *)(block + at_alt);
		nfhp_box_place(body->alt, family, alt.rl.d, alt.restricted,
			       alt.empty);
	}
	if (hot) {
		body->hot = (struct nfhp_box *)(block + at_hot);
		nfhp_box_derive(body->hot, body->box, keep, mark, &mr);
	}
	body->spec = (struct nfhp_packed_spec *)(block + at_spec);
	nfhp_spec_pack_into(body->spec, s, spec_len);
out:
	nfhp_rlists_release(box.rl.d);
	if (has_alt)
		nfhp_rlists_release(alt.rl.d);
	return err;
}

/**
 * nfhp_rule_body_free() - free what nfhp_rule_body_new() made
 * @mem: the account it was allocated on
 * @body: the parts; nothing is freed when @body->box is NULL
 */
void nfhp_rule_body_free(struct nfhp_mem *mem, struct nfhp_rule_body *body)
{
	if (body->box)
		nfhp_free(mem, body->box, nfhp_rule_body_size(body));
	memset(body, 0, sizeof(*body));
}
