// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the netlink commands of named sets (NFHP_CMD_SET_*), and the
 * set matches of a rule on the wire (NFHPA_RULE_SETM).
 *
 * Every command runs under the namespace's mutex, as the rule commands
 * do; the contract is in include/uapi/linux/nf_hipac.h.
 */
#include <linux/kernel.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "netlink.h"
#include "pernet.h"
#include "set.h"
#include "set_iface.h"
#include "set_netlink.h"

/* Marks a test's result for nfhp_put_sete(): its value goes with it. */
#define NFHP_SET_TEST_RESULT	0x100

static const struct nla_policy nfhp_sete_policy[NFHPA_SETE_MAX + 1] = {
	[NFHPA_SETE_ADDR] = NLA_POLICY_EXACT_LEN(16),
	[NFHPA_SETE_PLEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[NFHPA_SETE_VALUE] = { .type = NLA_U32 },
	[NFHPA_SETE_RESULT] = { .type = NLA_REJECT,
				.reject_message = "results are the kernel's" },
	[NFHPA_SETE_NUM_LO] = { .type = NLA_U32 },
	[NFHPA_SETE_NUM_HI] = { .type = NLA_U32 },
	[NFHPA_SETE_PROTO] = NLA_POLICY_MIN(NLA_U8, 1),
	[NFHPA_SETE_PORT] = { .type = NLA_U16 },
	[NFHPA_SETE_IFACE] = { .type = NLA_NUL_STRING,
			       .len = NFHP_IFACE_MAXLEN },
	[NFHPA_SETE_PACKETS] = { .type = NLA_U64 },
	[NFHPA_SETE_BYTES] = { .type = NLA_U64 },
	[NFHPA_SETE_FLAGS] = NLA_POLICY_MASK(NLA_U32, NFHP_SETE_F_NOMATCH),
};

const struct nla_policy nfhp_set_policy[NFHPA_SET_MAX + 1] = {
	[NFHPA_SET_NAME] = { .type = NLA_NUL_STRING,
			     .len = NFHP_SET_MAXNAMELEN - 1 },
	[NFHPA_SET_OTHER] = { .type = NLA_NUL_STRING,
			      .len = NFHP_SET_MAXNAMELEN - 1 },
	[NFHPA_SET_TYPE] = NLA_POLICY_RANGE(NLA_U8, NFHP_SET_ADDR,
					    NFHP_SET_IFACE),
	[NFHPA_SET_ALGO] = { .type = NLA_NUL_STRING, .len = 15 },
	[NFHPA_SET_LIMIT] = { .type = NLA_U32 },
	[NFHPA_SET_FLAGS] = NLA_POLICY_MASK(NLA_U32, NFHP_SET_F_LOCKED |
					    NFHP_SET_F_UPDATE |
					    NFHP_SET_F_EXIST |
					    NFHP_SET_F_COUNTERS),
	[NFHPA_SET_ENTRY] = NLA_POLICY_NESTED(nfhp_sete_policy),
	[NFHPA_SET_COUNT] = { .type = NLA_REJECT },
	[NFHPA_SET_MEMORY] = { .type = NLA_REJECT },
	[NFHPA_SET_REFS] = { .type = NLA_REJECT },
	[NFHPA_SET_RANGE_LO] = { .type = NLA_U32 },
	[NFHPA_SET_RANGE_HI] = { .type = NLA_U32 },
};

const struct nla_policy nfhp_setm_policy[NFHPA_SETM_MAX + 1] = {
	[NFHPA_SETM_NAME] = { .type = NLA_NUL_STRING,
			      .len = NFHP_SET_MAXNAMELEN - 1 },
	[NFHPA_SETM_DIR] = NLA_POLICY_MAX(NLA_U8, NFHP_SETM_DPORT),
	[NFHPA_SETM_INVERT] = { .type = NLA_FLAG },
	[NFHPA_SETM_VALUE_MIN] = { .type = NLA_U32 },
	[NFHPA_SETM_VALUE_MAX] = { .type = NLA_U32 },
	[NFHPA_SETM_DIR2] = NLA_POLICY_MAX(NLA_U8, NFHP_SETM_DPORT),
	[NFHPA_SETM_FLAGS] = NLA_POLICY_MASK(NLA_U32, NFHP_SETM_F_NO_COUNT),
	[NFHPA_SETM_PACKETS_CMP] = NLA_POLICY_RANGE(NLA_U8, NFHP_SETM_CMP_EQ,
						    NFHP_SETM_CMP_GT),
	[NFHPA_SETM_PACKETS] = { .type = NLA_U64 },
	[NFHPA_SETM_BYTES_CMP] = NLA_POLICY_RANGE(NLA_U8, NFHP_SETM_CMP_EQ,
						  NFHP_SETM_CMP_GT),
	[NFHPA_SETM_BYTES] = { .type = NLA_U64 },
	[NFHPA_SETM_PAD] = { .type = NLA_REJECT },
};

/**
 * nfhp_setm_decode_cmp() - decode a set match's compare of one count
 * @cmp_attr: NFHPA_SETM_PACKETS_CMP or _BYTES_CMP, or NULL
 * @num_attr: NFHPA_SETM_PACKETS or _BYTES, or NULL
 * @cmp: set to the compare, %NFHP_SETM_CMP_NONE without one
 * @n: set to its number
 * @extack: for the reason
 *
 * Return: 0, or -EINVAL for one attribute without the other.
 */
static int nfhp_setm_decode_cmp(const struct nlattr *cmp_attr,
				const struct nlattr *num_attr, u8 *cmp, u64 *n,
				struct netlink_ext_ack *extack)
{
	if (!cmp_attr != !num_attr) {
		NL_SET_ERR_MSG_ATTR(extack, cmp_attr ?: num_attr,
				    "a compare of counts needs its number");
		return -EINVAL;
	}
	*cmp = cmp_attr ? nla_get_u8(cmp_attr) : NFHP_SETM_CMP_NONE;
	*n = num_attr ? nla_get_u64(num_attr) : 0;
	return 0;
}

/**
 * nfhp_setm_decode() - decode one NFHPA_RULE_SETM into a rule
 * @spec: the rule, its set matches so far in @spec->nsetm
 * @attr: the attribute, validated against nfhp_setm_policy
 * @extack: for the reason
 *
 * Return: 0 or -EINVAL.
 */
int nfhp_setm_decode(struct nfhp_rule_spec *spec, const struct nlattr *attr,
		     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[NFHPA_SETM_MAX + 1];
	struct nfhp_setm_spec *m;
	int ret;

	if (spec->nsetm >= NFHP_MAX_SETM) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "too many set matches");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, NFHPA_SETM_MAX, attr, nfhp_setm_policy,
			       extack);
	if (ret)
		return ret;
	if (!tb[NFHPA_SETM_NAME] || !tb[NFHPA_SETM_DIR]) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "a set match needs a set and a direction");
		return -EINVAL;
	}
	m = &spec->setm[spec->nsetm];
	m->has_value = tb[NFHPA_SETM_VALUE_MIN] || tb[NFHPA_SETM_VALUE_MAX];
	if (m->has_value) {
		if (!tb[NFHPA_SETM_VALUE_MIN] || !tb[NFHPA_SETM_VALUE_MAX]) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "a value range needs both ends");
			return -EINVAL;
		}
		m->value_min = nla_get_u32(tb[NFHPA_SETM_VALUE_MIN]);
		m->value_max = nla_get_u32(tb[NFHPA_SETM_VALUE_MAX]);
		if (m->value_min > m->value_max) {
			NL_SET_ERR_MSG_ATTR(extack, tb[NFHPA_SETM_VALUE_MIN],
					    "the value range is empty");
			return -EINVAL;
		}
	}
	ret = nfhp_setm_decode_cmp(tb[NFHPA_SETM_PACKETS_CMP],
				   tb[NFHPA_SETM_PACKETS], &m->packets_cmp,
				   &m->packets, extack) ?:
	      nfhp_setm_decode_cmp(tb[NFHPA_SETM_BYTES_CMP],
				   tb[NFHPA_SETM_BYTES], &m->bytes_cmp,
				   &m->bytes, extack);
	if (ret)
		return ret;
	m->no_count = tb[NFHPA_SETM_FLAGS] &&
		      nla_get_u32(tb[NFHPA_SETM_FLAGS]) & NFHP_SETM_F_NO_COUNT;
	nla_strscpy(m->name, tb[NFHPA_SETM_NAME], sizeof(m->name));
	m->dir = nla_get_u8(tb[NFHPA_SETM_DIR]);
	m->has_dir2 = !!tb[NFHPA_SETM_DIR2];
	m->dir2 = m->has_dir2 ? nla_get_u8(tb[NFHPA_SETM_DIR2]) : 0;
	m->invert = nla_get_flag(tb[NFHPA_SETM_INVERT]);
	spec->nsetm++;
	return 0;
}

