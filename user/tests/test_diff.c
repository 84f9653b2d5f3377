// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the classifier core against the naive reference
 * (user/sim/ref.c), in the spirit of wireguard's selftest/allowedips.c.
 *
 * Random rule sets over small value domains, so that prefixes, ranges,
 * negations, wildcards and interface patterns overlap a lot; user chains
 * with jump, goto and RETURN; both policies.  Packets are random and on
 * every interval boundary (lo - 1, lo, hi, hi + 1 of every rule).  Then
 * random inserts, deletes, replaces, flushes and policy changes, each
 * checked, and transactions that are aborted (nothing may change), hit
 * by an injected allocation failure (nothing may change either), or
 * prepared and then dropped, as a commit of both families drops one when
 * the other fails.  What earlier commits replaced is released now and
 * then in the middle of a transaction, as the kernel's release work may
 * be.  In a
 * third of the rule sets tree updates may visit few nodes or none, so they
 * give up and the trees are built anew instead.
 *
 * A quarter of the rules carry "extensions" (ext.h) of a model evaluator:
 * matches that pass or fail by a hash of the packet, fail on all but every
 * k-th run (so running one more or one less often than iptables shows), or
 * hotdrop; targets that continue, drop or accept.  Tree and reference run
 * the same model, so what is compared is when and how often the core runs
 * extensions: jumps that may not be taken, returns inside them, counters.
 *
 * Dynamic states: some ACCEPT and DROP rules keep state (with a limit
 * now and then), some are CHECK-STATE.  The tree and the reference each
 * keep theirs in a table of the core's (sim/states.h); a packet's flow is
 * read from its key, a third of the packets are a recent one again or its
 * reply, and time passes, so states are made, decide at the check point
 * (the reference numbers the rules in flattened order, the user chains'
 * among them), count on their rules, and expire.  State rules go in any
 * chain, with native matches: many of a random user chain's are ones
 * the jumps to it exclude, whose entries flattening drops, and which are
 * the check point all the same (flat.c, nfhp_flat_dropped()).  Every
 * change flushes both tables: which rules a commit carries over with
 * their states (adopt.c) is test_state_rules's to prove, not this test's.
 *
 * Two rule sets in five are IPv6 ones, whose addresses are 128 bits wide:
 * their values differ in six bits at the top, around bit 64 or at the
 * bottom, so that prefixes of /0, /1, /63, /64, /65, /127 and /128 split
 * them.
 *
 * Usage: test_diff [RULESETS [SEED]]
 */
#include "group.h"
#include "print.h"
#include "../sim/ref.h"
#include "../sim/states.h"
#include "stats.h"
#include "tree.h"
#include "tunables.h"

#define NCHAINS		4	/* user chains U0..U3; Ui jumps only to Uj, j > i */
#define MAX_RULES	24
#define PACKETS		100

static const char * const hooks[] = { "INPUT", "FORWARD", "OUTPUT" };

/*
 * The model extensions: spec->ext holds struct model_spec.  @every > 1:
 * the matches fail on all runs but every @every-th of the rule.
 */
struct model_spec {
	u8 has_match;
	u8 pct;
	u8 seed;
	u8 every;
	u8 hotdrop;
	u8 target;	/* 0 continue, 1 drop, 2 accept, 3 by hash, 4 mark */
};

struct model_ext {
	struct model_spec s;
	unsigned int runs;
};

/*
 * The packet as the model sees it: one random number per classification,
 * and its mark, which target 4 sets; and as the states see it, its flow,
 * TCP flags and acknowledgment number (key_flow()).
 */
struct model_pkt {
	u64 nonce;
	u32 mark;
	struct nfhp_state_tuple flow;
	u8 tcp_flags;
	u32 ack;
};

static u32 model_hash(const struct model_pkt *p, u8 seed)
{
	u64 x = (p->nonce ^ (seed * 0x9e3779b97f4a7c15ull)) *
		0xbf58476d1ce4e5b9ull;

	return (u32)(x >> 35);
}

static int model_create(void *priv, const struct nfhp_rule_spec *spec,
			unsigned int hooks, void **ext, bool *matches,
			const char **msg)
{
	struct model_ext *m;

	if (spec->ext_len != sizeof(m->s))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	memcpy(&m->s, spec->ext, sizeof(m->s));
	*matches = m->s.has_match;
	*ext = m;
	return 0;
}

static void model_destroy(void *priv, void *ext)
{
	free(ext);
}

static enum nfhp_ext_result model_match(const void *ext, void *pkt)
{
	struct model_ext *m = (struct model_ext *)ext;
	u32 h = model_hash(pkt, m->s.seed);

	if (m->s.every > 1 && ++m->runs % m->s.every)
		return NFHP_EXT_NOMATCH;
	if (m->s.hotdrop && h % 7 == 0)
		return NFHP_EXT_HOTDROP;
	return h % 100 < m->s.pct ? NFHP_EXT_MATCH : NFHP_EXT_NOMATCH;
}

/*
 * How far the address and mark values of a rule set are shifted to the
 * left: the interesting values then differ in a higher byte, where the
 * radix sort of a split (tree_split.c) must order them.
 */
static unsigned int spread;

static u32 model_target(const void *ext, void *pkt)
{
	const struct model_ext *m = ext;
	u32 h = model_hash(pkt, m->s.seed + 1) % 3;

	switch (m->s.target) {
	case 1:
		return 0;	/* NF_DROP */
	case 2:
		return 1;	/* NF_ACCEPT */
	case 3:
		return h == 2 ? NFHP_EXT_CONTINUE : h;
	case 4:
		/* Where the rules' marks are: plain or spread (gen_match()). */
		((struct model_pkt *)pkt)->mark = (m->s.seed % 8) <<
						  (m->s.seed & 8 ? spread : 0);
		break;
	}
	return NFHP_EXT_CONTINUE;
}

static bool model_rekey(void *pkt, struct nfhp_key *key)
{
	const struct model_pkt *p = pkt;

	if (key->v[NFHP_DIM_MARK] == p->mark)
		return false;
	key->v[NFHP_DIM_MARK] = p->mark;
	return true;
}

/* Only the every-@every-th matches count their runs. */
static bool model_stateless(const void *ext)
{
	const struct model_ext *m = ext;

	return m->s.every <= 1;
}

static const struct nfhp_ext_ops model_ops = {
	.create = model_create,
	.destroy = model_destroy,
	.match = model_match,
	.target = model_target,
	.rekey = model_rekey,
	.stateless = model_stateless,
};

/* The flow of a &struct model_pkt, for the states (states.h). */
static const struct nfhp_state_tuple *model_flow(const void *pkt,
						 u8 *tcp_flags, u32 *ack,
						 u32 *len)
{
	const struct model_pkt *p = pkt;

	*tcp_flags = p->tcp_flags;
	*ack = p->ack;
	*len = 1;
	return &p->flow;
}

/*
 * The states of the rule set under test, of the reference, and of the
 * copies shadow_same() builds; their clock, 100 ticks a second.
 */
static struct nfhp_sim_states core_st, ref_st, copy_st;
static unsigned long now;

#define STATE_HZ	100

