// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the generic netlink family "nf_hipac".
 *
 * See include/uapi/linux/nf_hipac.h for the protocol.  Generic netlink
 * checks a request's attributes against the family's policy before the
 * doit runs; the doit then takes the namespace's mutex, decodes the
 * request into the namespace's one &struct nfhp_rule_spec (@spec of
 * &struct nfhp_net, which the mutex guards) and applies it to the rule
 * set, all under the mutex.  A change made outside a transaction runs in a
 * transaction of its own, so that nfhp_net_commit() can get the hooks and
 * conntrack ready before the new rule set sees its first packet.  A LIST
 * that carries a rule decodes it into its own &struct nfhp_dump's, when
 * the dump starts.
 *
 * The family runs with parallel_ops: the per-namespace mutex is all the
 * serialization needed, and a commit in one namespace then holds up
 * neither other namespaces nor other generic netlink families.
 */

#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "match.h"
#include "netlink.h"
#include "pernet.h"
#include "set_netlink.h"
#include "state_netlink.h"
#include "state_rule.h"

static struct genl_family nfhp_family;

/**
 * nfhp_ranges_validate() - check the length of NFHPA_MATCH_RANGES
 * @attr: the attribute
 * @extack: for the reason
 *
 * The policy bounds the length by %NFHP_MAX_RANGES ranges.
 *
 * Return: 0, or -EINVAL unless it holds a whole number of ranges, at least
 * one.
 */
static int nfhp_ranges_validate(const struct nlattr *attr,
				struct netlink_ext_ack *extack)
{
	int len = nla_len(attr);

	if (!len || len % sizeof(struct nfhp_uapi_range)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "ranges must be 1 or more struct nfhp_uapi_range");
		return -EINVAL;
	}
	return 0;
}

static const struct nla_policy nfhp_counter_policy[NFHPA_COUNTER_MAX + 1] = {
	[NFHPA_COUNTER_PACKETS] = { .type = NLA_U64 },
	[NFHPA_COUNTER_BYTES] = { .type = NLA_U64 },
};

static const struct nla_policy nfhp_match_policy[NFHPA_MATCH_MAX + 1] = {
	[NFHPA_MATCH_DIM] = NLA_POLICY_MAX(NLA_U8, NFHP_DIM_MAX - 1),
	[NFHPA_MATCH_FORM] = NLA_POLICY_MAX(NLA_U8, NFHP_FORM_MAX - 1),
	[NFHPA_MATCH_SYNTAX] = NLA_POLICY_MAX(NLA_U8, NFHP_SYN_MAX - 1),
	[NFHPA_MATCH_INVERT] = { .type = NLA_FLAG },
	[NFHPA_MATCH_RANGES] =
		NLA_POLICY_VALIDATE_FN(NLA_BINARY, nfhp_ranges_validate,
				       NFHP_MAX_RANGES *
				       sizeof(struct nfhp_uapi_range)),
	[NFHPA_MATCH_PREFIXLEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[NFHPA_MATCH_IFNAME] = { .type = NLA_NUL_STRING,
				 .len = NFHP_IFNAME_LEN },
};

static const struct nla_policy nfhp_rule_policy[NFHPA_RULE_MAX + 1] = {
	[NFHPA_RULE_MATCH] = NLA_POLICY_NESTED(nfhp_match_policy),
	[NFHPA_RULE_ACTION] = NLA_POLICY_MAX(NLA_U8, NFHP_ACT_MAX - 1),
	[NFHPA_RULE_TARGET] = { .type = NLA_NUL_STRING,
				.len = NFHP_CHAIN_MAXNAMELEN - 1 },
	[NFHPA_RULE_COMMENT] = { .type = NLA_NUL_STRING,
				 .len = NFHP_COMMENT_LEN - 1 },
	[NFHPA_RULE_COUNTERS] = NLA_POLICY_NESTED(nfhp_counter_policy),
	/* Checked by xt.c when the rule is added. */
	[NFHPA_RULE_XT] = { .type = NLA_NESTED },
	[NFHPA_RULE_ORDER] = { .type = NLA_BINARY, .len = NFHP_MAX_ORDER },
	[NFHPA_RULE_SETM] = NLA_POLICY_NESTED(nfhp_setm_policy),
	[NFHPA_RULE_STATE] = NLA_POLICY_NESTED(nfhp_rstate_policy),
};

static const struct nla_policy nfhp_policy[NFHPA_MAX + 1] = {
	[NFHPA_CHAIN] = { .type = NLA_NUL_STRING,
			  .len = NFHP_CHAIN_MAXNAMELEN - 1 },
	[NFHPA_NEW_NAME] = { .type = NLA_NUL_STRING,
			     .len = NFHP_CHAIN_MAXNAMELEN - 1 },
	[NFHPA_POS] = NLA_POLICY_MIN(NLA_U32, 1),
	[NFHPA_POLICY] = NLA_POLICY_RANGE(NLA_U8, NFHP_ACT_ACCEPT,
					  NFHP_ACT_DROP),
	[NFHPA_COUNTERS] = NLA_POLICY_NESTED(nfhp_counter_policy),
	[NFHPA_REFS] = { .type = NLA_REJECT,
			 .reject_message = "NFHPA_REFS is only sent by the kernel" },
	[NFHPA_RULE] = NLA_POLICY_NESTED(nfhp_rule_policy),
	[NFHPA_LIST_FLAGS] = NLA_POLICY_MASK(NLA_U32, NFHP_LIST_CHAINS_ONLY),
	[NFHPA_FAMILY] = { .type = NLA_U8 },
	[NFHPA_SET] = NLA_POLICY_NESTED(nfhp_set_policy),
	[NFHPA_STATE] = NLA_POLICY_NESTED(nfhp_state_policy),
};

/**
 * nfhp_request_fam() - the family's rule set a request works on
 * @hn: the namespace state
 * @attrs: the request's attributes
 * @extack: for the reason
 *
 * Return: the family's state, IPv4's without NFHPA_FAMILY, or NULL for a
 * family nf-hipac does not filter.
 */
static struct nfhp_fam *nfhp_request_fam(struct nfhp_net *hn,
					 struct nlattr **attrs,
					 struct netlink_ext_ack *extack)
{
	struct nlattr *attr = attrs[NFHPA_FAMILY];
	struct nfhp_fam *fam;

	fam = nfhp_net_fam(hn, attr ? nla_get_u8(attr) : NFHP_FAMILY_IPV4);
	if (!fam)
		NL_SET_ERR_MSG_ATTR(extack, attr, "no such address family");
	return fam;
}

/**
 * nfhp_u128_get() - a 128-bit value from four words, most significant first
 * @w: the words
 *
 * Return: the value.
 */
static nfhp_u128 nfhp_u128_get(const __u32 *w)
{
	return (nfhp_u128)w[0] << 96 | (nfhp_u128)w[1] << 64 |
	       (nfhp_u128)w[2] << 32 | w[3];
}

/**
 * nfhp_u128_put() - a 128-bit value as four words, most significant first
 * @v: the value
 * @w: the words
 */
static void nfhp_u128_put(nfhp_u128 v, __u32 *w)
{
	w[0] = v >> 96;
	w[1] = v >> 64;
	w[2] = v >> 32;
	w[3] = v;
}

/*
 * Split a nested attribute into @tb.  Generic netlink validated it with the
 * rest of the message against nfhp_policy, whose NLA_POLICY_NESTED entries
 * reach every nested policy; validating it again here cost a restore 3 %.
 */
static int nfhp_nla_split(struct nlattr **tb, int maxtype,
			  const struct nlattr *attr,
			  struct netlink_ext_ack *extack)
{
	return nla_parse_nested(tb, maxtype, attr, NULL, extack);
}

/**
 * nfhp_counter_decode() - decode a nested counter attribute
 * @attr: NFHPA_COUNTERS or NFHPA_RULE_COUNTERS, validated
 * @c: the counter; missing values are 0
 */
static void nfhp_counter_decode(const struct nlattr *attr,
				struct nfhp_counter *c)
{
	struct nlattr *tb[NFHPA_COUNTER_MAX + 1];

	memset(c, 0, sizeof(*c));
	if (nfhp_nla_split(tb, NFHPA_COUNTER_MAX, attr, NULL))
		return;
	if (tb[NFHPA_COUNTER_PACKETS])
		c->packets = nla_get_u64(tb[NFHPA_COUNTER_PACKETS]);
	if (tb[NFHPA_COUNTER_BYTES])
		c->bytes = nla_get_u64(tb[NFHPA_COUNTER_BYTES]);
}

/**
 * nfhp_ranges_decode() - decode NFHPA_MATCH_RANGES into a match
 * @family: the &enum nfhp_family of the rule set
 * @dm: the match, @dm->dim and @dm->form set
 * @attr: the attribute, validated
 * @extack: for the reason
 *
 * Return: 0, or -EINVAL if a range is reversed, exceeds the dimension or
 * the form takes a single range.
 */
static int nfhp_ranges_decode(u8 family, struct nfhp_dim_match *dm,
			      const struct nlattr *attr,
			      struct netlink_ext_ack *extack)
{
	unsigned int i, n = nla_len(attr) / sizeof(struct nfhp_uapi_range);
	nfhp_u128 max = nfhp_dim_max(family, dm->dim);
	struct nfhp_uapi_range u;

	if (dm->form != NFHP_FORM_RANGES && n != 1) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "prefix and mask matches take one range");
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		memcpy(&u, nla_data(attr) + i * sizeof(u), sizeof(u));
		dm->ranges[i].lo = nfhp_u128_get(u.lo);
		dm->ranges[i].hi = nfhp_u128_get(u.hi);
		if (dm->ranges[i].lo > max || dm->ranges[i].hi > max) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "value out of range for the dimension");
			return -EINVAL;
		}
		if (dm->form == NFHP_FORM_RANGES &&
		    dm->ranges[i].lo > dm->ranges[i].hi) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "range with its start after its end");
			return -EINVAL;
		}
	}
	dm->nranges = n;
	return 0;
}

