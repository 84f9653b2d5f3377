// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the kernel's xtables modules for what the tree does not know.
 *
 * A rule's NFHPA_RULE_XT payload (&struct nfhp_rule_spec @ext) names
 * matches and a target by name and revision, each with the info struct its
 * module reads.  When the rule is added they are looked up (loading the
 * module), checked by their checkentry as ip_tables checks them, and kept
 * with a private copy of their info.  At packet time the core calls back
 * for the rules the tree found in the packet's leaves: the matches run as
 * ipt_do_table runs them, the target returns a verdict or XT_CONTINUE.
 * This is the evaluator of ext.h for every namespace's rule sets: with
 * nfhp_xt_ops for IPv4 (the modules' NFPROTO_IPV4 variants, ip_tables'
 * entry) and nfhp_xt6_ops for IPv6 (NFPROTO_IPV6, ip6_tables' entry).
 */

#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "ext.h"
#include "set_match.h"
#include "state_rule.h"
#include "xt_run.h"

/**
 * struct nfhp_xt_item - one match or target of a rule
 * @match: the match, for a match
 * @target: the target, for a target
 * @info: its info, checked by its checkentry and private to it
 * @size: bytes of @info
 */
struct nfhp_xt_item {
	union {
		struct xt_match *match;
		struct xt_target *target;
	};
	void *info;
	unsigned int size;
};

/**
 * struct nfhp_xt_rule - the extensions of one rule
 * @net: the namespace whose rule set holds the rule
 * @family: NFPROTO_IPV4 or NFPROTO_IPV6
 * @entry: the rule's IP part as ip_tables has it, for checkentry and
 *	destroy (some read the protocol from it), IPv4
 * @entry6: the same as ip6_tables has it, IPv6
 * @hook_mask: the netfilter hooks the rule can be reached from
 * @nmatch: matches in @match
 * @has_target: @target is set
 * @stateless: none of its extensions keeps state of its own
 *	(nfhp_xt_stateless_names)
 * @nsetm: set matches in @setm
 * @setm: the rule's set matches, run before the xtables matches
 *	(set_match.c)
 * @keep: keep-state: the states are made after every other match matched
 * @ks: what a keep-state rule gives its states (state_rule.c)
 * @target: the target, if any
 * @match: the matches, in order
 */
struct nfhp_xt_rule {
	struct net *net;
	u8 family;
	union {
		struct ipt_entry entry;
		struct ip6t_entry entry6;
	};
	unsigned int hook_mask;
	unsigned int nmatch;
	bool has_target;
	bool stateless;
	unsigned int nsetm;
	struct nfhp_setm setm[NFHP_MAX_SETM];
	bool keep;
	struct nfhp_keep_state ks;
	struct nfhp_xt_item target;
	struct nfhp_xt_item match[];
};

/*
 * Extensions that keep no state of their own from packet to packet, so
 * that a rule sent again unchanged may keep them (adopt.c, "Adoption").
 * The others (limit, hashlimit, quota, statistic, connlimit, recent, ...)
 * start afresh, as iptables-restore starts them.
 */
static const char *const nfhp_xt_stateless_names[] = {
	/* matches */
	"addrtype", "ah", "comment", "connbytes", "connmark", "conntrack",
	"cpu", "devgroup", "dscp", "ecn", "esp", "helper", "icmp", "iprange",
	"length", "mac", "mark", "multiport", "owner", "physdev", "pkttype",
	"policy", "realm", "sctp", "set", "socket", "state", "string", "tcp",
	"tcpmss", "time", "tos", "ttl", "u32", "udp",
	/* IPv6's own matches */
	"dst", "eui64", "frag", "hbh", "hl", "icmp6", "ipv6header", "mh", "rt",
	"srh",
	/* targets */
	"AUDIT", "CLASSIFY", "CONNMARK", "DSCP", "LOG", "MARK", "NFLOG",
	"NFQUEUE", "REJECT", "SET", "TCPMSS", "TOS", "TRACE",
};

static bool nfhp_xt_name_stateless(const char *name)
{
	return match_string(nfhp_xt_stateless_names,
			    ARRAY_SIZE(nfhp_xt_stateless_names), name) >= 0;
}

static const struct nla_policy nfhp_xte_policy[NFHPA_XTE_MAX + 1] = {
	[NFHPA_XTE_NAME] = { .type = NLA_NUL_STRING,
			     .len = XT_EXTENSION_MAXNAMELEN - 1 },
	[NFHPA_XTE_REVISION] = { .type = NLA_U8 },
	[NFHPA_XTE_DATA] = { .type = NLA_BINARY, .len = NFHP_XT_MAXLEN },
};

/* The attributes of the NFHPA_RULE_XT payload @spec carries. */
static const struct nlattr *nfhp_xt_attrs(const struct nfhp_rule_spec *spec)
{
	return (const struct nlattr *)spec->ext;
}

/*
 * Check the shape of @spec's payload: matches, then at most one target,
 * which NFHP_ACT_XT needs and only it has.  Count the matches.
 */
static int nfhp_xt_shape(const struct nfhp_rule_spec *spec,
			 unsigned int *nmatch, const char **msg)
{
	bool xt_action = spec->action == NFHP_ACT_XT, target = false;
	const struct nlattr *a;
	int rem;

	*nmatch = 0;
	nla_for_each_attr(a, nfhp_xt_attrs(spec), spec->ext_len, rem) {
		if (target) {
			*msg = "the xtables target must come last";
			return -EINVAL;
		}
		if (nla_type(a) == NFHPA_XT_MATCH) {
			++*nmatch;
		} else if (nla_type(a) == NFHPA_XT_TARGET) {
			target = true;
		} else {
			*msg = "unknown attribute in NFHPA_RULE_XT";
			return -EINVAL;
		}
	}
	if (rem) {
		*msg = "trailing bytes in NFHPA_RULE_XT";
		return -EINVAL;
	}
	if (target != xt_action) {
		*msg = "an xtables target needs action NFHP_ACT_XT and back";
		return -EINVAL;
	}
	return 0;
}

/* Name, revision and info of one NFHPA_XT_MATCH or NFHPA_XT_TARGET. */
static int nfhp_xt_decode(const struct nlattr *a, struct nlattr **tb,
			  const char **msg)
{
	int err;

	err = __nla_parse(tb, NFHPA_XTE_MAX, nla_data(a), nla_len(a),
			  nfhp_xte_policy, NL_VALIDATE_STRICT, NULL);
	if (err) {
		*msg = "malformed xtables extension";
		return err;
	}
	if (!tb[NFHPA_XTE_NAME] || !tb[NFHPA_XTE_REVISION] ||
	    !tb[NFHPA_XTE_DATA]) {
		*msg = "an xtables extension needs a name, revision and data";
		return -EINVAL;
	}
	return 0;
}

/* The single protocol @m matches (with @inv), or false. */
static bool nfhp_xt_one_proto(const struct nfhp_dim_match *m, u16 *proto,
			      bool *inv)
{
	if (m->dim != NFHP_DIM_PROTO || m->form != NFHP_FORM_RANGES ||
	    m->nranges != 1 || m->ranges[0].lo != m->ranges[0].hi)
		return false;
	*proto = m->ranges[0].lo;
	*inv = m->invert;
	return true;
}

/*
 * The parts of the rule's entry that checkentry functions read: the
 * protocol, and IPv4's fragment flag.
 */
static void nfhp_xt_fill_entry(struct nfhp_xt_rule *x,
			       const struct nfhp_rule_spec *spec)
{
	const struct nfhp_dim_match *m;
	struct ip6t_ip6 *ip6 = &x->entry6.ipv6;
	struct ipt_ip *ip = &x->entry.ip;
	unsigned int i;
	u16 proto;
	bool inv;

	for (i = 0; i < spec->nmatch; i++) {
		m = &spec->m[i];
		if (nfhp_xt_one_proto(m, &proto, &inv) &&
		    x->family == NFPROTO_IPV6) {
			ip6->proto = proto;
			ip6->flags |= IP6T_F_PROTO;
			if (inv)
				ip6->invflags |= IP6T_INV_PROTO;
		} else if (nfhp_xt_one_proto(m, &proto, &inv)) {
			ip->proto = proto;
			if (inv)
				ip->invflags |= IPT_INV_PROTO;
		} else if (m->dim == NFHP_DIM_FRAG &&
			   x->family == NFPROTO_IPV4) {
			ip->flags |= IPT_F_FRAG;
			if (m->invert)
				ip->invflags |= IPT_INV_FRAG;
		}
	}
}

/* The protocol of @x's entry and whether it is inverted, for xt_check_*. */
static u16 nfhp_xt_entry_proto(const struct nfhp_xt_rule *x, bool *inv)
{
	if (x->family == NFPROTO_IPV6) {
		*inv = x->entry6.ipv6.invflags & IP6T_INV_PROTO;
		return x->entry6.ipv6.proto;
	}
	*inv = x->entry.ip.invflags & IPT_INV_PROTO;
	return x->entry.ip.proto;
}

static void nfhp_xt_match_put(struct nfhp_xt_rule *x, struct nfhp_xt_item *it)
{
	struct xt_mtdtor_param par = {
		.net = x->net,
		.match = it->match,
		.matchinfo = it->info,
		.family = x->family,
	};

	if (it->match->destroy)
		it->match->destroy(&par);
	module_put(it->match->me);
	kfree(it->info);
}

static void nfhp_xt_target_put(struct nfhp_xt_rule *x,
			       struct nfhp_xt_item *it)
{
	struct xt_tgdtor_param par = {
		.net = x->net,
		.target = it->target,
		.targinfo = it->info,
		.family = x->family,
	};

	if (it->target->destroy)
		it->target->destroy(&par);
	module_put(it->target->me);
	kfree(it->info);
}

/*
 * xt_request_find_match(), and for "icmp" and "icmp6", which ip_tables.ko
 * and ip6_tables.ko themselves register under no module alias, their
 * module loaded first: a host that filters with nf-hipac alone may not
 * have it.
 */
static struct xt_match *nfhp_xt_find_match(u8 family, const char *name,
					   u8 revision)
{
	struct xt_match *m = xt_request_find_match(family, name, revision);
	bool v6 = family == NFPROTO_IPV6;

	if (PTR_ERR_OR_ZERO(m) == -ENOENT &&
	    !strcmp(name, v6 ? "icmp6" : "icmp") &&
	    !request_module(v6 ? "ip6_tables" : "ip_tables"))
		m = xt_request_find_match(family, name, revision);
	return m;
}

/* Decode @a: its name and revision, and a copy of its info in @it. */
static int nfhp_xt_item_read(const struct nlattr *a, struct nfhp_xt_item *it,
			     const char **name, u8 *rev, const char **msg)
{
	struct nlattr *tb[NFHPA_XTE_MAX + 1];
	int err;

	err = nfhp_xt_decode(a, tb, msg);
	if (err)
		return err;
	*name = nla_data(tb[NFHPA_XTE_NAME]);
	*rev = nla_get_u8(tb[NFHPA_XTE_REVISION]);
	it->size = nla_len(tb[NFHPA_XTE_DATA]);
	it->info = kmemdup(nla_data(tb[NFHPA_XTE_DATA]), it->size ?: 1,
			   GFP_KERNEL);
	return it->info ? 0 : -ENOMEM;
}

/* Look up, copy and check the match of @a as item @it of @x. */
static int nfhp_xt_match_get(struct nfhp_xt_rule *x, struct nfhp_xt_item *it,
			     const struct nlattr *a, const char **msg)
{
	struct xt_mtchk_param par;
	const char *name;
	bool inv;
	u16 proto;
	u8 rev;
	int err;

	err = nfhp_xt_item_read(a, it, &name, &rev, msg);
	if (err)
		return err;
	it->match = nfhp_xt_find_match(x->family, name, rev);
	if (IS_ERR(it->match)) {
		*msg = "unknown xtables match or revision";
		err = PTR_ERR(it->match);
		goto err_free;
	}
	par = (struct xt_mtchk_param) {
		.net = x->net, .table = "filter", .entryinfo = &x->entry,
		.match = it->match, .matchinfo = it->info,
		.hook_mask = x->hook_mask, .family = x->family,
	};
	proto = nfhp_xt_entry_proto(x, &inv);
	err = xt_check_match(&par, it->size, proto, inv);
	if (!err)
		return 0;
	*msg = "the xtables match refused the rule (see the kernel log)";
	module_put(it->match->me);
err_free:
	kfree(it->info);
	return err;
}

/* Look up, copy and check the target of @a for @x. */
static int nfhp_xt_target_get(struct nfhp_xt_rule *x, const struct nlattr *a,
			      const char **msg)
{
	struct nfhp_xt_item *it = &x->target;
	struct xt_tgchk_param par;
	const char *name;
	bool inv;
	u16 proto;
	u8 rev;
	int err;

	err = nfhp_xt_item_read(a, it, &name, &rev, msg);
	if (err)
		return err;
	it->target = xt_request_find_target(x->family, name, rev);
	if (IS_ERR(it->target)) {
		*msg = "unknown xtables target or revision";
		err = PTR_ERR(it->target);
		goto err_free;
	}
	par = (struct xt_tgchk_param) {
		.net = x->net, .table = "filter", .entryinfo = &x->entry,
		.target = it->target, .targinfo = it->info,
		.hook_mask = x->hook_mask, .family = x->family,
	};
	proto = nfhp_xt_entry_proto(x, &inv);
	err = xt_check_target(&par, it->size, proto, inv);
	if (!err) {
		x->has_target = true;
		return 0;
	}
	*msg = "the xtables target refused the rule (see the kernel log)";
	module_put(it->target->me);
err_free:
	kfree(it->info);
	return err;
}

static void nfhp_xt_destroy(void *priv, void *ext)
{
	struct nfhp_xt_rule *x = ext;
	unsigned int i;

	if (x->has_target)
		nfhp_xt_target_put(x, &x->target);
	for (i = x->nmatch; i > 0; i--)
		nfhp_xt_match_put(x, &x->match[i - 1]);
	nfhp_setm_put(x->setm, x->nsetm);
	kfree(x);
}

/* Netfilter hook bits of the core's hook bits. */
static unsigned int nfhp_xt_hook_mask(unsigned int hooks)
{
	return hooks << NF_INET_LOCAL_IN;
}

static int nfhp_xt_create(void *priv, u8 family,
			  const struct nfhp_rule_spec *spec,
			  unsigned int hooks, void **ext, bool *matches,
			  const char **msg)
{
	const struct nlattr *a;
	struct nfhp_xt_rule *x;
	unsigned int n;
	int rem, err;

	err = nfhp_xt_shape(spec, &n, msg);
	if (err)
		return err;
	x = kzalloc(struct_size(x, match, n), GFP_KERNEL);
	if (!x)
		return -ENOMEM;
	x->net = priv;
	x->family = family;
	x->hook_mask = nfhp_xt_hook_mask(hooks);
	nfhp_xt_fill_entry(x, spec);
	err = nfhp_setm_get(x->net, family, spec, x->setm, msg);
	if (err) {
		kfree(x);
		return err;
	}
	x->nsetm = nfhp_spec_nsetm(spec);
	nla_for_each_attr(a, nfhp_xt_attrs(spec), spec->ext_len, rem) {
		if (nla_type(a) == NFHPA_XT_TARGET) {
			err = nfhp_xt_target_get(x, a, msg);
		} else {
			err = nfhp_xt_match_get(x, &x->match[x->nmatch], a,
						msg);
			x->nmatch += !err;
		}
		if (err) {
			nfhp_xt_destroy(priv, x);
			return err;
		}
	}
	x->stateless = !x->has_target ||
		       nfhp_xt_name_stateless(x->target.target->name);
	for (n = 0; n < x->nmatch; n++)
		x->stateless &= nfhp_xt_name_stateless(x->match[n].match->name);
	x->keep = spec->state.mode == NFHP_RSTATE_KEEP;
	if (x->keep)
		nfhp_keep_state_init(&x->ks, spec);
	*matches = x->nmatch || x->nsetm || x->keep;
	*ext = x;
	return 0;
}

static int nfhp_xt_create4(void *priv, const struct nfhp_rule_spec *spec,
			   unsigned int hooks, void **ext, bool *matches,
			   const char **msg)
{
	return nfhp_xt_create(priv, NFPROTO_IPV4, spec, hooks, ext, matches,
			      msg);
}

static int nfhp_xt_create6(void *priv, const struct nfhp_rule_spec *spec,
			   unsigned int hooks, void **ext, bool *matches,
			   const char **msg)
{
	return nfhp_xt_create(priv, NFPROTO_IPV6, spec, hooks, ext, matches,
			      msg);
}

static void nfhp_xt_param(struct xt_action_param *par,
			  const struct nfhp_xt_pkt *p)
{
	memset(par, 0, sizeof(*par));
	par->state = p->state;
	par->fragoff = p->fragoff;
	par->thoff = p->thoff;
}

static enum nfhp_ext_result nfhp_xt_match(const void *ext, void *pkt)
{
	const struct nfhp_xt_rule *x = ext;
	struct nfhp_xt_pkt *p = pkt;
	struct xt_action_param par;
	unsigned int i;
	bool match;

	if (!nfhp_setm_match(x->setm, x->nsetm, x->family, p))
		return NFHP_EXT_NOMATCH;
	nfhp_xt_param(&par, p);
	for (i = 0; i < x->nmatch; i++) {
		par.match = x->match[i].match;
		par.matchinfo = x->match[i].info;
		match = par.match->match(p->skb, &par);
		/* ipt_do_table drops a hotdropped packet, match or not. */
		if (par.hotdrop)
			return NFHP_EXT_HOTDROP;
		if (!match)
			return NFHP_EXT_NOMATCH;
	}
	if (x->keep)
		return nfhp_keep_state(x->net, p, &x->ks);
	return NFHP_EXT_MATCH;
}

static u32 nfhp_xt_target(const void *ext, void *pkt)
{
	const struct nfhp_xt_rule *x = ext;
	struct nfhp_xt_pkt *p = pkt;
	struct xt_action_param par;
	unsigned int v;

	nfhp_xt_param(&par, p);
	par.target = x->target.target;
	par.targinfo = x->target.info;
	v = par.target->target(p->skb, &par);
	BUILD_BUG_ON(XT_CONTINUE != NFHP_EXT_CONTINUE);
	return v;
}

/*
 * The hooks all of a rule's matches and its target are valid at (xt_match
 * and xt_target .hooks, 0 for any), as the core's hook bits.
 */
static unsigned int nfhp_xt_hooks(const void *ext)
{
	const struct nfhp_xt_rule *x = ext;
	unsigned int valid = ~0u, i;

	for (i = 0; i < x->nmatch; i++)
		if (x->match[i].match->hooks)
			valid &= x->match[i].match->hooks;
	if (x->has_target && x->target.target->hooks)
		valid &= x->target.target->hooks;
	return valid >> NF_INET_LOCAL_IN;
}

static bool nfhp_xt_stateless(const void *ext)
{
	const struct nfhp_xt_rule *x = ext;

	return x->stateless;
}

static void nfhp_xt_bind(void *ext, struct nfhp_counter __percpu *cnt)
{
	struct nfhp_xt_rule *x = ext;

	x->ks.cnt = cnt;
}

static void nfhp_xt_retire(void *priv, void *ext)
{
	struct nfhp_xt_rule *x = ext;

	if (x->keep)
		nfhp_keep_state_retire(x->net, &x->ks);
}

/* Of the dimensions, only the mark can change in the filter table. */
static bool nfhp_xt_rekey(void *pkt, struct nfhp_key *key)
{
	const struct nfhp_xt_pkt *p = pkt;

	if (key->v[NFHP_DIM_MARK] == p->skb->mark)
		return false;
	key->v[NFHP_DIM_MARK] = p->skb->mark;
	return true;
}

const struct nfhp_ext_ops nfhp_xt_ops = {
	.create = nfhp_xt_create4,
	.destroy = nfhp_xt_destroy,
	.match = nfhp_xt_match,
	.target = nfhp_xt_target,
	.rekey = nfhp_xt_rekey,
	.hooks = nfhp_xt_hooks,
	.stateless = nfhp_xt_stateless,
	.bind = nfhp_xt_bind,
	.check_state = nfhp_check_state,
	.retire = nfhp_xt_retire,
};

const struct nfhp_ext_ops nfhp_xt6_ops = {
	.create = nfhp_xt_create6,
	.destroy = nfhp_xt_destroy,
	.match = nfhp_xt_match,
	.target = nfhp_xt_target,
	.rekey = nfhp_xt_rekey,
	.hooks = nfhp_xt_hooks,
	.stateless = nfhp_xt_stateless,
	.bind = nfhp_xt_bind,
	.check_state = nfhp_check_state,
	.retire = nfhp_xt_retire,
};

/**
 * nfhp_xt_keep_state() - the keep-state part of a handle
 * @ext: a handle of nfhp_xt_ops or nfhp_xt6_ops
 *
 * A state's rule is this part (&struct nfhp_state.rule): the states'
 * netlink commands (state_netlink.c) find a state's rule by it, and give
 * a state added by hand the part of the rule it names.
 *
 * Return: the part, or NULL for a handle of no keep-state rule.
 */
struct nfhp_keep_state *nfhp_xt_keep_state(const void *ext)
{
	struct nfhp_xt_rule *x = (struct nfhp_xt_rule *)ext;

	return x->keep ? &x->ks : NULL;
}