/* Fresh tables for the next rule set, which evaluate the model's too. */
static void states_init(u8 fam)
{
	struct nfhp_sim_states *st[] = { &core_st, &ref_st, &copy_st };
	struct nfhp_state_tunables tun;
	unsigned int i;

	nfhp_state_tunables_default(&tun);
	tun.buckets_init = 4;
	tun.buckets_max = 64;
	tun.max_states = 48;
	for (i = 0; i < ARRAY_SIZE(st); i++) {
		memset(st[i], 0, sizeof(*st[i]));
		st[i]->flow = model_flow;
		if (nfhp_sim_states_init(st[i], fam, STATE_HZ, &tun))
			abort();
		nfhp_sim_states_set_inner(st[i], &model_ops, NULL);
	}
	now = 0;
}

static void states_destroy(void)
{
	nfhp_sim_states_destroy(&core_st);
	nfhp_sim_states_destroy(&ref_st);
	nfhp_sim_states_destroy(&copy_st);
}

/* After a change both tables start empty: see the head of the file. */
static void states_flush(void)
{
	nfhp_state_flush(&core_st.table, NULL);
	nfhp_state_flush(&ref_st.table, NULL);
}
static const char * const users[NCHAINS] = { "U0", "U1", "U2", "U3" };
static const char * const ifnames[] = { "eth0", "eth1", "eth", "veth0",
					"lo", "eth+", "veth+", "+" };
/* Packets carry real names only; these sit on and around the patterns. */
static const char * const pkt_ifs[] = { "", "eth0", "eth1", "eth", "veth0",
					"lo", "et", "eth01", "etg", "ethz",
					"veth", "vetha", "lo0", "z" };

static unsigned long long rng_state;

/* The family of the rule set under test, and where IPv6 addresses vary. */
static u8 family;
static unsigned int shift6;

#define V6_BASE		((nfhp_u128)0x20010db8 << 96)
static const unsigned int shifts6[] = { 0, 61, 122 };
static const u8 prefixes6[] = { 0, 1, 63, 64, 65, 127, 128 };

static bool v6_addr_dim(u8 dim)
{
	return family == NFHP_FAMILY_IPV6 &&
	       (dim == NFHP_DIM_SRC || dim == NFHP_DIM_DST);
}

static u32 rnd(u32 n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return n ? (u32)(rng_state >> 33) % n : 0;
}

/* Small domains: every dimension has a handful of interesting values. */
static u32 dim_lo(u8 dim)
{
	return dim == NFHP_DIM_SRC || dim == NFHP_DIM_DST ? 0x0a000000 : 0;
}

static u32 dim_spread(u8 dim)
{
	return dim == NFHP_DIM_SRC || dim == NFHP_DIM_DST ||
	       dim == NFHP_DIM_MARK ? spread : 0;
}

static u32 dim_width(u8 dim)
{
	switch (dim) {
	case NFHP_DIM_SRC:
	case NFHP_DIM_DST:
		return 64;
	case NFHP_DIM_PROTO:
		return 20;
	case NFHP_DIM_STATE:
		return NFHP_CT_MAX;
	case NFHP_DIM_FRAG:
		return 2;
	case NFHP_DIM_TCPFLAGS:
		return 64;
	case NFHP_DIM_ICMP:
		return 0x400;
	default:
		return 16;
	}
}

static void gen_ranges(struct nfhp_dim_match *m)
{
	u32 base = dim_lo(m->dim), w = dim_width(m->dim), i;

	m->form = NFHP_FORM_RANGES;
	m->nranges = 1 + (rnd(3) == 0 ? rnd(3) : 0);
	for (i = 0; i < m->nranges; i++) {
		u32 a = rnd(w), b = rnd(w);

		if (rnd(3) == 0)
			b = a;
		m->ranges[i].lo = base + (min(a, b) << dim_spread(m->dim));
		m->ranges[i].hi = base + (max(a, b) << dim_spread(m->dim));
	}
}

/* An IPv6 address whose varying bits are @x. */
static nfhp_u128 addr6(u32 x)
{
	return (shift6 >= 96 ? 0 : V6_BASE) | ((nfhp_u128)x << shift6);
}

/* The bits of an IPv6 address below the varying ones, all set. */
static nfhp_u128 below6(void)
{
	return ((nfhp_u128)1 << shift6) - 1;
}

static void gen_addr6(struct nfhp_dim_match *m)
{
	u32 a = rnd(64), b = rnd(64);

	switch (rnd(4)) {
	case 0:
		m->form = NFHP_FORM_RANGES;
		m->nranges = 1;
		m->ranges[0].lo = addr6(min(a, b));
		m->ranges[0].hi = addr6(max(a, b)) | (rnd(2) ? below6() : 0);
		break;
	case 1:
		m->form = NFHP_FORM_MASK;
		m->ranges[0].hi = ~((nfhp_u128)(rnd(64) & 0x3f) << shift6);
		m->ranges[0].lo = addr6(a) & m->ranges[0].hi;
		break;
	default:
		m->form = NFHP_FORM_PREFIX;
		if (rnd(3) == 0)
			m->nranges = prefixes6[rnd(ARRAY_SIZE(prefixes6))];
		else
			m->nranges = 128 - shift6 - rnd(7);
		m->ranges[0].lo = addr6(a) | (rnd(4) ? 0 : rnd(1u << 20));
	}
}

static void gen_match(struct nfhp_dim_match *m, u8 dim)
{
	memset(m, 0, sizeof(*m));
	m->dim = dim;
	m->invert = rnd(5) == 0;
	if (v6_addr_dim(dim)) {
		gen_addr6(m);
		return;
	}
	switch (dim) {
	case NFHP_DIM_SRC:
	case NFHP_DIM_DST:
		if (rnd(2)) {
			gen_ranges(m);
			break;
		}
		/* A netmask with holes among the interesting bits. */
		if (rnd(8) == 0) {
			m->form = NFHP_FORM_MASK;
			m->ranges[0].hi = ~((rnd(64) & 0x3fu) << spread) &
					  0xffffffffu;
			m->ranges[0].lo = (dim_lo(dim) + (rnd(64) << spread)) &
					  m->ranges[0].hi;
			break;
		}
		m->form = NFHP_FORM_PREFIX;
		m->nranges = 26 + rnd(7);
		/* Now and then a wide or middle one over the narrow ones. */
		if (rnd(6) == 0)
			m->nranges = 4 + rnd(17);
		m->ranges[0].lo = dim_lo(dim) + (rnd(64) << spread);
		break;
	case NFHP_DIM_TCPFLAGS:
		m->form = NFHP_FORM_MASK;
		m->ranges[0].hi = rnd(64);
		m->ranges[0].lo = rnd(64) & m->ranges[0].hi;
		break;
	case NFHP_DIM_MARK:
		if (rnd(2)) {
			gen_ranges(m);
			break;
		}
		m->form = NFHP_FORM_MASK;
		m->ranges[0].hi = rnd(2) ? 0xffffffff : 0xfffffffc;
		m->ranges[0].lo = rnd(16) & m->ranges[0].hi;
		break;
	case NFHP_DIM_IIF:
	case NFHP_DIM_OIF:
		m->form = NFHP_FORM_IFNAME;
		strcpy(m->ifname, ifnames[rnd(ARRAY_SIZE(ifnames))]);
		break;
	case NFHP_DIM_SPORT:
	case NFHP_DIM_DPORT:
		/* multiport, whose short packets differ from tcp's */
		if (rnd(4) == 0)
			m->syntax = NFHP_SYN_MULTIPORT;
		gen_ranges(m);
		break;
	default:
		gen_ranges(m);
	}
}