/**
 * nfhp_match_decode() - decode one NFHPA_RULE_MATCH
 * @family: the &enum nfhp_family of the rule set
 * @dm: the match to fill, zeroed
 * @attr: the attribute, validated against nfhp_match_policy
 * @extack: for the reason
 *
 * Return: 0 or -EINVAL.
 */
static int nfhp_match_decode(u8 family, struct nfhp_dim_match *dm,
			     const struct nlattr *attr,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[NFHPA_MATCH_MAX + 1];
	bool ifdim, byname, byprefix;
	int ret;

	ret = nfhp_nla_split(tb, NFHPA_MATCH_MAX, attr, extack);
	if (ret)
		return ret;
	if (!tb[NFHPA_MATCH_DIM] || !tb[NFHPA_MATCH_FORM]) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "a match needs a dimension and a form");
		return -EINVAL;
	}
	dm->dim = nla_get_u8(tb[NFHPA_MATCH_DIM]);
	dm->form = nla_get_u8(tb[NFHPA_MATCH_FORM]);
	if (tb[NFHPA_MATCH_SYNTAX])
		dm->syntax = nla_get_u8(tb[NFHPA_MATCH_SYNTAX]);
	dm->invert = nla_get_flag(tb[NFHPA_MATCH_INVERT]);

	ifdim = dm->dim == NFHP_DIM_IIF || dm->dim == NFHP_DIM_OIF;
	byname = dm->form == NFHP_FORM_IFNAME;
	byprefix = dm->form == NFHP_FORM_PREFIX;
	if (ifdim != byname) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "interfaces, and only they, match by name");
		return -EINVAL;
	}
	if (!!tb[NFHPA_MATCH_PREFIXLEN] != byprefix) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "a prefix length goes with a prefix match only");
		return -EINVAL;
	}

	if (dm->form == NFHP_FORM_IFNAME) {
		if (!tb[NFHPA_MATCH_IFNAME] || tb[NFHPA_MATCH_RANGES]) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "an interface match takes a name only");
			return -EINVAL;
		}
		nla_strscpy(dm->ifname, tb[NFHPA_MATCH_IFNAME],
			    sizeof(dm->ifname));
		return 0;
	}

	if (!tb[NFHPA_MATCH_RANGES] || tb[NFHPA_MATCH_IFNAME]) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "the match needs ranges only");
		return -EINVAL;
	}
	ret = nfhp_ranges_decode(family, dm, tb[NFHPA_MATCH_RANGES], extack);
	if (ret || dm->form != NFHP_FORM_PREFIX)
		return ret;

	dm->nranges = nla_get_u8(tb[NFHPA_MATCH_PREFIXLEN]);
	if (dm->nranges > nfhp_dim_bits(family, dm->dim)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[NFHPA_MATCH_PREFIXLEN],
				    "prefix longer than the dimension");
		return -EINVAL;
	}
	return 0;
}

