// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the naive reference classifier, see ref.h.
 *
 * Rules are kept in a compact copy of their spec (a full spec is ~7 KiB,
 * too much for 100k-rule benchmarks) and tested match by match, straight
 * from the definitions of the forms:
 *
 *   RANGES  the value lies in one of the intervals
 *   PREFIX  the top nranges bits equal those of the address
 *   MASK    (value & mask) == lo
 *   IFNAME  the names are equal, or the name starts with the text before
 *           a trailing '+'
 *
 * "!" flips the result, except that iptables' tcp, udp and icmp matches
 * never match a non-first fragment, negated or not.
 *
 * Like ipt_do_table(), a rule is tested in two steps: the addresses,
 * interfaces, protocol and fragment flag first, then module by module in
 * the order written (spec->order, then the canonical order of the rest).
 * A short packet (key.h) that reaches a tcp, udp or icmp module is
 * dropped on the spot, and multiport reads the ports of a header that is
 * short for the others and drops a packet without ports.
 */
#include "ref.h"

#include <stdlib.h>
#include <string.h>

struct ref_match {
	u8 dim, form, syntax, invert, nranges, bits;
	char ifname[NFHP_IFNAME_LEN + 1];
	struct nfhp_range *ranges;
};

/**
 * struct ref_rule - a rule, in a compact copy of its spec
 * @packets: the packets it counted
 * @state_cnt: the packets its states decided (&struct nfhp_ext_ops.bind)
 * @nmatch: entries in @m
 * @action: its &enum nfhp_action
 * @norder: entries in @order
 * @state: its &enum nfhp_rstate_mode
 * @order: its modules in the order written
 * @target: its chain for a jump or goto
 * @m: its matches
 * @ext_ops: the evaluator of its extensions
 * @ext: their handle, or NULL
 * @ext_match: the handle has matches to run
 */
struct ref_rule {
	u64 packets;
	struct nfhp_counter state_cnt;
	u8 nmatch, action, norder, state;
	u8 order[NFHP_MAX_ORDER];
	char target[NFHP_CHAIN_NAME_LEN];
	struct ref_match *m;
	const struct nfhp_ext_ops *ext_ops;
	void *ext;
	bool ext_match;
};

/**
 * struct ref_chain - a chain
 * @name: its name
 * @builtin: a hook's chain
 * @policy: a hook's chain's policy
 * @policy_packets: the packets its policy decided
 * @n: rules in @rules
 * @cap: room in @rules
 * @rules: its rules
 * @size: its rules in flattened order, the chains they jump or go to
 *	included (ref_flat_size())
 * @first_state: the flattened position of its first keep-state or
 *	CHECK-STATE rule, counted from its first rule; %REF_NOWHERE for none
 * @seen: 1 while ref_flat_size() is in it, 2 after
 */
struct ref_chain {
	char name[NFHP_CHAIN_NAME_LEN];
	bool builtin;
	u8 policy;
	u64 policy_packets;
	unsigned int n, cap;
	struct ref_rule **rules;
	u64 size, first_state;
	u8 seen;
};

/**
 * struct nfhp_ref - the reference
 * @family: its &enum nfhp_family
 * @n: chains in @chains
 * @cap: room in @chains
 * @chains: the chains
 * @ext_ops: the evaluator of extensions, or NULL
 * @ext_priv: what its create and check_state get
 * @stale: the chains' @size and @first_state need computing again
 */
struct nfhp_ref {
	u8 family;
	unsigned int n, cap;
	struct ref_chain **chains;
	const struct nfhp_ext_ops *ext_ops;
	void *ext_priv;
	bool stale;
};

/* No position: no state rule; past every rule: the policy. */
#define REF_NOWHERE	U64_MAX
/* Flattened sizes stop growing here: nested chains multiply. */
#define REF_SIZE_MAX	(1ull << 62)

static const char *const hook_chain[NFHP_HOOK_MAX] = {
	"INPUT", "FORWARD", "OUTPUT",
};

static struct ref_chain *find_chain(const struct nfhp_ref *ref,
				    const char *name)
{
	unsigned int i;

	for (i = 0; i < ref->n; i++)
		if (!strcmp(ref->chains[i]->name, name))
			return ref->chains[i];
	return NULL;
}