/**
 * nfhp_setm_put_all() - add the NFHPA_RULE_SETM of a rule
 * @skb: the message, inside NFHPA_RULE
 * @spec: the rule
 *
 * Return: 0 or -EMSGSIZE.
 */
int nfhp_setm_put_all(struct sk_buff *skb, const struct nfhp_rule_spec *spec)
{
	const struct nfhp_setm_spec *m;
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < nfhp_spec_nsetm(spec); i++) {
		m = &spec->setm[i];
		nest = nla_nest_start(skb, NFHPA_RULE_SETM);
		if (!nest ||
		    nla_put_string(skb, NFHPA_SETM_NAME, m->name) ||
		    nla_put_u8(skb, NFHPA_SETM_DIR, m->dir) ||
		    (m->has_dir2 && nla_put_u8(skb, NFHPA_SETM_DIR2, m->dir2)) ||
		    (m->invert && nla_put_flag(skb, NFHPA_SETM_INVERT)) ||
		    (m->has_value &&
		     (nla_put_u32(skb, NFHPA_SETM_VALUE_MIN, m->value_min) ||
		      nla_put_u32(skb, NFHPA_SETM_VALUE_MAX, m->value_max))) ||
		    (m->no_count &&
		     nla_put_u32(skb, NFHPA_SETM_FLAGS, NFHP_SETM_F_NO_COUNT)) ||
		    (m->packets_cmp &&
		     (nla_put_u8(skb, NFHPA_SETM_PACKETS_CMP, m->packets_cmp) ||
		      nla_put_u64_64bit(skb, NFHPA_SETM_PACKETS, m->packets,
					NFHPA_SETM_PAD))) ||
		    (m->bytes_cmp &&
		     (nla_put_u8(skb, NFHPA_SETM_BYTES_CMP, m->bytes_cmp) ||
		      nla_put_u64_64bit(skb, NFHPA_SETM_BYTES, m->bytes,
					NFHPA_SETM_PAD))))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/* The NFHPA_SET of a request, split; -EINVAL when it is absent. */
static int nfhp_set_attrs(struct genl_info *info, struct nlattr **tb)
{
	if (!info->attrs[NFHPA_SET]) {
		NL_SET_ERR_MSG(info->extack, "NFHPA_SET is missing");
		return -EINVAL;
	}
	return nla_parse_nested(tb, NFHPA_SET_MAX, info->attrs[NFHPA_SET],
				nfhp_set_policy, info->extack);
}

/*
 * The set the attribute @attr of @tb names, as the writers see it, or as
 * packets do when @committed; NULL and an error message for none.
 */
static struct nfhp_set *nfhp_set_named(struct nfhp_net *hn,
				       struct nlattr **tb, int attr,
				       bool committed,
				       struct netlink_ext_ack *extack)
{
	struct nfhp_set *set;

	if (!tb[attr]) {
		NL_SET_ERR_MSG(extack, "the set's name is missing");
		return NULL;
	}
	if (committed)
		set = nfhp_set_find_committed(&hn->sets, nla_data(tb[attr]));
	else
		set = nfhp_set_find(&hn->sets, nla_data(tb[attr]));
	if (!set)
		NL_SET_ERR_MSG_ATTR(extack, tb[attr], "no set of that name");
	return set;
}

/*
 * Take @hn's mutex for a writer of sets.  While another socket has a
 * transaction open its commit would undo the change: -EBUSY, as for
 * rules.
 */
static int nfhp_set_write_lock(struct nfhp_net *hn, struct genl_info *info)
{
	mutex_lock(&hn->lock);
	if (!nfhp_txn_foreign(hn, info))
		return 0;
	mutex_unlock(&hn->lock);
	return -EBUSY;
}

static u8 nfhp_request_family(struct genl_info *info)
{
	return info->attrs[NFHPA_FAMILY] ?
	       nla_get_u8(info->attrs[NFHPA_FAMILY]) : NFHP_FAMILY_IPV4;
}

/* A number set's range: both ends or neither.  0 or -EINVAL. */
static int nfhp_set_range_get(struct nlattr **tb, struct nfhp_set_spec *spec,
			      struct netlink_ext_ack *extack)
{
	if (!tb[NFHPA_SET_RANGE_LO] && !tb[NFHPA_SET_RANGE_HI])
		return 0;
	if (!tb[NFHPA_SET_RANGE_LO] || !tb[NFHPA_SET_RANGE_HI]) {
		NL_SET_ERR_MSG(extack, "a range needs both of its ends");
		return -EINVAL;
	}
	spec->range_lo = nla_get_u32(tb[NFHPA_SET_RANGE_LO]);
	spec->range_hi = nla_get_u32(tb[NFHPA_SET_RANGE_HI]);
	return 0;
}

int nfhp_nl_set_new(struct sk_buff *skb, struct genl_info *info)
{
	struct nfhp_net *hn = nfhp_net(genl_info_net(info));
	struct nlattr *tb[NFHPA_SET_MAX + 1];
	const struct nfhp_set_algo *algo;
	u8 family = nfhp_request_family(info);
	struct nfhp_set_spec spec;
	const char *msg = NULL;
	int ret;

	ret = nfhp_set_attrs(info, tb);
	if (ret)
		return ret;
	if (!tb[NFHPA_SET_NAME] || !tb[NFHPA_SET_TYPE] || !tb[NFHPA_SET_ALGO]) {
		NL_SET_ERR_MSG(info->extack,
			       "a set needs a name, a type and an algorithm");
		return -EINVAL;
	}
	if (!nfhp_net_fam(hn, family)) {
		NL_SET_ERR_MSG(info->extack, "no such address family");
		return -EAFNOSUPPORT;
	}
	algo = nfhp_set_algo_find(nla_get_u8(tb[NFHPA_SET_TYPE]),
				  nla_data(tb[NFHPA_SET_ALGO]));
	if (!algo) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[NFHPA_SET_ALGO],
				    "no such algorithm for the set's type");
		return -EINVAL;
	}
	nfhp_set_spec_init(&spec, family, algo);
	if (tb[NFHPA_SET_LIMIT])
		spec.limit = nla_get_u32(tb[NFHPA_SET_LIMIT]);
	if (tb[NFHPA_SET_FLAGS])
		spec.flags = nla_get_u32(tb[NFHPA_SET_FLAGS]);
	ret = nfhp_set_range_get(tb, &spec, info->extack);
	if (ret)
		return ret;
	ret = nfhp_set_write_lock(hn, info);
	if (ret)
		return ret;
	ret = nfhp_set_create(&hn->sets, nla_data(tb[NFHPA_SET_NAME]), &spec,
			      &msg);
	mutex_unlock(&hn->lock);
	nfhp_set_msg(info->extack, msg);
	return ret;
}