/**
 * nfhp_order_decode() - decode NFHPA_RULE_ORDER
 * @spec: the rule to fill
 * @attr: the attribute, at most NFHP_MAX_ORDER bytes (nfhp_rule_policy)
 * @extack: for the reason
 *
 * Return: 0 or -EINVAL.
 */
static int nfhp_order_decode(struct nfhp_rule_spec *spec,
			     const struct nlattr *attr,
			     struct netlink_ext_ack *extack)
{
	const u8 *order = nla_data(attr);
	int i, len = nla_len(attr);

	if (len < 1 || len > NFHP_MAX_ORDER) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "the match order needs 1 to NFHP_MAX_ORDER modules");
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (order[i] >= NFHP_MOD_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "unknown match module in the match order");
			return -EINVAL;
		}
	}
	spec->norder = len;
	memcpy(spec->order, order, len);
	return 0;
}

/*
 * Empty a rule for decoding.  Only the matches in use, the strings up to
 * their NUL and the first @norder and @ext_len bytes are ever read, so the
 * rest of its 11 KiB is left alone.
 */
static void nfhp_spec_reset(struct nfhp_rule_spec *spec)
{
	spec->nmatch = 0;
	spec->action = 0;
	spec->target[0] = 0;
	spec->comment[0] = 0;
	spec->norder = 0;
	spec->nsetm = 0;
	memset(&spec->state, 0, sizeof(spec->state));
	spec->ext_len = 0;
}

/**
 * nfhp_rule_decode() - decode NFHPA_RULE
 * @family: the &enum nfhp_family of the rule set
 * @spec: the rule to fill
 * @counters: set to the rule's initial counters, 0 when absent
 * @attr: the attribute, validated against nfhp_rule_policy
 * @extack: for the reason
 *
 * Return: 0 or -EINVAL.
 */
static int nfhp_rule_decode(u8 family, struct nfhp_rule_spec *spec,
			    struct nfhp_counter *counters,
			    const struct nlattr *attr,
			    struct netlink_ext_ack *extack)
{
	struct nlattr *tb[NFHPA_RULE_MAX + 1];
	const struct nlattr *pos;
	int rem, ret;

	ret = nfhp_nla_split(tb, NFHPA_RULE_MAX, attr, extack);
	if (ret)
		return ret;

	nfhp_spec_reset(spec);
	nla_for_each_nested(pos, attr, rem) {
		struct nfhp_dim_match *dm = &spec->m[spec->nmatch];

		if (nla_type(pos) == NFHPA_RULE_SETM) {
			ret = nfhp_setm_decode(spec, pos, extack);
			if (ret)
				return ret;
			continue;
		}
		if (nla_type(pos) != NFHPA_RULE_MATCH)
			continue;
		if (spec->nmatch == NFHP_DIM_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, pos, "too many matches");
			return -EINVAL;
		}
		memset(dm, 0, sizeof(*dm));
		ret = nfhp_match_decode(family, dm, pos, extack);
		if (ret)
			return ret;
		if (spec->nmatch && dm->dim <= spec->m[spec->nmatch - 1].dim) {
			NL_SET_ERR_MSG_ATTR(extack, pos,
					    "matches must be sorted by dimension, one per dimension");
			return -EINVAL;
		}
		spec->nmatch++;
	}

	if (tb[NFHPA_RULE_ACTION])
		spec->action = nla_get_u8(tb[NFHPA_RULE_ACTION]);
	if ((spec->action == NFHP_ACT_JUMP || spec->action == NFHP_ACT_GOTO) !=
	    !!tb[NFHPA_RULE_TARGET]) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "jump and goto, and only they, need a target chain");
		return -EINVAL;
	}
	if (tb[NFHPA_RULE_TARGET])
		nla_strscpy(spec->target, tb[NFHPA_RULE_TARGET],
			    sizeof(spec->target));
	if (tb[NFHPA_RULE_COMMENT])
		nla_strscpy(spec->comment, tb[NFHPA_RULE_COMMENT],
			    sizeof(spec->comment));

	if (tb[NFHPA_RULE_ORDER]) {
		ret = nfhp_order_decode(spec, tb[NFHPA_RULE_ORDER], extack);
		if (ret)
			return ret;
	}

	if (tb[NFHPA_RULE_XT]) {
		if (nla_len(tb[NFHPA_RULE_XT]) > sizeof(spec->ext)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[NFHPA_RULE_XT],
					    "xtables extensions too long");
			return -EINVAL;
		}
		spec->ext_len = nla_len(tb[NFHPA_RULE_XT]);
		memcpy(spec->ext, nla_data(tb[NFHPA_RULE_XT]), spec->ext_len);
	}

	if (tb[NFHPA_RULE_STATE]) {
		ret = nfhp_rstate_decode(spec, tb[NFHPA_RULE_STATE], extack);
		if (ret)
			return ret;
	}

	memset(counters, 0, sizeof(*counters));
	if (tb[NFHPA_RULE_COUNTERS])
		nfhp_counter_decode(tb[NFHPA_RULE_COUNTERS], counters);
	return 0;
}

/**
 * struct nfhp_request - a decoded change request
 * @cmd: &enum nfhp_cmd
 * @chain: NFHPA_CHAIN, or NULL
 * @new_name: NFHPA_NEW_NAME, or NULL
 * @pos: NFHPA_POS, or 0
 * @policy: NFHPA_POLICY
 * @counters: NFHPA_COUNTERS or the rule's NFHPA_RULE_COUNTERS
 * @has_counters: @counters were given
 * @spec: NFHPA_RULE, or NULL
 */
struct nfhp_request {
	u8 cmd;
	struct nfhp_fam *fam;
	const char *chain;
	const char *new_name;
	u32 pos;
	u8 policy;
	struct nfhp_counter counters;
	bool has_counters;
	struct nfhp_rule_spec *spec;
};

/**
 * nfhp_request_needs() - check the attributes a command requires
 * @info: the request
 * @req: the decoded request
 *
 * Return: 0 or -EINVAL.
 */