/*
 * Half the rule sets have no RETURN and no goto: their hooks are split into
 * per-group trees and updated incrementally, the others rebuilt.
 */
static bool flat_only;

/* Model extensions for @s: matches, or an extension target, or both. */
static void gen_ext(struct nfhp_rule_spec *s)
{
	struct model_spec m = {
		.pct = rnd(101),
		.seed = rnd(256),
		.every = rnd(4) ? 1 : 2 + rnd(2),
		.hotdrop = rnd(6) == 0,
		.target = rnd(5),
	};

	m.has_match = rnd(3) != 0;
	if (rnd(3) == 0 && s->action != NFHP_ACT_JUMP &&
	    s->action != NFHP_ACT_GOTO && s->action != NFHP_ACT_RETURN)
		s->action = NFHP_ACT_XT;
	else if (!m.has_match)
		return;
	memcpy(s->ext, &m, sizeof(m));
	s->ext_len = sizeof(m);
}

/*
 * Now and then the order the modules were written in, which iptables runs
 * them in: a random choice of them, shuffled, some under their other
 * name (udp, conntrack).  A tcp match comes before multiport, as userspace
 * sends it (a later one goes to xtables), and before icmp, which iptables
 * never has in one rule with it.
 */
static void gen_order(struct nfhp_rule_spec *s)
{
	static const u8 mods[] = {
		NFHP_MOD_TCP, NFHP_MOD_MULTIPORT, NFHP_MOD_ICMP,
		NFHP_MOD_IPRANGE, NFHP_MOD_STATE, NFHP_MOD_TTL,
		NFHP_MOD_LENGTH, NFHP_MOD_MARK, NFHP_MOD_COMMENT,
	};
	unsigned int i, j, n = 0;
	int mp = -1, tp = -1;
	u8 t;

	for (i = 0; i < ARRAY_SIZE(mods); i++)
		if (rnd(3))
			s->order[n++] = mods[i];
	for (i = n; i > 1; i--) {
		j = rnd(i);
		t = s->order[i - 1];
		s->order[i - 1] = s->order[j];
		s->order[j] = t;
	}
	for (i = 0; i < n; i++) {
		if ((s->order[i] == NFHP_MOD_MULTIPORT ||
		     s->order[i] == NFHP_MOD_ICMP) && mp < 0)
			mp = i;
		else if (s->order[i] == NFHP_MOD_TCP)
			tp = i;
	}
	if (mp >= 0 && (tp < 0 || tp > mp)) {
		if (tp > mp)
			memmove(&s->order[tp], &s->order[tp + 1], --n - tp);
		memmove(&s->order[mp + 1], &s->order[mp], n - mp);
		s->order[mp] = NFHP_MOD_TCP;
		n++;
	}
	for (i = 0; i < n; i++) {
		if (s->order[i] == NFHP_MOD_TCP && rnd(2))
			s->order[i] = NFHP_MOD_UDP;
		else if (s->order[i] == NFHP_MOD_STATE && rnd(2))
			s->order[i] = NFHP_MOD_CONNTRACK;
	}
	s->norder = n;
}

/*
 * Now and then a rule of any chain keeps state (ACCEPT and DROP rules
 * only, with a limit by random fields now and then), or is CHECK-STATE
 * instead; in a user chain (@level 0 on) less often: one there is often
 * excluded by the jumps to it, and such a rule makes no state.
 */
static void gen_state(struct nfhp_rule_spec *s, int level)
{
	if (level >= 0 && rnd(3))
		return;
	if (rnd(12) == 0) {
		memset(s, 0, sizeof(*s));
		s->state.mode = NFHP_RSTATE_CHECK;
		return;
	}
	if ((s->action != NFHP_ACT_ACCEPT && s->action != NFHP_ACT_DROP) ||
	    rnd(4))
		return;
	s->state.mode = NFHP_RSTATE_KEEP;
	if (rnd(3))
		return;
	s->state.limit = 1 + rnd(3);
	s->state.limit_by = 1 + rnd(NFHP_STATE_LIMIT_ALL);
}

/* A random rule; a chain of index @level may only jump to deeper ones. */
static void gen_spec(struct nfhp_rule_spec *s, int level)
{
	unsigned int n = rnd(5), d, r;
	u16 used = 0;

	memset(s, 0, sizeof(*s));
	while (n--)
		used |= 1u << rnd(NFHP_DIM_MAX);
	/* Mostly, as iptables has them, ports of one protocol (match.c). */
	if ((used & (1u << NFHP_DIM_DPORT)) && rnd(3))
		used |= 1u << NFHP_DIM_PROTO;
	for (d = 0; d < NFHP_DIM_MAX; d++)
		if (used & (1u << d))
			gen_match(&s->m[s->nmatch++], d);
	for (d = 0; d < s->nmatch; d++)
		if (s->m[d].dim == NFHP_DIM_PROTO &&
		    (used & (1u << NFHP_DIM_DPORT)) && rnd(3)) {
			s->m[d].invert = 0;
			s->m[d].nranges = 1;
			s->m[d].ranges[0].hi = s->m[d].ranges[0].lo;
		}
	/* Now and then "-m multiport --ports", which lands on dport. */
	if ((used & (1u << NFHP_DIM_DPORT)) &&
	    !(used & (1u << NFHP_DIM_SPORT)) && rnd(3) == 0) {
		for (d = 0; s->m[d].dim != NFHP_DIM_DPORT; d++)
			;
		gen_ranges(&s->m[d]);
		s->m[d].syntax = NFHP_SYN_MULTIPORT_BOTH;
	}
	if (rnd(3) == 0)
		gen_order(s);
	r = rnd(20);
	if (r < 8)
		s->action = NFHP_ACT_ACCEPT;
	else if (r < 14)
		s->action = rnd(6) ? NFHP_ACT_DROP : NFHP_ACT_QUEUE;
	else if (r < 16)
		s->action = NFHP_ACT_NONE;
	else if (r < 17 && level >= 0 && !flat_only)
		s->action = NFHP_ACT_RETURN;
	else if (level + 1 < NCHAINS)
		s->action = rnd(3) || flat_only ? NFHP_ACT_JUMP :
						  NFHP_ACT_GOTO;
	else
		s->action = NFHP_ACT_DROP;
	if (s->action == NFHP_ACT_JUMP || s->action == NFHP_ACT_GOTO)
		strcpy(s->target, users[level + 1 + rnd(NCHAINS - level - 1)]);
	/* Branches with extensions are rarer, and the hardest case. */
	if (rnd(s->action == NFHP_ACT_RETURN || s->action == NFHP_ACT_JUMP ||
		s->action == NFHP_ACT_GOTO ? 2 : 4) == 0)
		gen_ext(s);
	gen_state(s, level);
}

struct pools {
	u32 n[NFHP_DIM_MAX];
	nfhp_u128 v[NFHP_DIM_MAX][256];
};