/*
 * Give back what rules freed after a grace period still hold: a set whose
 * last rule was just deleted is free to go, as with iptables and ipset.
 */
static void nfhp_sets_settle(struct nfhp_net *hn)
{
	unsigned int i;

	for (i = 0; i < NFHP_FAM_MAX; i++)
		nfhp_ruleset_release(hn->fam[i].rs, true);
}

int nfhp_nl_set_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nfhp_net *hn = nfhp_net(genl_info_net(info));
	struct nlattr *tb[NFHPA_SET_MAX + 1] = {};
	const char *msg = NULL, *name;
	int ret = 0;

	if (info->attrs[NFHPA_SET])
		ret = nfhp_set_attrs(info, tb);
	if (ret)
		return ret;
	name = tb[NFHPA_SET_NAME] ? nla_data(tb[NFHPA_SET_NAME]) : NULL;
	ret = nfhp_set_write_lock(hn, info);
	if (ret)
		return ret;
	ret = nfhp_set_destroy(&hn->sets, name, &msg);
	if (ret == -EBUSY) {
		nfhp_sets_settle(hn);
		ret = nfhp_set_destroy(&hn->sets, name, &msg);
	}
	nfhp_net_sets_changed(hn);
	mutex_unlock(&hn->lock);
	if (ret)
		nfhp_set_msg(info->extack, msg);
	return ret;
}

int nfhp_nl_set_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct nfhp_net *hn = nfhp_net(genl_info_net(info));
	struct nlattr *tb[NFHPA_SET_MAX + 1] = {};
	struct nfhp_set *set;
	int ret = 0;

	if (info->attrs[NFHPA_SET])
		ret = nfhp_set_attrs(info, tb);
	if (ret)
		return ret;
	ret = nfhp_set_write_lock(hn, info);
	if (ret)
		return ret;
	if (tb[NFHPA_SET_NAME]) {
		set = nfhp_set_named(hn, tb, NFHPA_SET_NAME, false,
				     info->extack);
		ret = set ? nfhp_set_flush(&hn->sets, set) : -ENOENT;
	} else {
		for (set = hn->sets.first; set && !ret; set = set->next)
			if (!set->destroyed)
				ret = nfhp_set_flush(&hn->sets, set);
	}
	nfhp_net_sets_changed(hn);
	mutex_unlock(&hn->lock);
	return ret;
}