static int nfhp_request_needs(struct genl_info *info,
			      const struct nfhp_request *req)
{
	switch (req->cmd) {
	case NFHP_CMD_APPEND:
	case NFHP_CMD_INSERT:
		if (GENL_REQ_ATTR_CHECK(info, NFHPA_CHAIN) ||
		    GENL_REQ_ATTR_CHECK(info, NFHPA_RULE))
			return -EINVAL;
		break;
	case NFHP_CMD_DELETE:
		if (GENL_REQ_ATTR_CHECK(info, NFHPA_CHAIN))
			return -EINVAL;
		if (!req->pos == !req->spec) {
			GENL_SET_ERR_MSG(info,
					 "delete takes a position or a rule");
			return -EINVAL;
		}
		break;
	case NFHP_CMD_REPLACE:
		if (GENL_REQ_ATTR_CHECK(info, NFHPA_CHAIN) ||
		    GENL_REQ_ATTR_CHECK(info, NFHPA_POS) ||
		    GENL_REQ_ATTR_CHECK(info, NFHPA_RULE))
			return -EINVAL;
		break;
	case NFHP_CMD_NEW_CHAIN:
		if (GENL_REQ_ATTR_CHECK(info, NFHPA_CHAIN))
			return -EINVAL;
		break;
	case NFHP_CMD_RENAME_CHAIN:
		if (GENL_REQ_ATTR_CHECK(info, NFHPA_CHAIN) ||
		    GENL_REQ_ATTR_CHECK(info, NFHPA_NEW_NAME))
			return -EINVAL;
		break;
	case NFHP_CMD_POLICY:
		if (GENL_REQ_ATTR_CHECK(info, NFHPA_CHAIN) ||
		    GENL_REQ_ATTR_CHECK(info, NFHPA_POLICY))
			return -EINVAL;
		break;
	case NFHP_CMD_ZERO:
		if (req->pos && !req->chain) {
			GENL_SET_ERR_MSG(info, "a position needs a chain");
			return -EINVAL;
		}
		break;
	}
	return 0;
}

/**
 * nfhp_request_decode() - decode a change request
 * @req: the request to fill; a rule goes to @hn->spec
 * @hn: the namespace state, @hn->lock held
 * @info: the request
 *
 * Return: 0 or -errno.
 */
static int nfhp_request_decode(struct nfhp_request *req, struct nfhp_net *hn,
			       struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;

	memset(req, 0, sizeof(*req));
	req->cmd = info->genlhdr->cmd;
	req->fam = nfhp_request_fam(hn, attrs, info->extack);
	if (!req->fam)
		return -EAFNOSUPPORT;
	if (attrs[NFHPA_CHAIN])
		req->chain = nla_data(attrs[NFHPA_CHAIN]);
	if (attrs[NFHPA_NEW_NAME])
		req->new_name = nla_data(attrs[NFHPA_NEW_NAME]);
	if (attrs[NFHPA_POS])
		req->pos = nla_get_u32(attrs[NFHPA_POS]);
	if (attrs[NFHPA_POLICY])
		req->policy = nla_get_u8(attrs[NFHPA_POLICY]);
	if (attrs[NFHPA_COUNTERS]) {
		nfhp_counter_decode(attrs[NFHPA_COUNTERS], &req->counters);
		req->has_counters = true;
	}
	if (attrs[NFHPA_RULE]) {
		int ret;

		if (!hn->spec)
			hn->spec = kvmalloc(sizeof(*hn->spec), GFP_KERNEL);
		if (!hn->spec)
			return -ENOMEM;
		req->spec = hn->spec;
		ret = nfhp_rule_decode(req->fam->family, req->spec,
				       &req->counters, attrs[NFHPA_RULE],
				       info->extack);
		if (ret)
			return ret;
		req->has_counters =
			!!nla_find_nested(attrs[NFHPA_RULE], NFHPA_RULE_COUNTERS);
	}
	return nfhp_request_needs(info, req);
}

/**
 * nfhp_request_apply() - apply a decoded change to a rule set
 * @rs: the rule set, its mutex held
 * @req: the request
 * @msg: set to the reason on error
 *
 * Return: 0 or -errno.
 */
static int nfhp_request_apply(struct nfhp_ruleset *rs,
			      const struct nfhp_request *req, const char **msg)
{
	const struct nfhp_counter *c = req->has_counters ? &req->counters :
							    NULL;

	switch (req->cmd) {
	case NFHP_CMD_APPEND:
		return nfhp_rule_append(rs, req->chain, req->spec, c, msg);
	case NFHP_CMD_INSERT:
		return nfhp_rule_insert(rs, req->chain, req->pos ? : 1,
					req->spec, c, msg);
	case NFHP_CMD_DELETE:
		if (req->spec)
			return nfhp_rule_delete_spec(rs, req->chain, req->spec,
						     msg);
		return nfhp_rule_delete(rs, req->chain, req->pos, msg);
	case NFHP_CMD_REPLACE:
		return nfhp_rule_replace(rs, req->chain, req->pos, req->spec,
					 msg);
	case NFHP_CMD_FLUSH:
		return nfhp_chain_flush(rs, req->chain, msg);
	case NFHP_CMD_NEW_CHAIN:
		return nfhp_chain_new(rs, req->chain, msg);
	case NFHP_CMD_DEL_CHAIN:
		return nfhp_chain_delete(rs, req->chain, msg);
	case NFHP_CMD_RENAME_CHAIN:
		return nfhp_chain_rename(rs, req->chain, req->new_name, msg);
	case NFHP_CMD_POLICY:
		return nfhp_chain_policy(rs, req->chain, req->policy, c, msg);
	case NFHP_CMD_ZERO:
		return nfhp_counters_zero(rs, req->chain, req->pos, msg);
	}
	*msg = "unknown command";
	return -EOPNOTSUPP;
}

/**
 * nfhp_set_msg() - report the core's reason for a failure
 * @extack: the extended ack, or NULL
 * @msg: a static string, or NULL
 *
 * The one place that sets @extack's message itself: the public helpers
 * (NL_SET_ERR_MSG() and its kin, used everywhere else) take a string
 * literal, and 6.1 has no NL_SET_ERR_MSG_FMT().  The core picks its
 * reason at run time among static strings, which outlive the request as
 * a literal would; this does what NL_SET_ERR_MSG() does with one.
 */
void nfhp_set_msg(struct netlink_ext_ack *extack, const char *msg)
{
	if (!msg)
		return;
	do_trace_netlink_extack(msg);
	if (extack)
		extack->_msg = msg;
}

/**
 * nfhp_txn_drop() - close the transaction still open after a request
 * @hn: the namespace state, @hn->lock held
 *
 * Forgets what the transaction staged in either family, records the
 * change for dumps and gives back what the committed rule sets do not
 * need (conntrack).
 */
static void nfhp_txn_drop(struct nfhp_net *hn)
{
	hn->txn_open = false;
	nfhp_net_abort(hn);
}