static void pool_add(struct pools *p, u8 d, nfhp_u128 v)
{
	if (v > nfhp_dim_span(family, d) || p->n[d] == 256)
		return;
	p->v[d][p->n[d]++] = v;
}

/*
 * lo - 1, lo, hi, hi + 1 of an interval; a source port is a boundary of
 * the destination port too, for "--ports" rules whose first box has only
 * the source port.
 */
static void pool_add_range(struct pools *p, u8 d, const struct nfhp_range *r)
{
	if (d == NFHP_DIM_SPORT)
		pool_add_range(p, NFHP_DIM_DPORT, r);
	if (r->lo)
		pool_add(p, d, r->lo - 1);
	pool_add(p, d, r->lo);
	pool_add(p, d, r->hi);
	if (r->hi != ~(nfhp_u128)0)
		pool_add(p, d, r->hi + 1);
}

/* Boundary values: lo - 1, lo, hi, hi + 1 of every interval of every rule. */
static void pools_fill(struct pools *p, struct nfhp_ruleset *rs)
{
	const struct nfhp_chain *c;
	unsigned int pos, d, i;

	memset(p->n, 0, sizeof(p->n));
	for (c = nfhp_chain_first(rs); c; c = nfhp_chain_next(rs, c)) {
		for (pos = 1; pos <= nfhp_chain_rules(c); pos++) {
			const struct nfhp_box *b =
				nfhp_rule_box(nfhp_rule_at(c, pos));

			for (d = 0; d < NFHP_DIM_MAX; d++) {
				const struct nfhp_range *r =
					nfhp_box_ranges(b, d);

				for (i = 0; i < nfhp_box_nranges(b, d); i++)
					pool_add_range(p, d, &r[i]);
			}
		}
	}
}

static void gen_key(struct nfhp_key *k, const struct pools *p)
{
	unsigned int d, fragoff, l4len;

	for (d = 0; d < NFHP_DIM_MAX; d++) {
		if (d == NFHP_DIM_IIF || d == NFHP_DIM_OIF) {
			k->v[d] = nfhp_ifname_value(
				pkt_ifs[rnd(ARRAY_SIZE(pkt_ifs))], 0);
			continue;
		}
		if (p->n[d] && rnd(3))
			k->v[d] = p->v[d][rnd(p->n[d])];
		else if (v6_addr_dim(d))
			k->v[d] = addr6(rnd(66)) | (rnd(2) ? 0 : below6());
		else
			k->v[d] = dim_lo(d) + rnd(dim_width(d) + 2);
		if (k->v[d] > nfhp_dim_span(family, d))
			k->v[d] = nfhp_dim_span(family, d);
	}
	/* Later fragments at offset 1 or more, short transport headers. */
	fragoff = k->v[NFHP_DIM_FRAG] ? 1 + rnd(2) : 0;
	l4len = rnd(8) ? 65535 : rnd(24);
	nfhp_key_set_l4_short(k, k->v[NFHP_DIM_PROTO], fragoff, l4len);
	nfhp_key_fold_port(k, k->v[NFHP_DIM_PROTO]);
}

/* Recent packets' keys, whose flows come again or answer. */
static struct nfhp_key recent[8];
static unsigned int nrecent;

/*
 * The flow of the packet of @k, as the module reads it: the addresses,
 * the ports of a protocol that has them when the header holds them, the
 * TCP flags then; a random acknowledgment number.
 */
static void key_flow(struct model_pkt *pkt, const struct nfhp_key *k)
{
	struct nfhp_state_tuple *t = &pkt->flow;
	u8 proto = nfhp_key_plain(k, NFHP_DIM_PROTO);
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->proto = proto;
	for (i = 0; i < 4; i++) {
		t->src[i] = (u32)(k->v[NFHP_DIM_SRC] >> (96 - 32 * i));
		t->dst[i] = (u32)(k->v[NFHP_DIM_DST] >> (96 - 32 * i));
	}
	pkt->tcp_flags = 0;
	pkt->ack = rnd(4);
	if (!nfhp_proto_has_ports(proto) || k->v[NFHP_DIM_SPORT] > 0xffff ||
	    k->v[NFHP_DIM_DPORT] > 0xffff)
		return;
	t->sport = k->v[NFHP_DIM_SPORT];
	t->dport = k->v[NFHP_DIM_DPORT];
	if (proto == 6 && k->v[NFHP_DIM_TCPFLAGS] <= 0xff)
		pkt->tcp_flags = k->v[NFHP_DIM_TCPFLAGS];
}

/* The reply to the packet of @k: its ends swapped. */
static void key_reverse(struct nfhp_key *k)
{
	swap(k->v[NFHP_DIM_SRC], k->v[NFHP_DIM_DST]);
	swap(k->v[NFHP_DIM_SPORT], k->v[NFHP_DIM_DPORT]);
	nfhp_key_fold_port(k, nfhp_key_plain(k, NFHP_DIM_PROTO));
}

/*
 * A random packet, a little or a lot later: a third of them a recent
 * packet again or its reply, so that flows find their states, and the
 * clock moves on for both tables of states.
 */
static void gen_packet(struct nfhp_key *k, struct model_pkt *pkt,
		       const struct pools *p)
{
	if (nrecent && rnd(3) == 0) {
		*k = recent[rnd(min_t(unsigned int, nrecent,
				      ARRAY_SIZE(recent)))];
		if (rnd(2))
			key_reverse(k);
	} else {
		gen_key(k, p);
	}
	recent[nrecent++ % ARRAY_SIZE(recent)] = *k;
	pkt->nonce = (u64)rnd(1u << 31) << 32 | rnd(1u << 31);
	pkt->mark = k->v[NFHP_DIM_MARK];
	key_flow(pkt, k);
	now += rnd(8) ? rnd(STATE_HZ / 2) : rnd(30 * STATE_HZ);
	nfhp_sim_states_advance(&core_st, now);
	nfhp_sim_states_advance(&ref_st, now);
	core_st.decided = false;
}

static long compared, counters_compared, refs_compared, mismatches, injected;
static long state_verdicts;

static void dump_ext(const struct nfhp_rule_spec *s)
{
	struct model_spec m;

	memcpy(&m, s->ext, sizeof(m));
	printf("#   model:%s pct %u seed %u every %u%s%s target %u\n",
	       m.has_match ? " match" : "", m.pct, m.seed, m.every,
	       m.hotdrop ? " hotdrop" : "",
	       s->action == NFHP_ACT_XT ? " XT" : "", m.target);
}

static void dump(struct nfhp_ruleset *rs, const struct nfhp_key *k)
{
	struct nfhp_rule_spec *s = malloc(sizeof(*s));
	const struct nfhp_chain *c;
	unsigned int pos, d;

	for (c = nfhp_chain_first(rs); c; c = nfhp_chain_next(rs, c)) {
		printf("# chain %s policy %d\n", nfhp_chain_name(c),
		       nfhp_chain_get_policy(c));
		for (pos = 1; pos <= nfhp_chain_rules(c); pos++) {
			nfhp_rule_get_spec(nfhp_rule_at(c, pos), s);
			printf("# ");
			nfhp_print_rule_save(stdout, nfhp_chain_name(c), s, NULL);
			if (s->ext_len)
				dump_ext(s);
		}
	}
	printf("# packet:");
	for (d = 0; d < NFHP_DIM_MAX; d++)
		printf(" %u=%#llx", d, (unsigned long long)k->v[d]);
	printf("\n");
	free(s);
}