int nfhp_nl_set_swap(struct sk_buff *skb, struct genl_info *info)
{
	struct nfhp_net *hn = nfhp_net(genl_info_net(info));
	struct nlattr *tb[NFHPA_SET_MAX + 1];
	struct nfhp_set *a, *b;
	const char *msg = NULL;
	int ret;

	ret = nfhp_set_attrs(info, tb);
	if (ret)
		return ret;
	ret = nfhp_set_write_lock(hn, info);
	if (ret)
		return ret;
	a = nfhp_set_named(hn, tb, NFHPA_SET_NAME, false, info->extack);
	b = a ? nfhp_set_named(hn, tb, NFHPA_SET_OTHER, false, info->extack) :
		NULL;
	ret = b ? nfhp_set_swap(&hn->sets, a, b, &msg) : -ENOENT;
	mutex_unlock(&hn->lock);
	nfhp_set_msg(info->extack, msg);
	return ret;
}

int nfhp_nl_set_modify(struct sk_buff *skb, struct genl_info *info)
{
	struct nfhp_net *hn = nfhp_net(genl_info_net(info));
	struct nlattr *tb[NFHPA_SET_MAX + 1];
	bool locked, *lockedp = NULL;
	u32 limit, *limitp = NULL;
	struct nfhp_set *set;
	int ret;

	ret = nfhp_set_attrs(info, tb);
	if (ret)
		return ret;
	if (tb[NFHPA_SET_LIMIT]) {
		limit = nla_get_u32(tb[NFHPA_SET_LIMIT]);
		limitp = &limit;
	}
	if (tb[NFHPA_SET_FLAGS]) {
		locked = nla_get_u32(tb[NFHPA_SET_FLAGS]) & NFHP_SET_F_LOCKED;
		lockedp = &locked;
	}
	ret = nfhp_set_write_lock(hn, info);
	if (ret)
		return ret;
	set = nfhp_set_named(hn, tb, NFHPA_SET_NAME, false, info->extack);
	if (set)
		nfhp_set_modify(&hn->sets, set, limitp, lockedp);
	mutex_unlock(&hn->lock);
	return set ? 0 : -ENOENT;
}

/**
 * nfhp_sete_decode_num() - the key of a number set's entry
 * @tb: the entry's attributes
 * @attr: the entry, for the reason
 * @key: set to NUM_LO, NUM_HI
 * @extack: for the reason
 *
 * The algorithm checks the range against what it holds.
 *
 * Return: 0 or -EINVAL.
 */
static int nfhp_sete_decode_num(struct nlattr **tb, const struct nlattr *attr,
				struct nfhp_set_key *key,
				struct netlink_ext_ack *extack)
{
	if (!tb[NFHPA_SETE_NUM_LO] || tb[NFHPA_SETE_ADDR] ||
	    tb[NFHPA_SETE_PLEN] || tb[NFHPA_SETE_PROTO] ||
	    tb[NFHPA_SETE_PORT]) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "an entry of a number set needs NFHPA_SETE_NUM_LO, and no address");
		return -EINVAL;
	}
	key->addr = nla_get_u32(tb[NFHPA_SETE_NUM_LO]);
	key->plen = 0;
	key->hi = tb[NFHPA_SETE_NUM_HI] ? nla_get_u32(tb[NFHPA_SETE_NUM_HI]) :
					  (u32)key->addr;
	if (key->hi < (u32)key->addr) {
		NL_SET_ERR_MSG_ATTR(extack, tb[NFHPA_SETE_NUM_HI],
				    "the range ends before it begins");
		return -EINVAL;
	}
	return 0;
}

/**
 * nfhp_sete_decode_flow() - the protocol and port of an entry
 * @set: the set it is for
 * @tb: the entry's attributes
 * @attr: the entry, for the reason
 * @key: its protocol and port set, 0 for an address set
 * @extack: for the reason
 *
 * A flow set needs a protocol; an address set takes neither.  The
 * algorithm checks the port against the protocol.
 *
 * Return: 0 or -EINVAL.
 */
static int nfhp_sete_decode_flow(const struct nfhp_set *set,
				 struct nlattr **tb, const struct nlattr *attr,
				 struct nfhp_set_key *key,
				 struct netlink_ext_ack *extack)
{
	bool flow = set->algo->type == NFHP_SET_FLOW;

	if (flow && !tb[NFHPA_SETE_PROTO]) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "an entry of a flow set needs a protocol");
		return -EINVAL;
	}
	if (!flow && (tb[NFHPA_SETE_PROTO] || tb[NFHPA_SETE_PORT])) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "an address set's entry has no protocol or port");
		return -EINVAL;
	}
	key->proto = flow ? nla_get_u8(tb[NFHPA_SETE_PROTO]) : 0;
	key->port = tb[NFHPA_SETE_PORT] ? nla_get_u16(tb[NFHPA_SETE_PORT]) : 0;
	return 0;
}

/**
 * nfhp_sete_decode_iface() - the key of an interface set's entry
 * @tb: the entry's attributes
 * @attr: the entry, for the reason
 * @key: set to the name's key (set_iface.h)
 * @extack: for the reason
 *
 * Return: 0 or -EINVAL.
 */
static int nfhp_sete_decode_iface(struct nlattr **tb,
				  const struct nlattr *attr,
				  struct nfhp_set_key *key,
				  struct netlink_ext_ack *extack)
{
	if (!tb[NFHPA_SETE_IFACE] || tb[NFHPA_SETE_ADDR] ||
	    tb[NFHPA_SETE_PLEN] || tb[NFHPA_SETE_NUM_LO] ||
	    tb[NFHPA_SETE_NUM_HI] || tb[NFHPA_SETE_PROTO] ||
	    tb[NFHPA_SETE_PORT]) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "an entry of an interface set needs NFHPA_SETE_IFACE, and no address, number, protocol or port");
		return -EINVAL;
	}
	if (!nfhp_iface_key_parse(nla_data(tb[NFHPA_SETE_IFACE]), &key->addr,
				  &key->plen)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[NFHPA_SETE_IFACE],
				    "an interface name has 1 to 15 bytes");
		return -EINVAL;
	}
	return 0;
}