static void rule_free(struct ref_rule *r)
{
	unsigned int i;

	if (!r)
		return;
	for (i = 0; i < r->nmatch; i++)
		free(r->m[i].ranges);
	if (r->ext)
		r->ext_ops->destroy(NULL, r->ext);
	free(r->m);
	free(r);
}

static int rule_ext(const struct nfhp_ref *ref, struct ref_rule *r,
		    const struct nfhp_rule_spec *spec)
{
	const char *msg;

	int ret;

	if (spec->state.mode && (!ref->ext_ops || !ref->ext_ops->check_state))
		return -EOPNOTSUPP;
	if (!spec->ext_len && !spec->nsetm &&
	    spec->state.mode != NFHP_RSTATE_KEEP)
		return spec->action == NFHP_ACT_XT ? -EINVAL : 0;
	if (!ref->ext_ops)
		return -EOPNOTSUPP;
	r->ext_ops = ref->ext_ops;
	ret = ref->ext_ops->create(ref->ext_priv, spec, 0, &r->ext,
				   &r->ext_match, &msg);
	if (!ret && ref->ext_ops->bind)
		ref->ext_ops->bind(r->ext, &r->state_cnt);
	return ret;
}

static struct ref_rule *rule_new(const struct nfhp_ref *ref,
				 const struct nfhp_rule_spec *spec)
{
	struct ref_rule *r = calloc(1, sizeof(*r));
	unsigned int i, n;

	if (!r)
		return NULL;
	if (rule_ext(ref, r, spec))
		goto err;
	r->action = spec->action;
	r->state = spec->state.mode;
	r->norder = min_t(unsigned int, spec->norder, NFHP_MAX_ORDER);
	memcpy(r->order, spec->order, r->norder);
	memcpy(r->target, spec->target, sizeof(r->target));
	r->target[sizeof(r->target) - 1] = 0;
	r->m = calloc(spec->nmatch ? spec->nmatch : 1, sizeof(*r->m));
	if (!r->m)
		goto err;
	for (i = 0; i < spec->nmatch; i++) {
		const struct nfhp_dim_match *s = &spec->m[i];
		struct ref_match *m = &r->m[i];

		m->dim = s->dim;
		m->bits = nfhp_dim_bits(ref->family, s->dim);
		m->form = s->form;
		m->syntax = s->syntax;
		m->invert = s->invert;
		m->nranges = s->nranges;
		memcpy(m->ifname, s->ifname, sizeof(m->ifname));
		m->ifname[NFHP_IFNAME_LEN] = 0;
		n = s->form == NFHP_FORM_RANGES ? s->nranges : 1;
		if (n > NFHP_MAX_RANGES)
			goto err;
		m->ranges = malloc((n ? n : 1) * sizeof(*m->ranges));
		if (!m->ranges)
			goto err;
		memcpy(m->ranges, s->ranges, n * sizeof(*m->ranges));
		r->nmatch++;
	}
	return r;
err:
	rule_free(r);
	return NULL;
}