/* Every rule's and policy's packet counter against the reference's. */
static bool compare_counters(struct nfhp_ruleset *rs, struct nfhp_ref *ref,
			     const char *when)
{
	const struct nfhp_chain *c;
	struct nfhp_counter sum;
	unsigned int pos;
	u64 want;

	for (c = nfhp_chain_first(rs); c; c = nfhp_chain_next(rs, c)) {
		for (pos = 0; pos <= nfhp_chain_rules(c); pos++) {
			if (pos)
				nfhp_rule_counter(nfhp_rule_at(c, pos), &sum);
			else if (nfhp_chain_builtin(c))
				nfhp_chain_policy_counter(c, &sum);
			else
				continue;
			want = nfhp_ref_packets(ref, nfhp_chain_name(c), pos);
			counters_compared++;
			if (sum.packets == want)
				continue;
			mismatches++;
			printf("# counter mismatch %s: %s %u tree %llu ref %llu\n",
			       when, nfhp_chain_name(c), pos,
			       (unsigned long long)sum.packets,
			       (unsigned long long)want);
			return false;
		}
	}
	return true;
}

/*
 * The references of every chain counted at once, as a listing counts them,
 * against nfhp_chain_refs() of each, in the order nfhp_chain_next() walks.
 */
static bool compare_refs(struct nfhp_ruleset *rs, const char *when)
{
	unsigned int n = nfhp_chain_count(rs), i = 0, want;
	unsigned int *refs = malloc(n * sizeof(*refs));
	const struct nfhp_chain *c;
	bool ok = true;

	nfhp_chain_refs_all(rs, refs);
	for (c = nfhp_chain_first(rs); c && ok; c = nfhp_chain_next(rs, c)) {
		want = nfhp_chain_refs(c);
		refs_compared++;
		if (i < n && refs[i++] == want)
			continue;
		mismatches++;
		printf("# references of %s %s: %u of %u chains, %u\n", when,
		       nfhp_chain_name(c), i, n, want);
		ok = false;
	}
	if (ok && i != n) {
		mismatches++;
		printf("# %s: %u chains walked, %u counted\n", when, i, n);
		ok = false;
	}
	free(refs);
	return ok;
}

static const char *action_name(const u8 *action, u32 xt_verdict)
{
	if (*action == NFHP_ACT_XT)
		return xt_verdict ? "XT-ACCEPT" : "XT-DROP";
	return *action == NFHP_ACT_ACCEPT ? "ACCEPT" :
	       *action == NFHP_ACT_QUEUE ? "QUEUE" : "DROP";
}

static bool compare(struct nfhp_ruleset *rs, struct nfhp_ref *ref,
		    const struct pools *p, const char *when)
{
	struct nfhp_ref_verdict rv;
	struct model_pkt pkt;
	struct nfhp_verdict v;
	struct nfhp_key k;
	int i, h;

	for (i = 0; i < PACKETS; i++) {
		const char *chain;
		unsigned int pos;

		gen_packet(&k, &pkt, p);
		h = rnd(NFHP_HOOK_MAX);
		nfhp_classify(rs, h, &k, 1, &pkt, &v);
		pkt.mark = k.v[NFHP_DIM_MARK];
		nfhp_ref_classify(ref, h, &k, &pkt, &rv);
		chain = v.rule ? nfhp_chain_name(nfhp_rule_chain(rs, v.rule)) :
				 hooks[h];
		pos = v.rule ? nfhp_rule_position(rs, v.rule) : 0;
		compared++;
		state_verdicts += rv.state;
		if (v.action == rv.action && pos == rv.pos &&
		    v.hotdrop == rv.hotdrop && !strcmp(chain, rv.chain) &&
		    core_st.decided == rv.state &&
		    (v.action != NFHP_ACT_XT || v.xt_verdict == rv.xt_verdict))
			continue;
		mismatches++;
		printf("# mismatch %s: hook %s tree %s %s %u%s%s ref %s %s %u%s%s\n",
		       when, hooks[h], action_name(&v.action, v.xt_verdict),
		       chain, pos, v.hotdrop ? " hotdrop" : "",
		       core_st.decided ? " state" : "",
		       action_name(&rv.action, rv.xt_verdict),
		       rv.chain, rv.pos, rv.hotdrop ? " hotdrop" : "",
		       rv.state ? " state" : "");
		dump(rs, &k);
		return false;
	}
	return compare_counters(rs, ref, when) && compare_refs(rs, when);
}

static const char *random_chain(int *level)
{
	int c = rnd(3 + NCHAINS);

	if (c < 3) {
		*level = -1;
		return hooks[c];
	}
	*level = c - 3;
	return users[c - 3];
}

/*
 * A chain sent again in one transaction, as iptables-restore does:
 * flushed and filled with its rules, or (@some) only some of its rules
 * deleted and put back in place, between the rules it keeps; now and then
 * one of them is a new rule.  The commit takes the rules back
 * (nfhp_adopt()); the reference has new rules, with zero counters, which
 * the core's must equal.
 */
static int resend_chain(struct nfhp_ruleset *rs, struct nfhp_ref *ref,
			const char *chain, int level, const char **msg)
{
	unsigned int n = nfhp_ref_nrules(ref, chain), i;
	unsigned int changed = rnd(2 * n + 1);
	struct nfhp_rule_spec *all = calloc(n + 1, sizeof(*all));
	bool *again = calloc(n + 1, sizeof(*again)), some = rnd(2);
	const struct nfhp_chain *c;
	int err;

	err = nfhp_txn_begin(rs);
	if (err)
		goto out;
	c = nfhp_chain_find(rs, chain);
	for (i = 0; i < n; i++) {
		nfhp_rule_get_spec(nfhp_rule_at(c, i + 1), &all[i]);
		again[i] = !some || rnd(2) || i == changed;
	}
	if (changed < n)
		gen_spec(&all[changed], level);
	if (!some)
		err = nfhp_chain_flush(rs, chain, msg);
	for (i = 0; i < n && !err; i++) {
		if (!again[i])
			continue;
		/* The kernel's release work runs between a restore's lines. */
		if (rnd(3) == 0) {
			if (rnd(2))
				synchronize_rcu();
			nfhp_ruleset_release(rs, false);
		}
		if (some)
			err = nfhp_rule_delete(rs, chain, i + 1, msg);
		err = err ?: nfhp_rule_insert(rs, chain, i + 1, &all[i], NULL,
					      msg);
	}
	if (err)
		nfhp_txn_abort(rs);
	else
		err = nfhp_txn_commit(rs, msg);
	for (i = 0; i < n && !err; i++) {
		if (!again[i])
			continue;
		err = nfhp_ref_delete(ref, chain, i + 1) ?:
		      nfhp_ref_insert(ref, chain, i + 1, &all[i]);
	}
out:
	free(again);
	free(all);
	return err;
}

/*
 * A change the core may refuse while the reference takes it: an injected
 * allocation failure, or entries past the flatten bound (ruleset.h).
 * Either leaves the old rules in force, which the next compare checks.
 */