/* The counts of an entry, those present in it. */
static void nfhp_sete_decode_counts(struct nlattr **tb,
				    struct nfhp_set_counts *counts)
{
	*counts = (struct nfhp_set_counts){};
	if (tb[NFHPA_SETE_PACKETS]) {
		counts->packets = nla_get_u64(tb[NFHPA_SETE_PACKETS]);
		counts->given |= NFHP_SET_COUNTS_PACKETS;
	}
	if (tb[NFHPA_SETE_BYTES]) {
		counts->bytes = nla_get_u64(tb[NFHPA_SETE_BYTES]);
		counts->given |= NFHP_SET_COUNTS_BYTES;
	}
}

/**
 * nfhp_sete_decode() - the key and value of one NFHPA_SET_ENTRY
 * @set: the set it is for
 * @attr: the attribute
 * @key: set to its key
 * @value: set to its value
 * @counts: set to the counts it gives, or NULL to ignore them
 * @eflags: set to its NFHPA_SETE_FLAGS, 0 when absent
 * @extack: for the reason
 *
 * Return: 0 or -EINVAL.
 */
static int nfhp_sete_decode(const struct nfhp_set *set,
			    const struct nlattr *attr, struct nfhp_set_key *key,
			    u32 *value, struct nfhp_set_counts *counts,
			    u32 *eflags, struct netlink_ext_ack *extack)
{
	unsigned int width = nfhp_dim_bits(set->family, NFHP_DIM_SRC);
	struct nlattr *tb[NFHPA_SETE_MAX + 1];
	u32 w[4];
	int ret;

	ret = nla_parse_nested(tb, NFHPA_SETE_MAX, attr, nfhp_sete_policy,
			       extack);
	if (ret)
		return ret;
	*value = tb[NFHPA_SETE_VALUE] ? nla_get_u32(tb[NFHPA_SETE_VALUE]) : 0;
	*eflags = tb[NFHPA_SETE_FLAGS] ? nla_get_u32(tb[NFHPA_SETE_FLAGS]) : 0;
	if (counts)
		nfhp_sete_decode_counts(tb, counts);
	*key = (struct nfhp_set_key){};
	if (set->algo->type == NFHP_SET_IFACE)
		return nfhp_sete_decode_iface(tb, attr, key, extack);
	if (tb[NFHPA_SETE_IFACE]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[NFHPA_SETE_IFACE],
				    "only an interface set's entry has a name");
		return -EINVAL;
	}
	if (set->algo->type == NFHP_SET_NUMBER)
		return nfhp_sete_decode_num(tb, attr, key, extack);
	if (tb[NFHPA_SETE_NUM_LO] || tb[NFHPA_SETE_NUM_HI]) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "an address set's entry has no numbers");
		return -EINVAL;
	}
	ret = nfhp_sete_decode_flow(set, tb, attr, key, extack);
	if (ret)
		return ret;
	if (!tb[NFHPA_SETE_ADDR]) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "an entry needs an address");
		return -EINVAL;
	}
	memcpy(w, nla_data(tb[NFHPA_SETE_ADDR]), sizeof(w));
	key->addr = (nfhp_u128)w[0] << 96 | (nfhp_u128)w[1] << 64 |
		    (u64)w[2] << 32 | w[3];
	key->plen = tb[NFHPA_SETE_PLEN] ? nla_get_u8(tb[NFHPA_SETE_PLEN]) :
					  width;
	return 0;
}

/* The errno of a result, as the contract gives it; 0 for success. */
static int nfhp_set_result_errno(int result, u32 flags)
{
	switch (result) {
	case NFHP_SET_EXISTS:
	case NFHP_SET_NOT_FOUND:
		if (flags & NFHP_SET_F_EXIST)
			return 0;
		return result == NFHP_SET_EXISTS ? -EEXIST : -ENOENT;
	case NFHP_SET_LIMIT:
		return -E2BIG;
	case NFHP_SET_LOCKED:
		return -EPERM;
	case NFHP_SET_INVALID:
		return -EINVAL;
	case NFHP_SET_NOMEM:
		return -ENOMEM;
	case NFHP_SET_OUT_OF_RANGE:
		return -ERANGE;
	default:
		return 0;
	}
}

/**
 * nfhp_set_result_msg() - the reason of an entry's failure
 * @err: its errno, as nfhp_set_result_errno() gives it
 * @set: the set
 *
 * Return: the message for the ack.
 */
static const char *nfhp_set_result_msg(int err, const struct nfhp_set *set)
{
	/* The decode checked a number range: only the algorithm refuses. */
	if (err == -EINVAL && set->algo->type == NFHP_SET_NUMBER)
		return strcmp(set->algo->name, "bitmap") ?
		       "the range overlaps an entry" :
		       "a bitmap holds numbers below 65536 only";
	switch (err) {
	case -EEXIST:
		return "the entry is in the set already";
	case -ENOENT:
		return "the entry is not in the set";
	case -E2BIG:
		return "the set is full";
	case -EPERM:
		return "the set is locked";
	case -ERANGE:
		return "the entry is out of the range of the set";
	case -EINVAL:
		if (set->algo->type == NFHP_SET_FLOW)
			return "the key is not of the set's family, has bits set below its prefix length, protocol 0, or a port its protocol has none of";
		if (set->algo->type == NFHP_SET_IFACE)
			return "not an interface name";
		return "the key is not of the set's family, or has bits set below its prefix length";
	default:
		return "out of memory";
	}
}

/*
 * One entry of a reply: address, prefix length, value or a flow set's
 * protocol and port, and result (a number set's two numbers take less
 * than the first two).  A flow set's results leave the value out: it is
 * the one sent, and with it NFHP_SET_MAX_BATCH results would not fit.
 */