static int chain_add(struct nfhp_ref *ref, const char *name, bool builtin)
{
	struct ref_chain *c, **nc;

	if (!*name || strlen(name) >= NFHP_CHAIN_NAME_LEN)
		return -EINVAL;
	if (find_chain(ref, name))
		return -EEXIST;
	if (ref->n == ref->cap) {
		nc = realloc(ref->chains, (ref->cap * 2 + 4) * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		ref->chains = nc;
		ref->cap = ref->cap * 2 + 4;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	strcpy(c->name, name);
	c->builtin = builtin;
	c->policy = NFHP_ACT_ACCEPT;
	ref->chains[ref->n++] = c;
	ref->stale = true;
	return 0;
}

void nfhp_ref_set_ext(struct nfhp_ref *ref, const struct nfhp_ext_ops *ops,
		      void *priv)
{
	ref->ext_ops = ops;
	ref->ext_priv = priv;
}

struct nfhp_ref *nfhp_ref_new(u8 family)
{
	struct nfhp_ref *ref = calloc(1, sizeof(*ref));
	unsigned int h;

	if (!ref)
		return NULL;
	ref->family = family;
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		if (chain_add(ref, hook_chain[h], true)) {
			nfhp_ref_free(ref);
			return NULL;
		}
	}
	return ref;
}

void nfhp_ref_free(struct nfhp_ref *ref)
{
	unsigned int i;

	if (!ref)
		return;
	for (i = 0; i < ref->n; i++)
		nfhp_ref_flush(ref, ref->chains[i]->name);
	for (i = 0; i < ref->n; i++) {
		free(ref->chains[i]->rules);
		free(ref->chains[i]);
	}
	free(ref->chains);
	free(ref);
}

int nfhp_ref_chain_new(struct nfhp_ref *ref, const char *name)
{
	return chain_add(ref, name, false);
}

int nfhp_ref_chain_delete(struct nfhp_ref *ref, const char *name)
{
	struct ref_chain *c = find_chain(ref, name);
	unsigned int i, j, k;

	if (!c)
		return -ENOENT;
	if (c->builtin || c->n)
		return -EINVAL;
	for (i = 0; i < ref->n; i++)
		for (j = 0; j < ref->chains[i]->n; j++) {
			struct ref_rule *r = ref->chains[i]->rules[j];

			if ((r->action == NFHP_ACT_JUMP ||
			     r->action == NFHP_ACT_GOTO) &&
			    !strcmp(r->target, name))
				return -EBUSY;
		}
	for (k = 0; k < ref->n; k++)
		if (ref->chains[k] == c)
			break;
	free(c->rules);
	free(c);
	memmove(&ref->chains[k], &ref->chains[k + 1],
		(ref->n - k - 1) * sizeof(*ref->chains));
	ref->n--;
	ref->stale = true;
	return 0;
}

int nfhp_ref_policy(struct nfhp_ref *ref, const char *chain, u8 action)
{
	struct ref_chain *c = find_chain(ref, chain);

	if (!c)
		return -ENOENT;
	if (!c->builtin || (action != NFHP_ACT_ACCEPT &&
			    action != NFHP_ACT_DROP))
		return -EINVAL;
	c->policy = action;
	return 0;
}

int nfhp_ref_insert(struct nfhp_ref *ref, const char *chain, unsigned int pos,
		    const struct nfhp_rule_spec *spec)
{
	struct ref_chain *c = find_chain(ref, chain);
	struct ref_rule *r, **nr;

	if (!c)
		return -ENOENT;
	if (pos < 1 || pos > c->n + 1)
		return -EINVAL;
	if (c->n == c->cap) {
		nr = realloc(c->rules, (c->cap * 2 + 16) * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		c->rules = nr;
		c->cap = c->cap * 2 + 16;
	}
	r = rule_new(ref, spec);
	if (!r)
		return -ENOMEM;
	memmove(&c->rules[pos], &c->rules[pos - 1],
		(c->n - (pos - 1)) * sizeof(*c->rules));
	c->rules[pos - 1] = r;
	c->n++;
	ref->stale = true;
	return 0;
}

int nfhp_ref_delete(struct nfhp_ref *ref, const char *chain, unsigned int pos)
{
	struct ref_chain *c = find_chain(ref, chain);

	if (!c)
		return -ENOENT;
	if (pos < 1 || pos > c->n)
		return -ENOENT;
	rule_free(c->rules[pos - 1]);
	memmove(&c->rules[pos - 1], &c->rules[pos],
		(c->n - pos) * sizeof(*c->rules));
	c->n--;
	ref->stale = true;
	return 0;
}

int nfhp_ref_replace(struct nfhp_ref *ref, const char *chain,
		     unsigned int pos, const struct nfhp_rule_spec *spec)
{
	struct ref_chain *c = find_chain(ref, chain);
	struct ref_rule *r;

	if (!c)
		return -ENOENT;
	if (pos < 1 || pos > c->n)
		return -ENOENT;
	r = rule_new(ref, spec);
	if (!r)
		return -ENOMEM;
	rule_free(c->rules[pos - 1]);
	c->rules[pos - 1] = r;
	ref->stale = true;
	return 0;
}

int nfhp_ref_flush(struct nfhp_ref *ref, const char *chain)
{
	struct ref_chain *c = find_chain(ref, chain);
	unsigned int i;

	if (!c)
		return -ENOENT;
	for (i = 0; i < c->n; i++)
		rule_free(c->rules[i]);
	c->n = 0;
	ref->stale = true;
	return 0;
}

unsigned int nfhp_ref_nrules(const struct nfhp_ref *ref, const char *chain)
{
	struct ref_chain *c = find_chain(ref, chain);

	return c ? c->n : 0;
}

/* The interface name a key value stands for (see nfhp_ifname_value()). */
static void key_ifname(nfhp_u128 v, char *name)
{
	int i;

	for (i = 0; i < NFHP_IFNAME_LEN; i++)
		name[i] = (char)(u8)(v >> (8 * (NFHP_IFNAME_LEN - 1 - i)));
	name[NFHP_IFNAME_LEN] = 0;
}

static bool ifname_matches(const char *pattern, const char *name)
{
	size_t len = strlen(pattern);

	if (len && pattern[len - 1] == '+')
		return !strncmp(pattern, name, len - 1);
	return !strcmp(pattern, name);
}

static bool value_in(const struct nfhp_range *rg, unsigned int n,
		     nfhp_u128 v)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (v >= rg[i].lo && v <= rg[i].hi)
			return true;
	return false;
}

static bool match_one(u8 dim, u8 bits, u8 form, u8 syntax, u8 nranges,
		      const struct nfhp_range *rg, const char *ifname,
		      const struct nfhp_key *key)
{
	nfhp_u128 v = nfhp_key_plain(key, dim);
	char name[NFHP_IFNAME_LEN + 1];

	switch (form) {
	case NFHP_FORM_RANGES:
		if (syntax == NFHP_SYN_MULTIPORT_BOTH)
			return value_in(rg, nranges, key->v[NFHP_DIM_SPORT]) ||
			       value_in(rg, nranges, key->v[NFHP_DIM_DPORT]);
		return value_in(rg, nranges, v);
	case NFHP_FORM_PREFIX:
		if (!nranges)
			return true;
		if (nranges >= bits)
			return v == rg[0].lo;
		return (v >> (bits - nranges)) == (rg[0].lo >> (bits - nranges));
	case NFHP_FORM_MASK:
		return (v & rg[0].hi) == rg[0].lo;
	case NFHP_FORM_IFNAME:
		key_ifname(v, name);
		return ifname_matches(ifname, name);
	}
	return false;
}

static bool l4_dim(u8 dim)
{
	return dim == NFHP_DIM_SPORT || dim == NFHP_DIM_DPORT ||
	       dim == NFHP_DIM_TCPFLAGS || dim == NFHP_DIM_ICMP;
}

/* Is @m checked by ip_packet_match(), before any match module? */
static bool ip_part(const struct ref_match *m)
{
	if (m->dim == NFHP_DIM_SRC || m->dim == NFHP_DIM_DST)
		return m->syntax != NFHP_SYN_IPRANGE;
	return m->dim == NFHP_DIM_PROTO || m->dim == NFHP_DIM_FRAG ||
	       m->dim == NFHP_DIM_IIF || m->dim == NFHP_DIM_OIF;
}

static bool multiport(const struct ref_match *m)
{
	return (m->dim == NFHP_DIM_SPORT || m->dim == NFHP_DIM_DPORT) &&
	       m->syntax != NFHP_SYN_DEFAULT;
}

static bool one_matches(const struct ref_match *m, const struct nfhp_key *key)
{
	struct nfhp_key port;

	if (l4_dim(m->dim) && key->v[NFHP_DIM_FRAG])
		return false;
	/* --ports reads both ports. */
	if (multiport(m) && key->v[NFHP_DIM_SPORT] >= NFHP_L4_SHORT) {
		port = *key;
		port.v[NFHP_DIM_SPORT] -= NFHP_L4_SHORT;
		port.v[NFHP_DIM_DPORT] -= NFHP_L4_SHORT;
		key = &port;
	}
	if (l4_dim(m->dim) && key->v[m->dim] > 0xffff)
		return false;
	return match_one(m->dim, m->bits, m->form, m->syntax, m->nranges,
			 m->ranges, m->ifname, key) != !!m->invert;
}

/*
 * The module iptables runs @m in (enum nfhp_module), -1 for the IP part.
 * tcp stands for the protocol's match (udp, icmp) and state for
 * conntrack: a rule iptables takes has one of each.
 */
static int module_of(const struct ref_match *m)
{
	if (ip_part(m))
		return -1;
	if (multiport(m))
		return NFHP_MOD_MULTIPORT;
	switch (m->dim) {
	case NFHP_DIM_SPORT:
	case NFHP_DIM_DPORT:
	case NFHP_DIM_TCPFLAGS:
	case NFHP_DIM_ICMP:
		return NFHP_MOD_TCP;
	case NFHP_DIM_STATE:
		return NFHP_MOD_STATE;
	case NFHP_DIM_TTL:
		return NFHP_MOD_TTL;
	case NFHP_DIM_LEN:
		return NFHP_MOD_LENGTH;
	case NFHP_DIM_MARK:
		return NFHP_MOD_MARK;
	default:
		return NFHP_MOD_IPRANGE;
	}
}

static u8 module_pair(u8 mod)
{
	if (mod == NFHP_MOD_UDP || mod == NFHP_MOD_ICMP)
		return NFHP_MOD_TCP;
	if (mod == NFHP_MOD_CONNTRACK)
		return NFHP_MOD_STATE;
	return mod;
}

/* The modules of @r in the order iptables runs them; returns how many. */
static unsigned int run_order(const struct ref_rule *r, u8 *seq)
{
	static const u8 canonical[] = {
		NFHP_MOD_TCP, NFHP_MOD_MULTIPORT, NFHP_MOD_IPRANGE,
		NFHP_MOD_STATE, NFHP_MOD_TTL, NFHP_MOD_LENGTH, NFHP_MOD_MARK,
	};
	bool seen[NFHP_MOD_MAX] = { false };
	unsigned int i, n = 0;
	u8 mod;

	for (i = 0; i < r->norder + ARRAY_SIZE(canonical); i++) {
		mod = i < r->norder ? r->order[i] : canonical[i - r->norder];
		if (mod >= NFHP_MOD_MAX)
			continue;
		mod = module_pair(mod);
		if (!seen[mod]) {
			seen[mod] = true;
			seq[n++] = mod;
		}
	}
	return n;
}

/*
 * Would module @mod of @r drop @key outright?  A short header marks every
 * field of the protocol's match (key.h); the rules iptables accepts name
 * the protocol of their tcp, udp or icmp match, so any of them would do.
 * For those that do not, the first of destination port, source port, TCP
 * flags and ICMP type the module restricts decides, as in the tree.
 * Multiport only drops packets without ports.
 */
static bool hotdrops(const struct ref_rule *r, u8 mod,
		     const struct nfhp_key *key)
{
	static const u8 pref[] = {
		NFHP_DIM_DPORT, NFHP_DIM_SPORT, NFHP_DIM_TCPFLAGS, NFHP_DIM_ICMP,
	};
	unsigned int i, p;

	if (mod == NFHP_MOD_MULTIPORT)
		return key->v[NFHP_DIM_SPORT] == NFHP_L4_TRUNCATED;
	for (p = 0; p < ARRAY_SIZE(pref); p++)
		for (i = 0; i < r->nmatch; i++)
			if (r->m[i].dim == pref[p] &&
			    module_of(&r->m[i]) == mod)
				return key->v[pref[p]] > NFHP_L4_FRAGMENT;
	return false;
}

enum ref_outcome { REF_NO_MATCH, REF_MATCH, REF_HOTDROP };

static enum ref_outcome rule_outcome(const struct ref_rule *r,
				     const struct nfhp_key *key, void *pkt)
{
	u8 seq[NFHP_MOD_MAX];
	bool header_read = false;
	unsigned int i, k, n;

	for (i = 0; i < r->nmatch; i++)
		if (ip_part(&r->m[i]) && !one_matches(&r->m[i], key))
			return REF_NO_MATCH;
	n = run_order(r, seq);
	for (k = 0; k < n; k++) {
		bool used = false;

		for (i = 0; i < r->nmatch; i++) {
			if (module_of(&r->m[i]) != seq[k])
				continue;
			if (!used && !header_read &&
			    hotdrops(r, seq[k], key))
				return REF_HOTDROP;
			used = true;
			if (!one_matches(&r->m[i], key))
				return REF_NO_MATCH;
		}
		/* What passed the protocol's match has its whole header. */
		header_read |= used && seq[k] == NFHP_MOD_TCP;
	}
	if (!r->ext_match)
		return REF_MATCH;
	switch (r->ext_ops->match(r->ext, pkt)) {
	case NFHP_EXT_MATCH:
		return REF_MATCH;
	case NFHP_EXT_HOTDROP:
		return REF_HOTDROP;
	default:
		return REF_NO_MATCH;
	}
}

static bool rule_jumps(const struct ref_rule *r)
{
	return r->action == NFHP_ACT_JUMP || r->action == NFHP_ACT_GOTO;
}

static u64 size_add(u64 a, u64 b)
{
	return min_t(u64, a + b, REF_SIZE_MAX);
}

static void ref_flat_size(const struct nfhp_ref *ref, struct ref_chain *c);

/*
 * The positions rule @r takes in flattened order: itself, and the rules
 * of the chain it jumps or goes to, where the core's flattening puts
 * them (kernel/flat.c).
 */
static u64 rule_size(const struct nfhp_ref *ref, const struct ref_rule *r)
{
	struct ref_chain *t;

	if (!rule_jumps(r))
		return 1;
	t = find_chain(ref, r->target);
	if (!t)
		return 1;
	ref_flat_size(ref, t);
	return size_add(1, t->size);
}

/*
 * The flattened size of @c and the position of its first state rule,
 * once.  A loop of jumps (which the core refuses) counts as huge.
 */
static void ref_flat_size(const struct nfhp_ref *ref, struct ref_chain *c)
{
	struct ref_chain *t;
	unsigned int i;
	u64 pos = 0;

	if (c->seen == 2)
		return;
	if (c->seen == 1) {
		c->size = REF_SIZE_MAX;
		return;
	}
	c->seen = 1;
	c->first_state = REF_NOWHERE;
	for (i = 0; i < c->n; i++) {
		const struct ref_rule *r = c->rules[i];
		u64 size = rule_size(ref, r);

		if (c->first_state == REF_NOWHERE && r->state) {
			c->first_state = pos;
		} else if (c->first_state == REF_NOWHERE && rule_jumps(r)) {
			t = find_chain(ref, r->target);
			if (t && t->seen == 2 && t->first_state != REF_NOWHERE)
				c->first_state = size_add(pos + 1,
							  t->first_state);
		}
		pos = size_add(pos, size);
	}
	c->size = pos;
	c->seen = 2;
}

/*
 * The check point of @hook: the flattened position of its first
 * keep-state or CHECK-STATE rule, counted from the first rule of its
 * chain (kernel/classify.c, DOC: The check point), or %REF_NOWHERE.
 */
static u64 check_point(struct nfhp_ref *ref, enum nfhp_hook hook)
{
	unsigned int i;

	if (ref->stale) {
		for (i = 0; i < ref->n; i++)
			ref->chains[i]->seen = 0;
		for (i = 0; i < ref->n; i++)
			ref_flat_size(ref, ref->chains[i]);
		ref->stale = false;
	}
	return find_chain(ref, hook_chain[hook])->first_state;
}

static void decide(struct nfhp_ref_verdict *v, u8 action,
		   const struct ref_chain *c, unsigned int pos)
{
	v->action = action;
	strcpy(v->chain, c->name);
	v->pos = pos;
}

/**
 * struct ref_walk - a packet's way through the rules
 * @ref: the reference
 * @base: the hook's chain
 * @pkt: the packet, for the extensions
 * @check_at: the hook's check point, %REF_NOWHERE once looked up
 */
struct ref_walk {
	struct nfhp_ref *ref;
	struct ref_chain *base;
	void *pkt;
	u64 check_at;
};

/*
 * Reaching flattened position @pos: at or past the check point for the
 * first time, the states are looked up.  True when one decides @v.
 */
static bool state_decides(struct ref_walk *w, u64 pos,
			  struct nfhp_ref_verdict *v)
{
	u8 action;

	if (w->check_at == REF_NOWHERE || pos < w->check_at)
		return false;
	w->check_at = REF_NOWHERE;
	action = w->ref->ext_ops->check_state(w->ref->ext_priv, w->pkt);
	if (action == NFHP_ACT_NONE)
		return false;
	decide(v, action, w->base, 0);
	v->state = true;
	return true;
}

void nfhp_ref_classify(struct nfhp_ref *ref, enum nfhp_hook hook,
		       const struct nfhp_key *pkey, void *pkt,
		       struct nfhp_ref_verdict *v)
{
	struct nfhp_key k = *pkey, *key = &k;
	struct {
		struct ref_chain *c;
		unsigned int next;
		u64 pos;
	} stack[NFHP_REF_MAX_DEPTH];
	struct ref_walk w = {
		.ref = ref, .base = find_chain(ref, hook_chain[hook]),
		.pkt = pkt, .check_at = check_point(ref, hook),
	};
	struct ref_chain *c = w.base, *t;
	unsigned int sp = 0, i = 0, hops = 0;
	u64 pos = 0, at;	/* the flattened position of rule i of c */

	memset(v, 0, sizeof(*v));
	for (;;) {
		struct ref_rule *r;

		if (i >= c->n) {
			/* End of chain: an implicit RETURN. */
			if (!sp)
				break;
			sp--;
			c = stack[sp].c;
			i = stack[sp].next;
			pos = stack[sp].pos;
			continue;
		}
		r = c->rules[i++];
		at = pos;
		/* Positions count only until the states are looked up. */
		if (w.check_at != REF_NOWHERE)
			pos = size_add(pos, rule_size(ref, r));
		if (state_decides(&w, at, v))
			return;
		switch (rule_outcome(r, key, pkt)) {
		case REF_NO_MATCH:
			continue;
		case REF_HOTDROP:
			decide(v, NFHP_ACT_DROP, w.base, 0);
			v->hotdrop = true;
			return;
		case REF_MATCH:
			break;
		}
		r->packets++;
		switch (r->action) {
		case NFHP_ACT_ACCEPT:
		case NFHP_ACT_DROP:
		case NFHP_ACT_QUEUE:
			decide(v, r->action, c, i);
			return;
		case NFHP_ACT_XT:
			v->xt_verdict = r->ext_ops->target(r->ext, pkt);
			if (v->xt_verdict == NFHP_EXT_CONTINUE) {
				if (r->ext_ops->rekey)
					r->ext_ops->rekey(pkt, key);
				continue;
			}
			decide(v, r->action, c, i);
			return;
		case NFHP_ACT_RETURN:
			if (!sp)
				goto policy;
			sp--;
			c = stack[sp].c;
			i = stack[sp].next;
			pos = stack[sp].pos;
			continue;
		case NFHP_ACT_JUMP:
		case NFHP_ACT_GOTO:
			t = find_chain(ref, r->target);
			if (!t)
				continue;	/* cannot happen in iptables */
			if (++hops > 1u << 20 ||
			    (r->action == NFHP_ACT_JUMP &&
			     sp == NFHP_REF_MAX_DEPTH)) {
				decide(v, NFHP_ACT_DROP, w.base, 0);
				v->loop = true;
				return;
			}
			if (r->action == NFHP_ACT_JUMP) {
				stack[sp].c = c;
				stack[sp].next = i;
				stack[sp].pos = pos;
				sp++;
			}
			c = t;
			i = 0;
			pos = at + 1;
			continue;
		default:
			continue;	/* no target: count only */
		}
	}
policy:
	if (state_decides(&w, REF_NOWHERE, v))
		return;
	w.base->policy_packets++;
	decide(v, w.base->policy, w.base, 0);
}

u64 nfhp_ref_packets(const struct nfhp_ref *ref, const char *chain,
		     unsigned int pos)
{
	const struct ref_chain *c = find_chain(ref, chain);

	if (!c || pos > c->n)
		return 0;
	if (!pos)
		return c->policy_packets;
	return c->rules[pos - 1]->packets + c->rules[pos - 1]->state_cnt.packets;
}