static bool refused(int err)
{
	return err == -ENOMEM || err == -EFBIG;
}

/* Changes refused past the flatten bound. */
static unsigned long too_flat;

/* One random change applied to both; returns false on disagreement. */
static bool random_change(struct nfhp_ruleset *rs, struct nfhp_ref *ref,
			  struct nfhp_rule_spec *s)
{
	int level, e1 = 0, e2 = 0, op = rnd(11);
	const char *chain = random_chain(&level);
	unsigned int n = nfhp_ref_nrules(ref, chain), pos;
	const char *msg = "";

	gen_spec(s, level);
	/* Now and then an allocation of the change fails: no effect then. */
	if (rnd(4) == 0)
		nfhp_shim_fail_countdown = 1 + rnd(400);
	if (op < 4 || !n) {
		if (n >= MAX_RULES)
			goto out;
		pos = 1 + rnd(n + 1);
		e1 = nfhp_rule_insert(rs, chain, pos, s, NULL, &msg);
		e2 = refused(e1) ? e1 : nfhp_ref_insert(ref, chain, pos, s);
	} else if (op < 7) {
		pos = 1 + rnd(n);
		e1 = nfhp_rule_delete(rs, chain, pos, &msg);
		e2 = refused(e1) ? e1 : nfhp_ref_delete(ref, chain, pos);
	} else if (op < 9) {
		pos = 1 + rnd(n);
		e1 = nfhp_rule_replace(rs, chain, pos, s, &msg);
		e2 = refused(e1) ? e1 : nfhp_ref_replace(ref, chain, pos, s);
	} else if (op == 10) {
		e1 = e2 = resend_chain(rs, ref, chain, level, &msg);
		if (e1 && !refused(e1))
			e2 = 0;	/* a failure, other than these, is a bug */
	} else if (level < 0 && rnd(2)) {
		u8 pol = rnd(2) ? NFHP_ACT_ACCEPT : NFHP_ACT_DROP;

		e1 = nfhp_chain_policy(rs, chain, pol, NULL, &msg);
		e2 = refused(e1) ? e1 : nfhp_ref_policy(ref, chain, pol);
	} else {
		e1 = nfhp_chain_flush(rs, chain, &msg);
		e2 = refused(e1) ? e1 : nfhp_ref_flush(ref, chain);
	}
	if (e1 == -ENOMEM)
		injected++;
	if (e1 == -EFBIG)
		too_flat++;
out:
	nfhp_shim_fail_countdown = 0;
	states_flush();
	if (e1 != e2)
		printf("# change %d on %s: core %d (%s) ref %d\n", op, chain,
		       e1, e1 ? msg : "", e2);
	return e1 == e2;
}

static struct nfhp_ruleset *gen_ruleset(struct nfhp_ref **refp,
					struct nfhp_rule_spec *s)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(family, ~0ull);
	struct nfhp_ref *ref = nfhp_ref_new(family);
	int i, level;

	nfhp_ruleset_set_ext(rs, &core_st.ops, &core_st);
	nfhp_ref_set_ext(ref, &ref_st.ops, &ref_st);
	nfhp_txn_begin(rs);
	for (i = 0; i < NCHAINS; i++) {
		nfhp_chain_new(rs, users[i], NULL);
		nfhp_ref_chain_new(ref, users[i]);
	}
	for (i = 0; i < 3; i++) {
		u8 pol = rnd(2) ? NFHP_ACT_ACCEPT : NFHP_ACT_DROP;

		nfhp_chain_policy(rs, hooks[i], pol, NULL, NULL);
		nfhp_ref_policy(ref, hooks[i], pol);
	}
	for (i = rnd(MAX_RULES); i > 0; i--) {
		const char *chain = random_chain(&level);

		gen_spec(s, level);
		if (nfhp_rule_append(rs, chain, s, NULL, NULL))
			continue;
		nfhp_ref_insert(ref, chain, nfhp_ref_nrules(ref, chain) + 1, s);
	}
	nfhp_txn_commit(rs, NULL);
	*refp = ref;
	return rs;
}

/* An aborted or failing transaction must leave everything as it was. */
static bool txn_without_effect(struct nfhp_ruleset *rs, struct nfhp_ref *ref,
			       struct nfhp_rule_spec *s, const struct pools *p)
{
	struct nfhp_ref *scratch = nfhp_ref_new(family);
	int level, i;
	const char *msg = "";

	nfhp_txn_begin(rs);
	for (i = 0; i < 4; i++) {
		const char *chain = random_chain(&level);

		gen_spec(s, level);
		nfhp_rule_insert(rs, chain, 1, s, NULL, &msg);
	}
	nfhp_chain_flush(rs, "FORWARD", &msg);
	nfhp_txn_abort(rs);
	nfhp_ref_free(scratch);
	if (!compare(rs, ref, p, "after abort"))
		return false;
	nfhp_shim_fail_countdown = 1 + rnd(60);
	gen_spec(s, -1);
	if (!nfhp_rule_insert(rs, "FORWARD", 1, s, NULL, &msg))
		nfhp_ref_insert(ref, "FORWARD", 1, s);
	nfhp_shim_fail_countdown = 0;
	return compare(rs, ref, p, "after injected failure");
}

/*
 * A commit prepared, then dropped: what a commit of both families does to
 * the family whose prepare succeeded when the other's failed
 * (nfhp_net_commit()).  The committed rules stay in force, untouched,
 * and the changes that follow start from them.
 */
static bool txn_unprepared(struct nfhp_ruleset *rs, struct nfhp_ref *ref,
			   struct nfhp_rule_spec *s, const struct pools *p)
{
	int level, i, n = 1 + rnd(4);
	const char *msg = "", *chain;
	unsigned int nr;

	nfhp_txn_begin(rs);
	for (i = 0; i < n; i++) {
		chain = random_chain(&level);
		nr = nfhp_ref_nrules(ref, chain);
		gen_spec(s, level);
		if (rnd(3) || !nr)
			nfhp_rule_insert(rs, chain, 1 + rnd(nr + 1), s, NULL,
					 &msg);
		else
			nfhp_rule_delete(rs, chain, 1 + rnd(nr), &msg);
	}
	if (!nfhp_txn_prepare(rs, &msg))
		nfhp_txn_unprepare(rs);
	return compare(rs, ref, p, "after a commit prepared and dropped");
}

/*
 * Shadowed rules as "chain:position " words, see shadow_same(), and how
 * many of them packets matched: a rule that matched is not shadowed.
 */
struct shadow_text {
	struct nfhp_ruleset *rs;
	char buf[4096];
	size_t len;
	unsigned int matched;
};

static void shadow_add(void *ctx, const struct nfhp_rule *r)
{
	struct shadow_text *t = ctx;
	struct nfhp_counter c;

	nfhp_rule_counter(r, &c);
	if (c.packets) {
		t->matched++;
		printf("# reported shadowed, but matched %llu packets: %s %u\n",
		       (unsigned long long)c.packets,
		       nfhp_chain_name(nfhp_rule_chain(t->rs, r)),
		       nfhp_rule_position(t->rs, r));
	}

	t->len += snprintf(t->buf + t->len, sizeof(t->buf) - t->len, "%s:%u ",
			   nfhp_chain_name(nfhp_rule_chain(t->rs, r)),
			   nfhp_rule_position(t->rs, r));
	if (t->len >= sizeof(t->buf))
		t->len = sizeof(t->buf) - 1;
}