#define NFHP_SETE_REPLY_SIZE						\
	(NLA_HDRLEN + NLA_ALIGN(NLA_HDRLEN + 16) +			\
	 3 * NLA_ALIGN(NLA_HDRLEN + 4) + NLA_ALIGN(NLA_HDRLEN + 1))

/* The reply of NFHP_SET_MAX_BATCH entries fits an attribute's length. */
static_assert(NLA_HDRLEN + NFHP_SET_MAX_BATCH * NFHP_SETE_REPLY_SIZE <=
	      U16_MAX);

/* A reply to @info holding NFHPA_SET with room for @n entries. */
static struct sk_buff *nfhp_set_reply_new(struct genl_info *info,
					  unsigned int n, void **hdr)
{
	struct sk_buff *reply;

	reply = genlmsg_new(NLA_HDRLEN + n * NFHP_SETE_REPLY_SIZE, GFP_KERNEL);
	if (!reply)
		return NULL;
	*hdr = genlmsg_put_reply(reply, info, nfhp_genl_family(), 0,
				 info->genlhdr->cmd);
	if (!*hdr) {
		nlmsg_free(reply);
		return NULL;
	}
	return reply;
}

/**
 * nfhp_put_sete_key() - the key of an entry in a message
 * @skb: the message
 * @key: the key
 * @type: the set's &enum nfhp_set_type: a number set's NUM_LO and
 *	NUM_HI, an interface set's IFACE, else ADDR and PLEN, and a flow
 *	set's PROTO and PORT
 *
 * Return: 0 or -EMSGSIZE.
 */
static int nfhp_put_sete_key(struct sk_buff *skb,
			     const struct nfhp_set_key *key, u8 type)
{
	u32 w[4] = { (u32)(key->addr >> 96), (u32)(key->addr >> 64),
		     (u32)(key->addr >> 32), (u32)key->addr };
	char name[NFHP_IFNAME_LEN + 1];

	if (type == NFHP_SET_IFACE) {
		nfhp_iface_key_str(key->addr, key->plen, name);
		return nla_put_string(skb, NFHPA_SETE_IFACE, name);
	}
	if (type == NFHP_SET_NUMBER)
		return nla_put_u32(skb, NFHPA_SETE_NUM_LO, (u32)key->addr) ?:
		       nla_put_u32(skb, NFHPA_SETE_NUM_HI, key->hi);
	if (nla_put(skb, NFHPA_SETE_ADDR, sizeof(w), w) ||
	    nla_put_u8(skb, NFHPA_SETE_PLEN, key->plen))
		return -EMSGSIZE;
	if (type != NFHP_SET_FLOW)
		return 0;
	return nla_put_u8(skb, NFHPA_SETE_PROTO, key->proto) ?:
	       nla_put_u16(skb, NFHPA_SETE_PORT, key->port);
}

/* The counts of an entry in a message, if it has any. */
static int nfhp_put_sete_counts(struct sk_buff *skb,
				const struct nfhp_set_counts *counts)
{
	if (!counts)
		return 0;
	return nla_put_u64_64bit(skb, NFHPA_SETE_PACKETS, counts->packets,
				 NFHPA_SETE_PAD) ?:
	       nla_put_u64_64bit(skb, NFHPA_SETE_BYTES, counts->bytes,
				 NFHPA_SETE_PAD);
}

/**
 * nfhp_put_sete() - one NFHPA_SET_ENTRY
 * @skb: the message
 * @key: its key
 * @type: the set's &enum nfhp_set_type
 * @value: its value, left out for a flow set's result (@result not
 *	%NFHP_SET_TEST_RESULT)
 * @counts: its counts, of a set with counters in a dump or a test's
 *	result; else NULL
 * @eflags: its %NFHP_SETE_F_* flags, in a dump or a test's result; 0
 *	puts no NFHPA_SETE_FLAGS
 * @result: the &enum nfhp_set_result of an add or remove,
 *	%NFHP_SET_TEST_RESULT | the result of a test, or -1 for a dump
 *
 * Return: 0 or -EMSGSIZE.
 */