/**
 * nfhp_txn_foreign() - is a transaction of another socket open?
 * @hn: the namespace state, @hn->lock held
 * @info: the request
 *
 * Return: true, with the reason set, if @info must not touch the rule sets.
 */
bool nfhp_txn_foreign(const struct nfhp_net *hn, struct genl_info *info)
{
	if (!hn->txn_open || hn->txn_owner == info->snd_portid)
		return false;
	GENL_SET_ERR_MSG(info, "another socket has a transaction open");
	return true;
}

/**
 * nfhp_nl_change() - the doit of every command that changes the rule set
 * @skb: the request
 * @info: its attributes
 *
 * Inside the sender's transaction the change is only staged; otherwise it
 * is committed at once.
 *
 * Return: 0 or -errno.
 */
static int nfhp_nl_change(struct sk_buff *skb, struct genl_info *info)
{
	struct nfhp_net *hn = nfhp_net(genl_info_net(info));
	const char *msg = NULL;
	struct nfhp_request req;
	bool own_txn;
	int ret;

	mutex_lock(&hn->lock);
	ret = nfhp_request_decode(&req, hn, info);
	if (ret)
		goto out_unlock;
	ret = -EBUSY;
	if (nfhp_txn_foreign(hn, info))
		goto out_unlock;
	own_txn = !hn->txn_open;
	/* In a transaction, each family's rule set opens its own when first
	 * changed.
	 */
	if (!nfhp_txn_active(req.fam->rs)) {
		ret = nfhp_txn_begin(req.fam->rs);
		if (ret)
			goto out_unlock;
	}
	ret = nfhp_request_apply(req.fam->rs, &req, &msg);
	nfhp_net_changed(hn);
	if (own_txn) {
		if (!ret)
			ret = nfhp_net_commit(hn, &msg);
		nfhp_txn_drop(hn);
	}
out_unlock:
	mutex_unlock(&hn->lock);
	if (ret)
		nfhp_set_msg(info->extack, msg);
	return ret;
}

/**
 * nfhp_nl_begin() - NFHP_CMD_BEGIN: open a transaction for the sender
 * @skb: the request
 * @info: its attributes
 *
 * Return: 0, or -EBUSY if a transaction is open already.
 */
static int nfhp_nl_begin(struct sk_buff *skb, struct genl_info *info)
{
	struct nfhp_net *hn = nfhp_net(genl_info_net(info));
	int ret = -EBUSY;

	mutex_lock(&hn->lock);
	if (hn->txn_open) {
		GENL_SET_ERR_MSG(info, "a transaction is open already");
		goto out_unlock;
	}
	hn->txn_open = true;
	hn->txn_owner = info->snd_portid;
	nfhp_sets_begin(&hn->sets);
	nfhp_net_changed(hn);
	ret = 0;
out_unlock:
	mutex_unlock(&hn->lock);
	return ret;
}

/**
 * nfhp_nl_end() - NFHP_CMD_COMMIT and NFHP_CMD_ABORT
 * @skb: the request
 * @info: its attributes
 *
 * A commit that fails aborts the transaction: either all of it reaches the
 * packets or nothing does.
 *
 * Return: 0 or -errno.
 */
static int nfhp_nl_end(struct sk_buff *skb, struct genl_info *info)
{
	struct nfhp_net *hn = nfhp_net(genl_info_net(info));
	const char *msg = NULL;
	int ret = -EBUSY;

	mutex_lock(&hn->lock);
	if (nfhp_txn_foreign(hn, info))
		goto out_unlock;
	ret = -ENOENT;
	if (!hn->txn_open) {
		GENL_SET_ERR_MSG(info, "no transaction is open");
		goto out_unlock;
	}
	ret = 0;
	if (info->genlhdr->cmd == NFHP_CMD_COMMIT)
		ret = nfhp_net_commit(hn, &msg);
	nfhp_txn_drop(hn);
out_unlock:
	mutex_unlock(&hn->lock);
	if (ret)
		nfhp_set_msg(info->extack, msg);
	return ret;
}

/**
 * struct nfhp_dump - where a LIST dump stands, kept in &netlink_callback.ctx
 * @spec: scratch space for one rule
 * @equal: the rule of NFHPA_RULE, packed: only the rules equal to it are
 *	sent; NULL for all
 * @chain: the chain at @chain_idx, valid while the rule set's generation
 *	is still @gen
 * @refs: the references of every chain of generation @gen, by index
 *	(nfhp_chain_refs_all()); NULL if they could not be kept
 * @gen: the generation @chain belongs to, 0 for none
 * @chain_idx: index of the chain being sent
 * @sent: messages of that chain sent: its header, then its rules, so the
 *	next rule to send is at position @sent
 * @chains_only: NFHP_LIST_CHAINS_ONLY was asked for
 */
struct nfhp_dump {
	struct nfhp_rule_spec *spec;
	struct nfhp_packed_spec *equal;
	const struct nfhp_chain *chain;
	unsigned int *refs;
	unsigned int gen;
	unsigned int chain_idx;
	unsigned int sent;
	bool chains_only;
	u8 family;
};

/**
 * nfhp_dump_ctx() - the dump state of a callback
 * @cb: the callback
 *
 * Return: the state, zeroed by netlink when the dump starts.
 */
static struct nfhp_dump *nfhp_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct nfhp_dump) > sizeof(cb->ctx));
	return (struct nfhp_dump *)cb->ctx;
}

/**
 * nfhp_put_counter() - add a nested counter attribute
 * @skb: the message
 * @type: NFHPA_COUNTERS or NFHPA_RULE_COUNTERS
 * @c: the counter
 *
 * Return: 0 or -EMSGSIZE.
 */