/* The rules of @rs in a new rule set, built with list_max @lists. */
static struct nfhp_ruleset *copy_rules(struct nfhp_ruleset *rs,
				       struct nfhp_rule_spec *s, u32 lists)
{
	struct nfhp_ruleset *copy = nfhp_ruleset_new(family, ~0ull);
	u32 list_max = nfhp_tunables.list_max;
	const struct nfhp_chain *c;
	unsigned int pos;

	nfhp_ruleset_set_ext(copy, &copy_st.ops, &copy_st);
	nfhp_txn_begin(copy);
	for (c = nfhp_chain_first(rs); c; c = nfhp_chain_next(rs, c))
		if (!nfhp_chain_builtin(c))
			nfhp_chain_new(copy, nfhp_chain_name(c), NULL);
	for (c = nfhp_chain_first(rs); c; c = nfhp_chain_next(rs, c)) {
		for (pos = 1; pos <= nfhp_chain_rules(c); pos++) {
			nfhp_rule_get_spec(nfhp_rule_at(c, pos), s);
			nfhp_rule_append(copy, nfhp_chain_name(c), s, NULL,
					 NULL);
		}
	}
	nfhp_tunables.list_max = lists;
	nfhp_txn_commit(copy, NULL);
	nfhp_tunables.list_max = list_max;
	return copy;
}

/* Zero the counters of @rs, then classify random packets of @p. */
static void count_afresh(struct nfhp_ruleset *rs, const struct pools *p)
{
	struct model_pkt pkt;
	struct nfhp_verdict v;
	struct nfhp_key k;
	const char *msg;
	int i;

	nfhp_counters_zero(rs, NULL, 0, &msg);
	for (i = 0; i < PACKETS; i++) {
		gen_packet(&k, &pkt, p);
		nfhp_classify(rs, rnd(NFHP_HOOK_MAX), &k, 1, &pkt, &v);
	}
}

/* Is every word of @part a word of @all?  Both end each with a space. */
static bool words_within(const char *part, const char *all)
{
	char word[64];
	const char *end;
	size_t len;

	for (; *part; part = end + 1) {
		end = strchr(part, ' ');
		len = end - part;
		if (len + 2 > sizeof(word))
			return false;
		word[0] = ' ';
		memcpy(word + 1, part, len + 1);
		word[len + 2] = 0;
		if (!strncmp(all, word + 1, len + 1))
			continue;
		if (!strstr(all, word))
			return false;
	}
	return true;
}

/*
 * Shadow analysis reads the leaves and lists and asks a hook's trees
 * together (stats.c), so what it reports must not depend on how the
 * rules are cut into trees or nodes.  A hook built as one tree is the
 * exact answer: there a rule is in some leaf or list exactly when a
 * packet reaches it.  The same rules built afresh with and without list
 * nodes, and @rs itself, whose trees follow the groups its updates kept
 * (group.c, which a build may choose otherwise), must report just the
 * same rules.  None of them may be a rule that random packets match: the
 * counters are zeroed first, as a rule may have matched before a change
 * shadowed it.  The search budget and the pieces of a box searched one by
 * one bound how complete an analysis is; they are lifted here, and so is
 * the build budget for the copies.  A tested leaf ("Bounded builds" in
 * tree.c) counts all its entries as reached, so where @rs had builds cut
 * short, what it reports need only be within the exact answer.
 */
static bool shadow_same(struct nfhp_ruleset *rs, struct nfhp_rule_spec *s,
			const struct pools *p)
{
	struct shadow_text *a = calloc(1, sizeof(*a));
	struct shadow_text *b = calloc(1, sizeof(*b));
	struct shadow_text *one = calloc(1, sizeof(*one));
	struct shadow_text *own = calloc(1, sizeof(*own));
	bool same;

	u32 budget = nfhp_tunables.build_budget;
	u32 budget_min = nfhp_tunables.build_budget_min;
	u32 budget_max = nfhp_tunables.build_budget_max;
	u32 per_rule = nfhp_tunables.flat_per_rule;
	u32 flat_min = nfhp_tunables.flat_min;

	count_afresh(rs, p);
	own->rs = rs;
	nfhp_tunables.flat_per_rule = NFHP_FLAT_PER_RULE;
	nfhp_tunables.flat_min = NFHP_FLAT_MIN;
	nfhp_tunables.build_budget = NFHP_BUILD_BUDGET;
	nfhp_tunables.build_budget_min = NFHP_BUILD_BUDGET_MAX;
	nfhp_tunables.build_budget_max = NFHP_BUILD_BUDGET_MAX;
	a->rs = copy_rules(rs, s, nfhp_tunables.list_max);
	b->rs = copy_rules(rs, s, 0);
	nfhp_tunables.shadow_budget = 1u << 22;
	nfhp_tunables.cover_pieces = 1u << 20;
	same = !nfhp_shadowed_rules(own->rs, shadow_add, own) &&
	       !nfhp_shadowed_rules(a->rs, shadow_add, a) &&
	       !nfhp_shadowed_rules(b->rs, shadow_add, b);
	nfhp_tunables.one_tree = true;
	one->rs = copy_rules(rs, s, nfhp_tunables.list_max);
	same &= !nfhp_shadowed_rules(one->rs, shadow_add, one);
	nfhp_tunables.one_tree = false;
	nfhp_tunables.flat_per_rule = per_rule;
	nfhp_tunables.flat_min = flat_min;
	nfhp_tunables.build_budget = budget;
	nfhp_tunables.build_budget_min = budget_min;
	nfhp_tunables.build_budget_max = budget_max;
	nfhp_tunables.shadow_budget = NFHP_SHADOW_ENTRY_BUDGET;
	nfhp_tunables.cover_pieces = NFHP_COVER_PIECES;
	same &= !strcmp(a->buf, one->buf) && !strcmp(b->buf, one->buf) &&
		!own->matched;
	if (nfhp_ruleset_builds_cut(rs))
		same &= words_within(own->buf, one->buf);
	else
		same &= !strcmp(own->buf, one->buf);
	if (!same)
		printf("# shadowed in one tree: %s\n# with lists: %s\n"
		       "# without: %s\n# by the updated trees: %s "
		       "(%u matched)\n", one->buf, a->buf, b->buf, own->buf,
		       own->matched);
	nfhp_ruleset_free(a->rs);
	nfhp_ruleset_free(b->rs);
	nfhp_ruleset_free(one->rs);
	free(a);
	free(b);
	free(one);
	free(own);
	return same;
}

/*
 * With deferred release, commits pile up what they replaced: at times a
 * grace period passes, at times the records are released, in any order,
 * so that some stay across changes and ruleset_free() finds some.  A
 * release after a grace period leaves nothing.
 */
static bool release_now(struct nfhp_ruleset *rs)
{
	bool gp = rnd(2);

	if (gp)
		synchronize_rcu();
	if (rnd(2))
		return true;
	if (nfhp_ruleset_release(rs, false) && gp) {
		printf("# release after a grace period left records\n");
		return false;
	}
	return true;
}