static int nfhp_put_sete(struct sk_buff *skb, const struct nfhp_set_key *key,
			 u8 type, u32 value,
			 const struct nfhp_set_counts *counts, u32 eflags,
			 int result)
{
	struct nlattr *nest = nla_nest_start(skb, NFHPA_SET_ENTRY);
	bool put_value = result < 0 || type != NFHP_SET_FLOW ||
			 (result & NFHP_SET_TEST_RESULT);

	if (!nest)
		return -EMSGSIZE;
	result = result < 0 ? result : result & ~NFHP_SET_TEST_RESULT;
	if (nfhp_put_sete_key(skb, key, type) ||
	    (put_value && nla_put_u32(skb, NFHPA_SETE_VALUE, value)) ||
	    nfhp_put_sete_counts(skb, counts) ||
	    (eflags && nla_put_u32(skb, NFHPA_SETE_FLAGS, eflags)) ||
	    (result >= 0 && nla_put_u8(skb, NFHPA_SETE_RESULT, result))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * nfhp_set_add_msg() - the reason an entry's add or remove failed
 * @set: the set
 * @add: an add, else a remove
 * @counts: the counts the entry gave
 * @eflags: its NFHPA_SETE_FLAGS
 * @err: its errno, as nfhp_set_result_errno() gives it
 *
 * Return: the message for the ack.
 */
static const char *nfhp_set_add_msg(const struct nfhp_set *set, bool add,
				    const struct nfhp_set_counts *counts,
				    u32 eflags, int err)
{
	if (add && counts->given && !set->counting)
		return "the set has no counters: no packets or bytes for its entries";
	if (add && (eflags & NFHP_SETE_F_NOMATCH) && !set->algo->nomatch)
		return "nomatch entries are for \"lpm\" sets of addresses or flows only";
	return nfhp_set_result_msg(err, set);
}

/*
 * Apply NFHP_CMD_SET_ADD or NFHP_CMD_SET_REMOVE to each entry of @tb's
 * set, a result for each in @reply; return the first error.
 */
static int nfhp_set_change_entries(struct nfhp_net *hn, struct nfhp_set *set,
				   struct genl_info *info, struct nlattr **tb,
				   struct sk_buff *reply)
{
	bool add = info->genlhdr->cmd == NFHP_CMD_SET_ADD;
	u32 flags = tb[NFHPA_SET_FLAGS] ? nla_get_u32(tb[NFHPA_SET_FLAGS]) : 0;
	const struct nlattr *pos;
	struct nfhp_set_counts counts;
	struct nfhp_set_key key;
	int rem, result, err, first = 0;
	struct nlattr *nest;
	u32 value, eflags;

	nest = nla_nest_start(reply, NFHPA_SET);
	if (!nest)
		return -EMSGSIZE;
	nla_for_each_nested(pos, info->attrs[NFHPA_SET], rem) {
		if (nla_type(pos) != NFHPA_SET_ENTRY)
			continue;
		err = nfhp_sete_decode(set, pos, &key, &value, &counts,
				       &eflags, info->extack);
		if (err) {
			first = first ?: err;
			break;
		}
		if (add)
			result = nfhp_set_add(&hn->sets, set, &key, value,
					      &counts, flags |
					      (eflags & NFHP_SETE_F_NOMATCH ?
					       NFHP_SET_ADD_NOMATCH : 0));
		else
			result = nfhp_set_remove(&hn->sets, set, &key);
		err = nfhp_set_result_errno(result, flags);
		if (err && !first) {
			first = err;
			nfhp_set_msg(info->extack,
				     nfhp_set_add_msg(set, add, &counts,
						      eflags, err));
			if (info->extack)
				info->extack->bad_attr = pos;
		}
		/* The reply was sized for every entry. */
		if (WARN_ON_ONCE(nfhp_put_sete(reply, &key, set->algo->type,
					       value, NULL, 0, result)))
			break;
	}
	nla_nest_end(reply, nest);
	return first;
}

static unsigned int nfhp_set_entries_in(const struct nlattr *attr)
{
	const struct nlattr *pos;
	unsigned int n = 0;
	int rem;

	nla_for_each_nested(pos, attr, rem)
		n += nla_type(pos) == NFHPA_SET_ENTRY;
	return n;
}

int nfhp_nl_set_entries(struct sk_buff *skb, struct genl_info *info)
{
	struct nfhp_net *hn = nfhp_net(genl_info_net(info));
	struct nlattr *tb[NFHPA_SET_MAX + 1];
	struct sk_buff *reply;
	struct nfhp_set *set;
	unsigned int n;
	void *hdr;
	int ret;

	ret = nfhp_set_attrs(info, tb);
	if (ret)
		return ret;
	n = nfhp_set_entries_in(info->attrs[NFHPA_SET]);
	if (n > NFHP_SET_MAX_BATCH) {
		NL_SET_ERR_MSG(info->extack,
			       "more entries than NFHP_SET_MAX_BATCH in one message");
		return -E2BIG;
	}
	reply = nfhp_set_reply_new(info, n, &hdr);
	if (!reply)
		return -ENOMEM;
	ret = nfhp_set_write_lock(hn, info);
	if (ret) {
		nlmsg_free(reply);
		return ret;
	}
	set = nfhp_set_named(hn, tb, NFHPA_SET_NAME, false, info->extack);
	ret = set ? nfhp_set_change_entries(hn, set, info, tb, reply) : -ENOENT;
	if (set)
		nfhp_net_sets_changed(hn);
	mutex_unlock(&hn->lock);
	if (ret == -ENOENT && !set) {
		nlmsg_free(reply);
		return ret;
	}
	genlmsg_end(reply, hdr);
	/* The results go first; the error, if any, comes in the ack. */
	genlmsg_reply(reply, info);
	return ret;
}

int nfhp_nl_set_test(struct sk_buff *skb, struct genl_info *info)
{
	struct nfhp_net *hn = nfhp_net(genl_info_net(info));
	struct nlattr *tb[NFHPA_SET_MAX + 1];
	struct nfhp_set_counts counts;
	struct nfhp_set_key key;
	struct nlattr *nest;
	struct sk_buff *reply;
	struct nfhp_set *set;
	u32 value = 0, eflags;
	bool found;
	void *hdr;
	int ret;

	ret = nfhp_set_attrs(info, tb);
	if (ret)
		return ret;
	if (!tb[NFHPA_SET_ENTRY]) {
		NL_SET_ERR_MSG(info->extack, "a test needs an entry");
		return -EINVAL;
	}
	/*
	 * A flow set's test result carries its value too, and one of a set
	 * with counters its counts: room for three.
	 */
	reply = nfhp_set_reply_new(info, 3, &hdr);
	if (!reply)
		return -ENOMEM;
	mutex_lock(&hn->lock);
	set = nfhp_set_named(hn, tb, NFHPA_SET_NAME, true, info->extack);
	ret = set ? nfhp_sete_decode(set, tb[NFHPA_SET_ENTRY], &key, &value,
				     NULL, &eflags, info->extack) : -ENOENT;
	if (!ret) {
		eflags &= NFHP_SETE_F_NOMATCH;
		found = nfhp_set_test(&hn->sets, set, &key, &value, &counts,
				      eflags);
		nest = nla_nest_start(reply, NFHPA_SET);
		ret = !nest || nfhp_put_sete(reply, &key, set->algo->type,
					     found ? value : 0,
					     found && set->counting ?
					     &counts : NULL,
					     found ? eflags : 0,
					     NFHP_SET_TEST_RESULT |
					     (found ? NFHP_SET_EXISTS :
					      NFHP_SET_NOT_FOUND)) ? -EMSGSIZE : 0;
		if (!ret)
			nla_nest_end(reply, nest);
	}
	mutex_unlock(&hn->lock);
	if (ret) {
		nlmsg_free(reply);
		return ret;
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}

/**
 * struct nfhp_set_dump - where a NFHP_CMD_SET_LIST dump is
 * @name: the one set listed with its entries, or "" for every set
 * @cursor: the entries' walk cursor
 * @index: sets listed so far, for every set
 * @header_sent: the one set's header message is out
 * @entries_done: and all its entries
 */
struct nfhp_set_dump {
	char name[NFHP_SET_MAXNAMELEN];
	u64 cursor;
	u32 index;
	bool header_sent;
	bool entries_done;
};

static struct nfhp_set_dump *nfhp_set_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct nfhp_set_dump) > sizeof(cb->ctx));
	return (struct nfhp_set_dump *)cb->ctx;
}