static int nfhp_put_counter(struct sk_buff *skb, int type,
			    const struct nfhp_counter *c)
{
	struct nlattr *nest = nla_nest_start(skb, type);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, NFHPA_COUNTER_PACKETS, c->packets,
			      NFHPA_COUNTER_PAD) ||
	    nla_put_u64_64bit(skb, NFHPA_COUNTER_BYTES, c->bytes,
			      NFHPA_COUNTER_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * nfhp_put_ranges() - add NFHPA_MATCH_RANGES
 * @skb: the message
 * @dm: the match
 *
 * Return: 0 or -EMSGSIZE.
 */
static int nfhp_put_ranges(struct sk_buff *skb,
			   const struct nfhp_dim_match *dm)
{
	unsigned int i, n = dm->form == NFHP_FORM_RANGES ? dm->nranges : 1;
	struct nfhp_uapi_range *u;
	struct nlattr *attr;

	if (WARN_ON_ONCE(n > NFHP_MAX_RANGES))
		return -EINVAL;
	attr = nla_reserve(skb, NFHPA_MATCH_RANGES, n * sizeof(*u));
	if (!attr)
		return -EMSGSIZE;
	u = nla_data(attr);
	for (i = 0; i < n; i++) {
		nfhp_u128_put(dm->ranges[i].lo, u[i].lo);
		nfhp_u128_put(dm->ranges[i].hi, u[i].hi);
	}
	return 0;
}

/**
 * nfhp_put_match() - add one NFHPA_RULE_MATCH
 * @skb: the message
 * @dm: the match
 *
 * Return: 0 or -errno.
 */
static int nfhp_put_match(struct sk_buff *skb,
			  const struct nfhp_dim_match *dm)
{
	struct nlattr *nest = nla_nest_start(skb, NFHPA_RULE_MATCH);
	int ret = -EMSGSIZE;

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, NFHPA_MATCH_DIM, dm->dim) ||
	    nla_put_u8(skb, NFHPA_MATCH_FORM, dm->form) ||
	    nla_put_u8(skb, NFHPA_MATCH_SYNTAX, dm->syntax) ||
	    (dm->invert && nla_put_flag(skb, NFHPA_MATCH_INVERT)))
		goto err_cancel;
	if (dm->form == NFHP_FORM_IFNAME) {
		if (nla_put_string(skb, NFHPA_MATCH_IFNAME, dm->ifname))
			goto err_cancel;
	} else {
		ret = nfhp_put_ranges(skb, dm);
		if (ret)
			goto err_cancel;
		ret = -EMSGSIZE;
		if (dm->form == NFHP_FORM_PREFIX &&
		    nla_put_u8(skb, NFHPA_MATCH_PREFIXLEN, dm->nranges))
			goto err_cancel;
	}
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return ret;
}

/**
 * nfhp_put_rule() - add NFHPA_RULE
 * @skb: the message
 * @spec: the rule
 * @c: its counter
 *
 * Return: 0 or -errno.
 */
static int nfhp_put_rule(struct sk_buff *skb,
			 const struct nfhp_rule_spec *spec,
			 const struct nfhp_counter *c)
{
	struct nlattr *nest = nla_nest_start(skb, NFHPA_RULE);
	unsigned int i;
	int ret;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < spec->nmatch; i++) {
		ret = nfhp_put_match(skb, &spec->m[i]);
		if (ret)
			goto err_cancel;
	}
	ret = -EMSGSIZE;
	if (nla_put_u8(skb, NFHPA_RULE_ACTION, spec->action))
		goto err_cancel;
	if ((spec->action == NFHP_ACT_JUMP || spec->action == NFHP_ACT_GOTO) &&
	    nla_put_string(skb, NFHPA_RULE_TARGET, spec->target))
		goto err_cancel;
	if (spec->comment[0] &&
	    nla_put_string(skb, NFHPA_RULE_COMMENT, spec->comment))
		goto err_cancel;
	if (spec->norder && nla_put(skb, NFHPA_RULE_ORDER, spec->norder,
				    spec->order))
		goto err_cancel;
	if (spec->ext_len && nla_put(skb, NFHPA_RULE_XT | NLA_F_NESTED,
				     spec->ext_len, spec->ext))
		goto err_cancel;
	if (nfhp_setm_put_all(skb, spec) || nfhp_rstate_put(skb, spec))
		goto err_cancel;
	ret = nfhp_put_counter(skb, NFHPA_RULE_COUNTERS, c);
	if (ret)
		goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return ret;
}

/**
 * nfhp_dump_start_msg() - start one message of a LIST dump
 * @skb: the dump buffer
 * @cb: the callback
 * @chain: the chain the message is about
 *
 * Return: the genetlink header, or NULL when @skb is full.
 */
static void *nfhp_dump_start_msg(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 const struct nfhp_chain *chain)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &nfhp_family, NLM_F_MULTI, NFHP_CMD_LIST);
	if (!hdr)
		return NULL;
	genl_dump_check_consistent(cb, hdr);
	if (nla_put_string(skb, NFHPA_CHAIN, nfhp_chain_name(chain))) {
		genlmsg_cancel(skb, hdr);
		return NULL;
	}
	return hdr;
}

/**
 * nfhp_dump_chain() - add the header message of a chain to a dump
 * @skb: the dump buffer
 * @cb: the callback
 * @chain: the chain
 * @refs: the rules that jump or go to it
 *
 * Return: 0 or -EMSGSIZE.
 */
