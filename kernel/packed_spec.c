// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: rule specifications packed to the bytes they need, see
 * packed_spec.h.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "packed_spec.h"

/**
 * nfhp_setm_counts_len() - bytes a set match's compares of counts take
 * @m: the set match
 *
 * Return: 0 for none; else a byte of both compares and the numbers of
 * those that compare.
 */
static size_t nfhp_setm_counts_len(const struct nfhp_setm_spec *m)
{
	if (!m->packets_cmp && !m->bytes_cmp)
		return 0;
	return 1 + (m->packets_cmp ? 8 : 0) + (m->bytes_cmp ? 8 : 0);
}

/**
 * nfhp_setm_counts_pack() - write a set match's compares of counts
 * @d: where
 * @m: the set match
 *
 * Return: past what it wrote (nfhp_setm_counts_len() bytes).
 */
static u8 *nfhp_setm_counts_pack(u8 *d, const struct nfhp_setm_spec *m)
{
	if (!nfhp_setm_counts_len(m))
		return d;
	*d++ = m->packets_cmp | m->bytes_cmp << 4;
	if (m->packets_cmp) {
		memcpy(d, &m->packets, 8);
		d += 8;
	}
	if (m->bytes_cmp) {
		memcpy(d, &m->bytes, 8);
		d += 8;
	}
	return d;
}

/**
 * nfhp_setm_counts_unpack() - read what nfhp_setm_counts_pack() wrote
 * @d: where
 * @present: the set match's flags say it wrote something
 * @m: the set match, its compares and numbers set (none when !@present)
 *
 * Return: past what it read.
 */
static const u8 *nfhp_setm_counts_unpack(const u8 *d, bool present,
					 struct nfhp_setm_spec *m)
{
	m->packets_cmp = 0;
	m->bytes_cmp = 0;
	m->packets = 0;
	m->bytes = 0;
	if (!present)
		return d;
	m->packets_cmp = *d & 0xf;
	m->bytes_cmp = *d++ >> 4;
	if (m->packets_cmp) {
		memcpy(&m->packets, d, 8);
		d += 8;
	}
	if (m->bytes_cmp) {
		memcpy(&m->bytes, d, 8);
		d += 8;
	}
	return d;
}

/**
 * nfhp_spec_packed_len() - bytes the packed copy of a specification takes
 * @s: the specification
 *
 * The layout: nmatch, action, target, comment, then per match its header
 * bytes, ranges and interface name, then the order's length (one byte)
 * and bytes, then the extensions' length (two bytes) and bytes, then the
 * number of set matches and per set match its direction, flags, value
 * range, compares of counts and name; last, for a keep-state or check-state rule only, its mode, and a
 * limit's fields (one byte) and count (four).
 *
 * Return: the length of the packed data, header not included.
 */
size_t nfhp_spec_packed_len(const struct nfhp_rule_spec *s)
{
	size_t len = 2 + 2 + strnlen(s->target, sizeof(s->target)) +
		     strnlen(s->comment, sizeof(s->comment)) +
		     1 + min_t(size_t, s->norder, sizeof(s->order)) +
		     2 + min_t(size_t, s->ext_len, sizeof(s->ext));
	unsigned int i;

	for (i = 0; i < s->nmatch; i++)
		len += 6 + nfhp_match_stored_ranges(&s->m[i]) *
			   sizeof(struct nfhp_range) +
		       strnlen(s->m[i].ifname, sizeof(s->m[i].ifname));
	len += 1;
	for (i = 0; i < nfhp_spec_nsetm(s); i++)
		len += 3 + (s->setm[i].has_value ? 8 : 0) +
		       nfhp_setm_counts_len(&s->setm[i]) +
		       strnlen(s->setm[i].name, sizeof(s->setm[i].name) - 1);
	if (s->state.mode)
		len += s->state.limit ? 6 : 1;
	return len;
}

static u8 *nfhp_put_str(u8 *p, const char *str, size_t max)
{
	size_t len = strnlen(str, max - 1);

	*p++ = len;
	memcpy(p, str, len);
	return p + len;
}

/**
 * nfhp_spec_pack_into() - pack a specification into room already allocated
 * @p: the packed copy, with room for @len bytes of data
 * @s: the specification
 * @len: nfhp_spec_packed_len() of @s
 */
void nfhp_spec_pack_into(struct nfhp_packed_spec *p,
			 const struct nfhp_rule_spec *s, size_t len)
{
	unsigned int i, n;
	u8 *d;

	p->size = sizeof(*p) + len;
	d = p->data;
	*d++ = s->nmatch;
	*d++ = s->action;
	d = nfhp_put_str(d, s->target, sizeof(s->target));
	d = nfhp_put_str(d, s->comment, sizeof(s->comment));
	for (i = 0; i < s->nmatch; i++) {
		const struct nfhp_dim_match *m = &s->m[i];

		*d++ = m->dim;
		*d++ = m->form;
		*d++ = m->syntax;
		*d++ = m->invert;
		*d++ = m->nranges;
		n = nfhp_match_stored_ranges(m);
		memcpy(d, m->ranges, n * sizeof(m->ranges[0]));
		d += n * sizeof(m->ranges[0]);
		d = nfhp_put_str(d, m->ifname, sizeof(m->ifname));
	}
	n = min_t(size_t, s->norder, sizeof(s->order));
	*d++ = n;
	memcpy(d, s->order, n);
	d += n;
	n = min_t(size_t, s->ext_len, sizeof(s->ext));
	*d++ = n & 0xff;
	*d++ = n >> 8;
	memcpy(d, s->ext, n);
	d += n;
	*d++ = nfhp_spec_nsetm(s);
	for (i = 0; i < nfhp_spec_nsetm(s); i++) {
		*d++ = s->setm[i].dir;
		/*
		 * Flags: invert, has_value, has_dir2, then dir2 in bits 3-4,
		 * no_count in bit 5, compares of the counts in bit 6.
		 */
		*d++ = (s->setm[i].invert ? 1 : 0) |
		       (s->setm[i].has_value ? 2 : 0) |
		       (s->setm[i].has_dir2 ? 4 : 0) |
		       (s->setm[i].dir2 & 3) << 3 |
		       (s->setm[i].no_count ? 0x20 : 0) |
		       (nfhp_setm_counts_len(&s->setm[i]) ? 0x40 : 0);
		if (s->setm[i].has_value) {
			memcpy(d, &s->setm[i].value_min, 4);
			memcpy(d + 4, &s->setm[i].value_max, 4);
			d += 8;
		}
		d = nfhp_setm_counts_pack(d, &s->setm[i]);
		d = nfhp_put_str(d, s->setm[i].name, sizeof(s->setm[i].name));
	}
	if (s->state.mode) {
		*d++ = s->state.mode;
		if (s->state.limit) {
			*d++ = s->state.limit_by;
			memcpy(d, &s->state.limit, 4);
			d += 4;
		}
	}
	p->len = d - p->data;
}