/* The header of one message of a NFHP_CMD_SET_LIST dump. */
static void *nfhp_set_dump_put(struct sk_buff *skb, struct netlink_callback *cb)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   genl_dumpit_info(cb)->family, NLM_F_MULTI,
			   NFHP_CMD_SET_LIST);
}

static int nfhp_put_set(struct sk_buff *skb, struct netlink_callback *cb,
			const struct nfhp_sets *sets,
			const struct nfhp_set *set)
{
	void *hdr = nfhp_set_dump_put(skb, cb);
	struct nlattr *nest;

	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u8(skb, NFHPA_FAMILY, set->family)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nest = nla_nest_start(skb, NFHPA_SET);
	if (!nest ||
	    nla_put_string(skb, NFHPA_SET_NAME, set->name) ||
	    nla_put_u8(skb, NFHPA_SET_TYPE, set->algo->type) ||
	    nla_put_string(skb, NFHPA_SET_ALGO, set->algo->name) ||
	    nla_put_u32(skb, NFHPA_SET_LIMIT, set->live.limit) ||
	    nla_put_u32(skb, NFHPA_SET_FLAGS,
			(set->live.locked ? NFHP_SET_F_LOCKED : 0) |
			(set->counting ? NFHP_SET_F_COUNTERS : 0)) ||
	    nla_put_u32(skb, NFHPA_SET_COUNT, nfhp_set_count(sets, set)) ||
	    nla_put_u64_64bit(skb, NFHPA_SET_MEMORY,
			      set->live.body->mem.allocated, NFHPA_SET_PAD) ||
	    nla_put_u32(skb, NFHPA_SET_REFS, set->refs) ||
	    (set->algo->type == NFHP_SET_NUMBER &&
	     (nla_put_u32(skb, NFHPA_SET_RANGE_LO, set->range_lo) ||
	      nla_put_u32(skb, NFHPA_SET_RANGE_HI, set->range_hi)))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * struct nfhp_dump_arg - where a dump's walk puts entries
 * @skb: the message
 * @type: the set's &enum nfhp_set_type
 */
struct nfhp_dump_arg {
	struct sk_buff *skb;
	u8 type;
};

static int nfhp_dump_sete(void *arg, const struct nfhp_set_key *key,
			  u32 value, const struct nfhp_set_counts *counts,
			  u32 eflags)
{
	const struct nfhp_dump_arg *d = arg;

	/* Not taken when it does not fit: the next message begins with it. */
	return nfhp_put_sete(d->skb, key, d->type, value, counts, eflags,
			     -1) ?
	       -EMSGSIZE : 0;
}

/* One message of @set's entries from the dump's cursor on. */
static int nfhp_dump_entries(struct sk_buff *skb, struct netlink_callback *cb,
			     const struct nfhp_sets *sets,
			     const struct nfhp_set *set)
{
	struct nfhp_set_dump *d = nfhp_set_dump_ctx(cb);
	struct nfhp_dump_arg arg;
	struct nlattr *nest;
	void *hdr;
	int ret;

	hdr = nfhp_set_dump_put(skb, cb);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, NFHPA_SET);
	if (!nest || nla_put_string(skb, NFHPA_SET_NAME, set->name)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	arg.skb = skb;
	arg.type = set->algo->type;
	ret = nfhp_set_walk(sets, set, &d->cursor, nfhp_dump_sete, &arg);
	d->entries_done = !ret;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return ret;
}

int nfhp_nl_set_list(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nfhp_net *hn = nfhp_net(sock_net(cb->skb->sk));
	struct nfhp_set_dump *d = nfhp_set_dump_ctx(cb);
	const struct nfhp_set *set;
	unsigned int i = 0;
	int ret = 0;

	mutex_lock(&hn->lock);
	if (d->name[0]) {
		set = nfhp_set_find_committed(&hn->sets, d->name);
		if (set && !d->header_sent) {
			ret = nfhp_put_set(skb, cb, &hn->sets, set);
			d->header_sent = !ret;
		}
		if (set && !ret && !d->entries_done)
			ret = nfhp_dump_entries(skb, cb, &hn->sets, set);
	} else {
		for (set = hn->sets.first; set && !ret; set = set->next) {
			if (set->created)
				continue;
			if (i++ >= d->index) {
				ret = nfhp_put_set(skb, cb, &hn->sets, set);
				d->index += !ret;
			}
		}
	}
	mutex_unlock(&hn->lock);
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ? ret : skb->len;
}

int nfhp_nl_set_list_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nfhp_set_dump *d = nfhp_set_dump_ctx(cb);
	struct net *net = sock_net(cb->skb->sk);
	struct nfhp_net *hn = nfhp_net(net);
	struct nlattr *tb[NFHPA_SET_MAX + 1];
	bool found;
	int ret;

	/* A set's entries tell what the firewall lets through, as rules do. */
	if (!nfhp_net_world_readable(hn) &&
	    !netlink_ns_capable(cb->skb, net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	memset(d, 0, sizeof(*d));
	if (!info->attrs[NFHPA_SET])
		return 0;
	ret = nla_parse_nested(tb, NFHPA_SET_MAX, info->attrs[NFHPA_SET],
			       nfhp_set_policy, NULL);
	if (ret || !tb[NFHPA_SET_NAME])
		return ret;
	nla_strscpy(d->name, tb[NFHPA_SET_NAME], sizeof(d->name));
	mutex_lock(&hn->lock);
	found = nfhp_set_find_committed(&hn->sets, d->name);
	mutex_unlock(&hn->lock);
	return found ? 0 : -ENOENT;
}