/* The fold bounds that the random changes choose among. */
static const u32 fold_bounds[] = { 0, NFHP_FOLD_COPIES, 32 };

int main(int argc, char **argv)
{
	int rulesets = argc > 1 ? atoi(argv[1]) : 300;
	struct nfhp_rule_spec *s = malloc(sizeof(*s));
	struct pools *p = malloc(sizeof(*p));
	unsigned long long given_up = 0, cut = 0;
	int i, step, bad = 0;

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed;
	/* The short cuts of updates are checked against the long way. */
	nfhp_tunables.update_verify = true;
	nfhp_tunables.splice_verify = true;
	for (i = 0; i < rulesets && !bad; i++) {
		struct nfhp_ref *ref;
		struct nfhp_ruleset *rs;
		bool fold_flips;

		flat_only = i & 1;
		family = i % 5 == 1 || i % 5 == 3 ? NFHP_FAMILY_IPV6 :
						    NFHP_FAMILY_IPV4;
		shift6 = shifts6[rnd(ARRAY_SIZE(shifts6))];
		/*
		 * Mostly tiny pages of rules and entries, so that chains
		 * and hooks of a few rules have many (kernel/pageseq.c).
		 */
		nfhp_tunables.page_fill = i % 4 == 2 ? NFHP_PAGESEQ_PAGE :
							 2 + rnd(6);
		/* Mostly tiny nodes, so that wide ones are cut everywhere. */
		nfhp_tunables.node_fanout = i % 4 == 3 ? NFHP_NODE_FANOUT : 2 + rnd(4);
		nfhp_tunables.node_piece = i % 4 == 3 ? NFHP_NODE_PIECE :
			2 + rnd(nfhp_tunables.node_fanout - 1);
		/* Chain names hashed, found by hash alone, every other set. */
		nfhp_tunables.hash_min_chains = i & 2 ? 0 :
						NFHP_HASH_MIN_CHAINS;
		/* And most splits sorted by radix, on any byte. */
		spread = 8 * rnd(4);
		nfhp_tunables.events_insertion_max = i % 5 == 4 ?
			NFHP_EVENTS_INSERTION_MAX : rnd(4);
		/* List nodes off, as shipped, or up to the most allowed. */
		nfhp_tunables.list_max = i % 7 == 6 ? 0 : i % 7 == 5 ?
			NFHP_LIST_MAX : 2 + rnd(7);
		/* Most tree builds share their first split with a helper. */
		nfhp_tunables.share_min = i % 6 == 5 ? NFHP_SHARE_MIN : rnd(4);
		/*
		 * In one set in three, builds run out of work soon and cut
		 * regions short into tested leaves, which updates then meet.
		 */
		nfhp_tunables.build_budget = i % 3 == 0 ? rnd(16) : NFHP_BUILD_BUDGET;
		nfhp_tunables.build_first = i % 3 == 0 ? rnd(16) : NFHP_BUILD_FIRST;
		nfhp_tunables.build_budget_min = i % 3 == 0 ? rnd(64) :
			NFHP_BUILD_BUDGET_MIN;
		/*
		 * Folds chosen again every few commits; in most rule sets
		 * each change may set a new threshold for the next check:
		 * none, the shipped one, or one that folds nearly always.
		 */
		fold_flips = i % 5 != 2;
		nfhp_tunables.fold_copies = NFHP_FOLD_COPIES;
		nfhp_tunables.fold_recheck = i % 4 == 1 ? NFHP_FOLD_RECHECK :
							 1 + rnd(3);
		/* In one set in three, tree updates give up soon or at once. */
		nfhp_tunables.update_visits_per_entry = i % 3 == 2 ? rnd(2) :
			NFHP_UPDATE_VISITS_PER_ENTRY;
		nfhp_tunables.update_visits_min = i % 3 == 2 ? rnd(64) :
			NFHP_UPDATE_VISITS_MIN;
		nfhp_tunables.flat_per_rule = NFHP_FLAT_PER_RULE;
		nfhp_tunables.flat_min = NFHP_FLAT_MIN;
		states_init(family);
		nrecent = 0;
		rs = gen_ruleset(&ref, s);
		/*
		 * In one set in four, a flatten bound near what the rules
		 * take: changes that would pass it are refused.
		 */
		if (i % 4 == 1) {
			nfhp_tunables.flat_per_rule = 1 + (i % 8 == 5);
			nfhp_tunables.flat_min = rnd(8);
		}
		/* One in three leaves what commits replace to release_now(). */
		nfhp_ruleset_defer_release(rs, i % 3 == 1);
		pools_fill(p, rs);
		if (!compare(rs, ref, p, "after build"))
			bad = 1;
		for (step = 0; step < (flat_only ? 40 : 12) && !bad; step++) {
			if (fold_flips)
				nfhp_tunables.fold_copies =
					fold_bounds[rnd(ARRAY_SIZE(fold_bounds))];
			if (!random_change(rs, ref, s)) {
				bad = 1;
				break;
			}
			if (i % 3 == 1 && !release_now(rs))
				bad = 1;
			if (!bad && rnd(3) == 0 && !txn_unprepared(rs, ref, s, p))
				bad = 1;
			pools_fill(p, rs);
			if (!compare(rs, ref, p, "after change"))
				bad = 1;
		}
		if (!bad && !txn_without_effect(rs, ref, s, p))
			bad = 1;
		if (!bad && !shadow_same(rs, s, p))
			bad = 1;
		if (bad)
			printf("# ruleset %d (seed %#llx) failed\n", i,
			       argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eedull);
		given_up += nfhp_ruleset_updates_given_up(rs);
		cut += nfhp_ruleset_builds_cut(rs);
		nfhp_ruleset_free(rs);
		nfhp_ref_free(ref);
		states_destroy();
	}
	printf("%sok 1 - %d random rule sets, %ld packets, %ld counters and %ld chains' references compared, %ld mismatches; %ld changes failed by injected ENOMEM\n",
	       bad ? "not " : "", i, compared, counters_compared,
	       refs_compared, mismatches, injected);
	/* Every third set is one where updates give up. */
	if (i >= 3 && !given_up)
		bad = 1;
	printf("%sok 2 - %llu tree updates gave up, their trees built anew\n",
	       i >= 3 && !given_up ? "not " : "", given_up);
	/* Every third set is one where builds run out of work. */
	if (i >= 3 && !cut)
		bad = 1;
	printf("%sok 3 - %llu tree builds cut short, regions tested\n",
	       i >= 3 && !cut ? "not " : "", cut);
	/* Every fourth set is one where changes pass the flatten bound. */
	if (i >= 4 && !too_flat)
		bad = 1;
	printf("%sok 4 - %lu changes refused past the flatten bound\n",
	       i >= 4 && !too_flat ? "not " : "", too_flat);
	/* States are made and decide, in sets of more than a few rules. */
	if (i >= 10 && !state_verdicts)
		bad = 1;
	printf("%sok 5 - %ld verdicts by states at their check point\n",
	       i >= 10 && !state_verdicts ? "not " : "", state_verdicts);
	printf("%d passed, %d failed\n", !bad, bad);
	free(s);
	free(p);
	return bad;
}