static int nfhp_dump_chain(struct sk_buff *skb, struct netlink_callback *cb,
			   const struct nfhp_chain *chain, unsigned int refs)
{
	struct nfhp_counter c;
	void *hdr;

	hdr = nfhp_dump_start_msg(skb, cb, chain);
	if (!hdr)
		return -EMSGSIZE;
	nfhp_chain_policy_counter(chain, &c);
	if ((nfhp_chain_builtin(chain) &&
	     nla_put_u8(skb, NFHPA_POLICY, nfhp_chain_get_policy(chain))) ||
	    nfhp_put_counter(skb, NFHPA_COUNTERS, &c) ||
	    nla_put_u32(skb, NFHPA_REFS, refs)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * nfhp_dump_rule() - add the message of one rule to a dump
 * @skb: the dump buffer
 * @cb: the callback
 * @chain: the chain of the rule
 * @rule: the rule
 * @pos: its 1-based position
 *
 * Return: 0 or -errno.
 */
static int nfhp_dump_rule(struct sk_buff *skb, struct netlink_callback *cb,
			  const struct nfhp_chain *chain,
			  const struct nfhp_rule *rule, unsigned int pos)
{
	struct nfhp_dump *d = nfhp_dump_ctx(cb);
	struct nfhp_counter c;
	void *hdr;
	int ret;

	ret = nfhp_rule_get_spec(rule, d->spec);
	if (ret)
		return ret;
	nfhp_rule_counter(rule, &c);
	hdr = nfhp_dump_start_msg(skb, cb, chain);
	if (!hdr)
		return -EMSGSIZE;
	ret = -EMSGSIZE;
	if (nla_put_u32(skb, NFHPA_POS, pos))
		goto err_cancel;
	ret = nfhp_put_rule(skb, d->spec, &c);
	if (ret)
		goto err_cancel;
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return ret;
}

/**
 * nfhp_dump_seek() - find the chain where the dump stopped
 * @rs: the rule set, its mutex held
 * @d: the dump state
 * @gen: the current generation of @rs
 *
 * While nothing changed, the chain kept from the previous round is still
 * valid.  After a change the dump goes on by index; its messages carry
 * NLM_F_DUMP_INTR then.  The references of the chains are counted for all
 * of them at once, in the first round and after a change: counted chain
 * by chain, a listing of kube.py's 5000 chains went over its 10,000 rules
 * 5000 times.
 */
static void nfhp_dump_seek(const struct nfhp_ruleset *rs,
			   struct nfhp_dump *d, unsigned int gen)
{
	unsigned int i;

	if (d->gen == gen)
		return;
	d->chain = nfhp_chain_first(rs);
	for (i = 0; d->chain && i < d->chain_idx; i++)
		d->chain = nfhp_chain_next(rs, d->chain);
	d->gen = gen;
	kvfree(d->refs);
	d->refs = kvmalloc_array(nfhp_chain_count(rs), sizeof(*d->refs),
				 GFP_KERNEL);
	if (d->refs)
		nfhp_chain_refs_all(rs, d->refs);
}

/**
 * nfhp_dump_chains() - fill one dump buffer
 * @skb: the dump buffer
 * @cb: the callback
 * @rs: the rule set, its mutex held
 * @only: the chain to list, or NULL for all
 *
 * Return: 0 when all is sent, -EMSGSIZE when the buffer is full, or
 * another -errno.
 */
static int nfhp_dump_chains(struct sk_buff *skb, struct netlink_callback *cb,
			    const struct nfhp_ruleset *rs, const char *only)
{
	struct nfhp_dump *d = nfhp_dump_ctx(cb);
	const struct nfhp_rule *rule;
	int ret;

	for (; d->chain; d->chain = nfhp_chain_next(rs, d->chain),
	     d->chain_idx++, d->sent = 0) {
		if (only && strcmp(nfhp_chain_name(d->chain), only))
			continue;
		if (!d->sent) {
			ret = nfhp_dump_chain(skb, cb, d->chain,
					      d->refs ? d->refs[d->chain_idx] :
					      nfhp_chain_refs(d->chain));
			if (ret)
				return ret;
			d->sent = 1;
		}
		while (!d->chains_only &&
		       (rule = nfhp_rule_at(d->chain, d->sent))) {
			if (!d->equal || nfhp_rule_is(rule, d->equal)) {
				ret = nfhp_dump_rule(skb, cb, d->chain, rule,
						     d->sent);
				if (ret)
					return ret;
			}
			d->sent++;
		}
	}
	return 0;
}

/**
 * nfhp_nl_list() - NFHP_CMD_LIST: list chains and rules
 * @skb: the dump buffer
 * @cb: the callback
 *
 * Called until it returns 0.  Each round takes the namespace's mutex and
 * sends as many messages as fit.
 *
 * Return: the length of @skb, 0 at the end, or -errno.
 */
static int nfhp_nl_list(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nfhp_net *hn = nfhp_net(sock_net(cb->skb->sk));
	struct nlattr *only = info->attrs[NFHPA_CHAIN];
	struct nfhp_dump *d = nfhp_dump_ctx(cb);
	const struct nfhp_ruleset *rs;
	int ret;

	rs = nfhp_net_fam(hn, d->family)->rs;
	mutex_lock(&hn->lock);
	cb->seq = hn->gen;
	nfhp_dump_seek(rs, d, hn->gen);
	ret = nfhp_dump_chains(skb, cb, rs, only ? nla_data(only) : NULL);
	mutex_unlock(&hn->lock);

	/* A full buffer is no error, unless not even one message fitted. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ? ret : skb->len;
}

/**
 * nfhp_dump_equal() - the rule a LIST with NFHPA_RULE lists the equals of
 * @d: the dump state, @d->spec allocated
 * @family: the &enum nfhp_family of the rule set
 * @attr: NFHPA_RULE, validated
 *
 * Packed as nfhp_rule_delete_spec() packs the rule it looks for, so that
 * the rules listed are those a delete by rule would take (-C asks so
 * instead of reading the whole chain).  Its counters are ignored.
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
static int nfhp_dump_equal(struct nfhp_dump *d, u8 family,
			   const struct nlattr *attr)
{
	struct nfhp_mem scratch = { .limit = ~0ull };
	struct nfhp_packed_spec *p;
	struct nfhp_counter c;
	int ret;

	ret = nfhp_rule_decode(family, d->spec, &c, attr, NULL);
	if (ret)
		return ret;
	ret = nfhp_spec_pack(&scratch, d->spec, &p);
	if (ret)
		return ret;
	d->equal = kmemdup(p, p->size, GFP_KERNEL);
	nfhp_free(&scratch, p, p->size);
	return d->equal ? 0 : -ENOMEM;
}

/**
 * nfhp_nl_list_start() - set up a LIST dump
 * @cb: the callback
 *
 * The rules and their counters tell what the firewall lets through: as
 * for iptables and nft, listing them needs CAP_NET_ADMIN in the user
 * namespace of the socket's network namespace, like the changes
 * (GENL_UNS_ADMIN_PERM), unless root opened reading up in that namespace
 * (/proc/net/nf-hipac/world_readable).  The flag cannot say "unless", so
 * the check is here, with the socket's credentials as genetlink's.
 *
 * Return: 0, -EPERM, -ENOENT if the chain asked for does not exist,
 * -EINVAL for a malformed NFHPA_RULE, or -ENOMEM.
 */
static int nfhp_nl_list_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct net *net = sock_net(cb->skb->sk);
	struct nfhp_net *hn = nfhp_net(net);
	struct nlattr *only = info->attrs[NFHPA_CHAIN];
	struct nlattr *flags = info->attrs[NFHPA_LIST_FLAGS];
	struct nfhp_dump *d = nfhp_dump_ctx(cb);
	struct nfhp_fam *fam;
	bool found = true;

	if (!nfhp_net_world_readable(hn) &&
	    !netlink_ns_capable(cb->skb, net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	/* netlink gives start() no extack: the errno must do. */
	fam = nfhp_request_fam(hn, info->attrs, NULL);
	if (!fam)
		return -EAFNOSUPPORT;
	d->family = fam->family;
	d->chains_only = flags &&
			 (nla_get_u32(flags) & NFHP_LIST_CHAINS_ONLY);
	if (only) {
		mutex_lock(&hn->lock);
		found = nfhp_chain_find(fam->rs, nla_data(only));
		mutex_unlock(&hn->lock);
	}
	/* netlink gives start() no extack: the errno must do. */
	if (!found)
		return -ENOENT;
	/*
	 * nfhp_spec_unpack() writes only what a rule uses and only that is
	 * sent; zeroed once, the rest holds nothing of the kernel's anyway.
	 */
	d->spec = kzalloc(sizeof(*d->spec), GFP_KERNEL);
	if (!d->spec)
		return -ENOMEM;
	if (info->attrs[NFHPA_RULE]) {
		int ret = nfhp_dump_equal(d, fam->family,
					  info->attrs[NFHPA_RULE]);

		/* A dump that does not start is not done(). */
		if (ret) {
			kfree(d->spec);
			d->spec = NULL;
			return ret;
		}
	}
	return 0;
}

/**
 * nfhp_nl_list_done() - tear down a LIST dump
 * @cb: the callback
 *
 * Return: 0.
 */
static int nfhp_nl_list_done(struct netlink_callback *cb)
{
	struct nfhp_dump *d = nfhp_dump_ctx(cb);

	kvfree(d->refs);
	kfree(d->equal);
	kfree(d->spec);
	return 0;
}

static const struct genl_ops nfhp_ops[] = {
	{ .cmd = NFHP_CMD_APPEND, .doit = nfhp_nl_change,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_INSERT, .doit = nfhp_nl_change,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_DELETE, .doit = nfhp_nl_change,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_REPLACE, .doit = nfhp_nl_change,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_FLUSH, .doit = nfhp_nl_change,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_NEW_CHAIN, .doit = nfhp_nl_change,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_DEL_CHAIN, .doit = nfhp_nl_change,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_RENAME_CHAIN, .doit = nfhp_nl_change,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_POLICY, .doit = nfhp_nl_change,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_ZERO, .doit = nfhp_nl_change,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_LIST, .start = nfhp_nl_list_start,
	  .dumpit = nfhp_nl_list, .done = nfhp_nl_list_done },
	{ .cmd = NFHP_CMD_BEGIN, .doit = nfhp_nl_begin,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_COMMIT, .doit = nfhp_nl_end,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_ABORT, .doit = nfhp_nl_end,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_SET_NEW, .doit = nfhp_nl_set_new,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_SET_DEL, .doit = nfhp_nl_set_del,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_SET_FLUSH, .doit = nfhp_nl_set_flush,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_SET_SWAP, .doit = nfhp_nl_set_swap,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_SET_MODIFY, .doit = nfhp_nl_set_modify,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_SET_ADD, .doit = nfhp_nl_set_entries,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_SET_REMOVE, .doit = nfhp_nl_set_entries,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_SET_TEST, .doit = nfhp_nl_set_test,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_SET_LIST, .start = nfhp_nl_set_list_start,
	  .dumpit = nfhp_nl_set_list },
	{ .cmd = NFHP_CMD_STATE_LIST, .start = nfhp_nl_state_list_start,
	  .dumpit = nfhp_nl_state_list, .done = nfhp_nl_state_list_done },
	{ .cmd = NFHP_CMD_STATE_DEL, .doit = nfhp_nl_state_del,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_STATE_FLUSH, .doit = nfhp_nl_state_flush,
	  .flags = GENL_UNS_ADMIN_PERM },
	{ .cmd = NFHP_CMD_STATE_ADD, .doit = nfhp_nl_state_add,
	  .flags = GENL_UNS_ADMIN_PERM },
};

static const struct genl_multicast_group nfhp_mcgrps[] = {
	[NFHP_MCGRP_STATES_IDX] = { .name = NFHP_MCGRP_STATES,
				    .flags = GENL_MCAST_CAP_NET_ADMIN },
};

static struct genl_family nfhp_family __ro_after_init = {
	.name = NFHP_GENL_NAME,
	.version = NFHP_GENL_VERSION,
	.maxattr = NFHPA_MAX,
	.policy = nfhp_policy,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = nfhp_ops,
	.n_ops = ARRAY_SIZE(nfhp_ops),
	.mcgrps = nfhp_mcgrps,
	.n_mcgrps = ARRAY_SIZE(nfhp_mcgrps),
};

/**
 * nfhp_genl_family() - the family, for the replies of other files
 *
 * Return: the registered family.
 */
const struct genl_family *nfhp_genl_family(void)
{
	return &nfhp_family;
}

/**
 * nfhp_netlink_release() - abort the transaction of a closing socket
 * @nb: the notifier block
 * @event: NETLINK_URELEASE and others
 * @ptr: a &struct netlink_notify
 *
 * Return: NOTIFY_DONE.
 */
static int nfhp_netlink_release(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	const struct netlink_notify *n = ptr;
	struct nfhp_net *hn;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	hn = nfhp_net(n->net);
	mutex_lock(&hn->lock);
	if (hn->txn_open && hn->txn_owner == n->portid)
		nfhp_txn_drop(hn);
	mutex_unlock(&hn->lock);
	return NOTIFY_DONE;
}

static struct notifier_block nfhp_netlink_notifier = {
	.notifier_call = nfhp_netlink_release,
};

/**
 * nfhp_genetlink_init() - register the family and the socket notifier
 *
 * Return: 0 or -errno.
 */
int nfhp_genetlink_init(void)
{
	int ret;

	/* The wire format of a range is part of the ABI. */
	BUILD_BUG_ON(sizeof(struct nfhp_uapi_range) != 32);
	BUILD_BUG_ON(NFHP_MAX_RANGES * sizeof(struct nfhp_uapi_range) >
		     U16_MAX);
	BUILD_BUG_ON(ARRAY_SIZE(((struct nfhp_dim_match *)0)->ranges) !=
		     NFHP_MAX_RANGES);
	BUILD_BUG_ON(sizeof(((struct nfhp_rule_spec *)0)->target) !=
		     NFHP_CHAIN_MAXNAMELEN);

	ret = netlink_register_notifier(&nfhp_netlink_notifier);
	if (ret)
		goto err_notifier;
	ret = genl_register_family(&nfhp_family);
	if (ret)
		goto err_family;
	nfhp_state_events_enable(true);
	return 0;

err_family:
	netlink_unregister_notifier(&nfhp_netlink_notifier);
err_notifier:
	return ret;
}

/**
 * nfhp_genetlink_uninit() - unregister the family and the notifier
 */
void nfhp_genetlink_uninit(void)
{
	/* The states live on until the namespaces go: no event after this. */
	nfhp_state_events_enable(false);
	genl_unregister_family(&nfhp_family);
	netlink_unregister_notifier(&nfhp_netlink_notifier);
}