/**
 * nfhp_spec_pack() - store a specification compactly
 * @mem: account to allocate on
 * @s: the specification
 * @out: set to the packed copy
 *
 * Rules keep their specification only to list it back; a packed copy is a
 * few dozen bytes instead of the struct's kilobytes.
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_spec_pack(struct nfhp_mem *mem, const struct nfhp_rule_spec *s,
		   struct nfhp_packed_spec **out)
{
	size_t len = nfhp_spec_packed_len(s);
	struct nfhp_packed_spec *p;

	p = nfhp_alloc(mem, sizeof(*p) + len);
	if (!p)
		return -ENOMEM;
	nfhp_spec_pack_into(p, s, len);
	*out = p;
	return 0;
}

static const u8 *nfhp_get_str(const u8 *p, char *str)
{
	memcpy(str, p + 1, *p);
	str[*p] = 0;
	return p + 1 + *p;
}

/**
 * nfhp_spec_unpack() - rebuild a specification from its packed copy
 * @p: the packed copy
 * @s: the specification to fill
 *
 * Writes what readers of a specification look at: the matches in use with
 * their stored ranges (nfhp_match_stored_ranges()), the strings up to
 * their NUL, the first @norder and @ext_len bytes.  The rest of its 11 KiB
 * is left as it was: zeroing it was half the time of a listing.
 */
void nfhp_spec_unpack(const struct nfhp_packed_spec *p,
		      struct nfhp_rule_spec *s)
{
	const u8 *d = p->data;
	unsigned int i, n;
	bool counts;

	s->nmatch = *d++;
	s->action = *d++;
	d = nfhp_get_str(d, s->target);
	d = nfhp_get_str(d, s->comment);
	for (i = 0; i < s->nmatch; i++) {
		struct nfhp_dim_match *m = &s->m[i];

		m->dim = *d++;
		m->form = *d++;
		m->syntax = *d++;
		m->invert = *d++;
		m->nranges = *d++;
		n = nfhp_match_stored_ranges(m);
		memcpy(m->ranges, d, n * sizeof(m->ranges[0]));
		d += n * sizeof(m->ranges[0]);
		d = nfhp_get_str(d, m->ifname);
	}
	s->norder = *d++;
	memcpy(s->order, d, s->norder);
	d += s->norder;
	s->ext_len = d[0] | d[1] << 8;
	memcpy(s->ext, d + 2, s->ext_len);
	d += 2 + s->ext_len;
	s->nsetm = *d++;
	for (i = 0; i < s->nsetm; i++) {
		s->setm[i].dir = *d++;
		s->setm[i].invert = *d & 1;
		s->setm[i].has_dir2 = *d >> 2 & 1;
		s->setm[i].dir2 = *d >> 3 & 3;
		s->setm[i].no_count = *d >> 5 & 1;
		counts = *d >> 6 & 1;
		s->setm[i].has_value = *d++ >> 1 & 1;
		if (s->setm[i].has_value) {
			memcpy(&s->setm[i].value_min, d, 4);
			memcpy(&s->setm[i].value_max, d + 4, 4);
			d += 8;
		}
		d = nfhp_setm_counts_unpack(d, counts, &s->setm[i]);
		d = nfhp_get_str(d, s->setm[i].name);
	}
	memset(&s->state, 0, sizeof(s->state));
	if (d == p->data + p->len)
		return;
	s->state.mode = *d++;
	if (d == p->data + p->len)
		return;
	s->state.limit_by = *d++;
	memcpy(&s->state.limit, d, 4);
}

/**
 * nfhp_packed_spec_equal() - are two packed specifications the same rule?
 * @a: one
 * @b: the other
 *
 * Return: true when they are byte for byte equal.
 */
bool nfhp_packed_spec_equal(const struct nfhp_packed_spec *a,
			    const struct nfhp_packed_spec *b)
{
	return a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/**
 * nfhp_packed_spec_hash() - hash of a packed specification
 * @p: the specification
 *
 * Equal specifications (nfhp_packed_spec_equal()) hash alike.
 *
 * Return: FNV-1a of its bytes.
 */
u32 nfhp_packed_spec_hash(const struct nfhp_packed_spec *p)
{
	u32 h = 2166136261u, i;

	for (i = 0; i < p->len; i++)
		h = (h ^ p->data[i]) * 16777619u;
	return h;
}
