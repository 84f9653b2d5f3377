/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: rule specifications.
 *
 * A rule specification is what the user wrote, kept in the form that
 * iptables prints back (a prefix stays a prefix, "! -s" stays inverted,
 * "eth+" stays a name).  The classifier never looks at it directly: a
 * rule's boxes, the normalized interval sets, come from
 * nfhp_rule_body_new() and nfhp_box_from_spec() (match.c).  Userspace
 * parses iptables syntax into this struct, the kernel decodes netlink
 * into it.
 */
#ifndef _NFHP_SPEC_H
#define _NFHP_SPEC_H

#include "key.h"

#define NFHP_CHAIN_NAME_LEN	NFHP_CHAIN_MAXNAMELEN
#define NFHP_COMMENT_LEN	256	/* xt_comment's limit */

/**
 * struct nfhp_range - a closed interval [lo, hi]
 * @lo: first value
 * @hi: last value
 */
struct nfhp_range {
	nfhp_u128 lo;
	nfhp_u128 hi;
};

/**
 * struct nfhp_dim_match - the match of a rule in one dimension
 * @dim: the dimension, &enum nfhp_dim
 * @form: how the values are given, &enum nfhp_form
 * @syntax: how the match was written, &enum nfhp_syntax
 * @invert: the match was negated with "!"
 * @nranges: number of intervals in @ranges for %NFHP_FORM_RANGES; for
 *	%NFHP_FORM_PREFIX the prefix length
 * @ranges: the intervals (%NFHP_FORM_RANGES) or the address in
 *	@ranges[0].lo (%NFHP_FORM_PREFIX) or value and mask in @ranges[0].lo
 *	and @ranges[0].hi (%NFHP_FORM_MASK)
 * @ifname: the interface name for %NFHP_FORM_IFNAME, NUL-terminated
 */
struct nfhp_dim_match {
	u8 dim;
	u8 form;
	u8 syntax;
	u8 invert;
	u8 nranges;
	struct nfhp_range ranges[NFHP_MAX_RANGES];
	char ifname[NFHP_IFNAME_LEN + 1];
};

/**
 * struct nfhp_setm_spec - a set match as written (NFHPA_RULE_SETM)
 * @name: the set's name, NUL-terminated
 * @dir: &enum nfhp_setm_dir, the packet field looked up
 * @invert: the match holds when the field is not in the set
 * @has_value: the entry found must also have a value in
 *	[@value_min, @value_max] ("--set-value"); @invert inverts the whole
 * @has_dir2: @dir2 was given (NFHPA_SETM_DIR2): a two-field set's match
 * @dir2: &enum nfhp_setm_dir of the second field: a flow set's port
 * @value_min: the least value
 * @value_max: the greatest
 * @no_count: the rule's lookups do not count (NFHP_SETM_F_NO_COUNT)
 * @packets_cmp: &enum nfhp_setm_cmp of the entry's packets with @packets
 * @bytes_cmp: the same of its bytes with @bytes
 * @packets: the number of packets compared with
 * @bytes: the number of bytes
 */
struct nfhp_setm_spec {
	char name[NFHP_SET_MAXNAMELEN];
	u8 dir;
	u8 invert;
	u8 has_value;
	u8 has_dir2;
	u8 dir2;
	u32 value_min;
	u32 value_max;
	u8 no_count;
	u8 packets_cmp;
	u8 bytes_cmp;
	u64 packets;
	u64 bytes;
};

/**
 * struct nfhp_state_spec - a rule's part in the dynamic states
 *	(NFHPA_RULE_STATE)
 * @mode: &enum nfhp_rstate_mode
 * @limit_by: keep-state with a limit: the %NFHP_STATE_LIMIT_* fields of
 *	the creating flow that make a parent; 0 without a limit
 * @limit: keep-state: at most this many states per parent, 0 for no limit
 */
struct nfhp_state_spec {
	u8 mode;
	u8 limit_by;
	u32 limit;
};

/**
 * struct nfhp_rule_spec - one rule as written by the user
 * @nmatch: number of entries in @m, at most one per dimension
 * @m: the dimension matches, sorted by @m[i].dim
 * @action: &enum nfhp_action
 * @target: user chain name for %NFHP_ACT_JUMP and %NFHP_ACT_GOTO
 * @comment: -m comment --comment text, or the empty string
 * @norder: bytes in @order, 0 for the canonical order
 * @order: the native match modules in the order written, &enum
 *	nfhp_module each; only listings read it (NFHPA_RULE_ORDER)
 * @nsetm: set matches in @setm
 * @setm: the set matches, run by &struct nfhp_ext_ops with the xtables
 *	matches, before them
 * @state: keep-state or check-state, and a keep-state's limit
 * @ext_len: bytes in @ext, 0 for a rule the tree classifies alone
 * @ext: the matches and target the tree does not know, opaque to the
 *	core: the payload of NFHPA_RULE_XT, read by &struct nfhp_ext_ops
 */
struct nfhp_rule_spec {
	u8 nmatch;
	u8 action;
	struct nfhp_dim_match m[NFHP_DIM_MAX];
	char target[NFHP_CHAIN_NAME_LEN];
	char comment[NFHP_COMMENT_LEN];
	u8 norder;
	u8 order[NFHP_MAX_ORDER];
	u8 nsetm;
	struct nfhp_setm_spec setm[NFHP_MAX_SETM];
	struct nfhp_state_spec state;
	u16 ext_len;
	u8 ext[NFHP_XT_MAXLEN] __aligned(8);
};

/**
 * nfhp_match_stored_ranges() - intervals of @m->ranges that hold values
 * @m: the match
 *
 * Return: the list's length for %NFHP_FORM_RANGES (at most
 * %NFHP_MAX_RANGES), none for a name, else one (an address or a value
 * and mask).  Readers and copies look at no more than these.
 */
static inline unsigned int
nfhp_match_stored_ranges(const struct nfhp_dim_match *m)
{
	if (m->form == NFHP_FORM_RANGES)
		return m->nranges < NFHP_MAX_RANGES ? m->nranges :
						      NFHP_MAX_RANGES;
	return m->form == NFHP_FORM_IFNAME ? 0 : 1;
}

/**
 * nfhp_spec_nsetm() - the set matches of @s that are stored
 * @s: the specification
 *
 * Return: @s->nsetm, at most %NFHP_MAX_SETM.
 */
static inline unsigned int nfhp_spec_nsetm(const struct nfhp_rule_spec *s)
{
	return s->nsetm < NFHP_MAX_SETM ? s->nsetm : NFHP_MAX_SETM;
}

#endif /* _NFHP_SPEC_H */
