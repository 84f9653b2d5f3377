// SPDX-License-Identifier: GPL-2.0
/*
 * keep-state and check-state rules through the classifier: the check
 * point (classify.c, "The check point"), keep-state as the last match of
 * its rule, the states of removed rules flushed by their commit and those
 * of rules carried over kept, and the packets of states counted on the
 * rule that made them.
 *
 * Differential: random rules of FORWARD and random flows, both ways,
 * through nfhp_classify() with the core's states behind a test evaluator,
 * against a naive walk of the same rules in order with a second table of
 * states.  The table itself is test_state's to prove; this proves the
 * rules around it.  Rules are deleted, inserted and the whole chain sent
 * again between packets; time passes, and both tables tick through all
 * their buckets at once, so that their states die at the same instants.
 */
#include <stdlib.h>
#include <string.h>

#include "ext.h"
#include "ruleset.h"
#include "state.h"

#include "state_tuple.h"
#include "tap.h"
#include "xorshift.h"

#define NRULES_MAX	20
#define TICK_ALL	(1u << 20)
#define HZ		100

static const u16 ports[] = { 22, 80, 1000, 1001 };

/**
 * struct trule - a rule of the test, and the reference's view of it
 * @src: the source address it matches, 0 for any
 * @dst: the destination, 0 for any
 * @proto: the protocol, 0 for any
 * @dport: the destination port, 0 for any (tcp and udp only)
 * @action: NFHP_ACT_ACCEPT, _DROP, or _NONE to only count
 * @mode: &enum nfhp_rstate_mode
 * @limit: keep-state: states per source address, 0 for no limit
 * @sr: what its states get in the reference's table
 * @pkts: the packets the reference counted on it
 */
struct trule {
	u32 src, dst;
	u8 proto;
	u16 dport;
	u8 action;
	u8 mode;
	u32 limit;
	struct nfhp_state_rule sr;
	u64 pkts;
};

/**
 * struct handle - the test evaluator's handle of a keep-state rule
 * @sr: what its states get in the core's table; @sr.rule is the handle
 * @keep: it is a keep-state rule
 * @cnt: its rule's counters (&struct nfhp_ext_ops.bind)
 */
struct handle {
	struct nfhp_state_rule sr;
	bool keep;
	struct nfhp_counter __percpu *cnt;
};

/* The packet of the moment, as the evaluator's calls get it. */
struct tpkt {
	struct nfhp_state_pkt sp;
};

static struct nfhp_mem core_mem = { .limit = ~0ull };
static struct nfhp_mem ref_mem = { .limit = ~0ull };
static struct nfhp_state_table core_states, ref_states;
static unsigned long now;
static struct trule *rules[NRULES_MAX];
static unsigned int nrules;
static u8 policy = NFHP_ACT_DROP;

static u32 pick(u32 n)
{
	return rnd() % n;
}

static int h_create(void *priv, const struct nfhp_rule_spec *spec,
		    unsigned int hooks, void **ext, bool *matches,
		    const char **msg)
{
	struct handle *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	h->keep = spec->state.mode == NFHP_RSTATE_KEEP;
	h->sr.rule = h;
	h->sr.verdict = spec->action;
	h->sr.limit = spec->state.limit;
	h->sr.limit_mask = spec->state.limit_by;
	*matches = h->keep;
	*ext = h;
	return 0;
}

static void h_destroy(void *priv, void *ext)
{
	free(ext);
}

/* keep-state as the kernel's evaluator does it (state_rule.c). */
static enum nfhp_ext_result h_match(const void *ext, void *pkt)
{
	const struct handle *h = ext;
	struct tpkt *p = pkt;
	struct nfhp_state *s;
	int err;

	if (!h->keep)
		return NFHP_EXT_MATCH;
	err = nfhp_state_keep(&core_states, &p->sp, &h->sr, now, &s);
	return !err || err == -EEXIST || err == -ENOENT ? NFHP_EXT_MATCH :
							   NFHP_EXT_NOMATCH;
}

static u32 h_target(const void *ext, void *pkt)
{
	return NFHP_EXT_CONTINUE;
}

static bool h_stateless(const void *ext)
{
	return true;
}

static void h_bind(void *ext, struct nfhp_counter __percpu *cnt)
{
	((struct handle *)ext)->cnt = cnt;
}

static u8 h_check_state(void *priv, void *pkt)
{
	struct tpkt *p = pkt;
	const struct handle *h;
	struct nfhp_state *s;

	s = nfhp_state_check(&core_states, &p->sp, now);
	if (!s)
		return NFHP_ACT_NONE;
	h = s->rule;
	this_cpu_add(h->cnt->packets, 1);
	this_cpu_add(h->cnt->bytes, p->sp.len);
	return s->verdict;
}

static void h_retire(void *priv, void *ext)
{
	struct handle *h = ext;

	WRITE_ONCE(h->sr.retired, true);
	nfhp_state_flush(&core_states, h);
}

static const struct nfhp_ext_ops handle_ops = {
	.create = h_create,
	.destroy = h_destroy,
	.match = h_match,
	.target = h_target,
	.stateless = h_stateless,
	.bind = h_bind,
	.check_state = h_check_state,
	.retire = h_retire,
};

static u32 addr(unsigned int i)
{
	return 0x0a000001 + i;	/* 10.0.0.1 ... */
}

static struct trule *trule_random(void)
{
	struct trule *r = calloc(1, sizeof(*r));
	static const u8 protos[] = { 0, 6, 17, 1 };

	if (!pick(6)) {
		r->mode = NFHP_RSTATE_CHECK;
		return r;
	}
	r->src = pick(2) ? 0 : addr(pick(4));
	r->dst = pick(2) ? 0 : addr(pick(4));
	r->proto = protos[pick(4)];
	if ((r->proto == 6 || r->proto == 17) && pick(2))
		r->dport = ports[pick(4)];
	r->action = pick(3) ? (pick(3) ? NFHP_ACT_ACCEPT : NFHP_ACT_DROP) :
			     NFHP_ACT_NONE;
	if (r->action != NFHP_ACT_NONE && pick(2)) {
		r->mode = NFHP_RSTATE_KEEP;
		r->limit = pick(3) ? 0 : 1 + pick(2);
	}
	r->sr.rule = r;
	r->sr.verdict = r->action;
	r->sr.limit = r->limit;
	r->sr.limit_mask = r->limit ? NFHP_STATE_LIMIT_SRC_ADDR : 0;
	return r;
}

static void spec_match(struct nfhp_rule_spec *s, u8 dim, u8 form, u32 lo,
		       u32 hi)
{
	struct nfhp_dim_match *m = &s->m[s->nmatch++];

	m->dim = dim;
	m->form = form;
	m->nranges = form == NFHP_FORM_PREFIX ? 32 : 1;
	m->ranges[0].lo = lo;
	m->ranges[0].hi = hi;
}

static struct nfhp_rule_spec *trule_spec(const struct trule *r)
{
	static struct nfhp_rule_spec s;

	memset(&s, 0, sizeof(s));
	s.action = r->action;
	s.state.mode = r->mode;
	s.state.limit = r->limit;
	s.state.limit_by = r->limit ? NFHP_STATE_LIMIT_SRC_ADDR : 0;
	/* In the order of enum nfhp_dim. */
	if (r->src)
		spec_match(&s, NFHP_DIM_SRC, NFHP_FORM_PREFIX, r->src, 0);
	if (r->dst)
		spec_match(&s, NFHP_DIM_DST, NFHP_FORM_PREFIX, r->dst, 0);
	if (r->proto)
		spec_match(&s, NFHP_DIM_PROTO, NFHP_FORM_RANGES, r->proto,
			   r->proto);
	if (r->dport)
		spec_match(&s, NFHP_DIM_DPORT, NFHP_FORM_RANGES, r->dport,
			   r->dport);
	return &s;
}

static bool trule_matches(const struct trule *r, const struct nfhp_state_tuple *t)
{
	return (!r->src || r->src == t->src[0]) &&
	       (!r->dst || r->dst == t->dst[0]) &&
	       (!r->proto || r->proto == t->proto) &&
	       (!r->dport || r->dport == t->dport);
}

/* The reference: the rules in order, looked up once at the first state rule. */
static u8 ref_classify(struct tpkt *p)
{
	const struct nfhp_state_tuple *t = &p->sp.tuple;
	bool checked = false;
	struct nfhp_state *s;
	struct trule *r;
	unsigned int i;
	int err;

	for (i = 0; i < nrules; i++) {
		r = rules[i];
		if (!checked && r->mode != NFHP_RSTATE_NONE) {
			checked = true;
			s = nfhp_state_check(&ref_states, &p->sp, now);
			if (s) {
				((struct trule *)s->rule)->pkts++;
				return s->verdict;
			}
		}
		if (r->mode == NFHP_RSTATE_CHECK) {
			r->pkts++;
			continue;
		}
		if (!trule_matches(r, t))
			continue;
		if (r->mode == NFHP_RSTATE_KEEP) {
			err = nfhp_state_keep(&ref_states, &p->sp, &r->sr, now,
					      &s);
			if (err && err != -EEXIST)
				continue;
		}
		r->pkts++;
		if (r->action != NFHP_ACT_NONE)
			return r->action;
	}
	return policy;
}

static void key_of(struct nfhp_key *k, const struct nfhp_state_tuple *t,
		   u8 icmp_type)
{
	memset(k, 0, sizeof(*k));
	k->v[NFHP_DIM_SRC] = t->src[0];
	k->v[NFHP_DIM_DST] = t->dst[0];
	k->v[NFHP_DIM_STATE] = NFHP_CT_NEW;
	k->v[NFHP_DIM_TTL] = 64;
	k->v[NFHP_DIM_LEN] = 100;
	if (t->proto == 1) {
		k->v[NFHP_DIM_ICMP] = icmp_type << 8;
	} else {
		k->v[NFHP_DIM_SPORT] = t->sport;
		k->v[NFHP_DIM_DPORT] = t->dport;
	}
	nfhp_key_fold_port(k, t->proto);
}

/* A random packet of a random flow, either way. */
static void packet_random(struct tpkt *p, struct nfhp_key *k)
{
	static const u8 protos[] = { 6, 17, 1 };
	static const u8 flags[] = {
		NFHP_TCP_SYN, NFHP_TCP_SYN | NFHP_TCP_ACK, NFHP_TCP_ACK,
		NFHP_TCP_FIN | NFHP_TCP_ACK, NFHP_TCP_RST,
	};
	struct nfhp_state_tuple t;
	u8 proto = protos[pick(3)];
	u16 sport = ports[pick(4)], dport = ports[pick(4)];
	u32 a = addr(pick(4)), b = addr(pick(4));
	u8 icmp = pick(2) ? 8 : 0;

	if (proto == 1)
		dport = sport;	/* the echo identifier, both ways */
	v4_tuple(&t, proto, a, sport, b, dport);
	nfhp_state_pkt_init(&p->sp, &t);
	p->sp.tcp_flags = proto == 6 ? flags[pick(5)] : 0;
	p->sp.ack = pick(4);
	p->sp.len = 100;
	key_of(k, &t, icmp);
}

static struct nfhp_ruleset *rs;

static bool commit_rules(void)
{
	const char *msg = NULL;
	unsigned int i;

	if (nfhp_txn_begin(rs) || nfhp_chain_flush(rs, "FORWARD", &msg) ||
	    nfhp_chain_policy(rs, "FORWARD", policy, NULL, &msg))
		return false;
	for (i = 0; i < nrules; i++)
		if (nfhp_rule_append(rs, "FORWARD", trule_spec(rules[i]), NULL,
				     &msg))
			return false;
	/* Sent without counters, as a restore without -c: they start at 0. */
	for (i = 0; i < nrules; i++)
		rules[i]->pkts = 0;
	return !nfhp_txn_commit(rs, &msg);
}

static bool delete_rule(unsigned int i)
{
	const char *msg = NULL;

	if (nfhp_txn_begin(rs) || nfhp_rule_delete(rs, "FORWARD", i + 1, &msg) ||
	    nfhp_txn_commit(rs, &msg))
		return false;
	nfhp_state_flush(&ref_states, rules[i]);
	free(rules[i]);
	memmove(&rules[i], &rules[i + 1], (nrules - i - 1) * sizeof(*rules));
	nrules--;
	return true;
}

static bool insert_rule(unsigned int i)
{
	struct trule *r = trule_random();
	const char *msg = NULL;

	if (nfhp_txn_begin(rs) ||
	    nfhp_rule_insert(rs, "FORWARD", i + 1, trule_spec(r), NULL, &msg) ||
	    nfhp_txn_commit(rs, &msg)) {
		free(r);
		return false;
	}
	memmove(&rules[i + 1], &rules[i], (nrules - i) * sizeof(*rules));
	rules[i] = r;
	nrules++;
	return true;
}

/* Do the rules' counters agree with the reference's? */
static bool counters_agree(void)
{
	const struct nfhp_chain *c = nfhp_chain_find(rs, "FORWARD");
	struct nfhp_counter sum;
	unsigned int i;

	for (i = 0; i < nrules; i++) {
		nfhp_rule_counter(nfhp_rule_at(c, i + 1), &sum);
		if (sum.packets != rules[i]->pkts) {
			printf("# rule %u: %llu packets, the reference %llu\n",
			       i + 1, (unsigned long long)sum.packets,
			       (unsigned long long)rules[i]->pkts);
			return false;
		}
	}
	return true;
}

static bool tables_init(void)
{
	struct nfhp_state_tunables tun;

	nfhp_state_tunables_default(&tun);
	tun.buckets_init = 4;
	tun.buckets_max = 64;
	tun.max_states = 40;
	return !nfhp_state_table_init(&core_states, &core_mem, &tun, HZ, NULL) &&
	       !nfhp_state_table_init(&ref_states, &ref_mem, &tun, HZ, NULL);
}

static void run_random(unsigned int steps)
{
	unsigned int step, verdicts_ok = 0, counts_ok = 0, checks = 0;
	unsigned int made = 0, dels = 0, ins = 0, resends = 0;
	bool changes_ok = true;
	struct nfhp_verdict v;
	struct nfhp_key k;
	struct tpkt p;
	u8 want;

	rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	nfhp_ruleset_set_ext(rs, &handle_ops, NULL);
	check(rs && tables_init(), "a rule set and two tables of states");
	while (nrules < 10)
		rules[nrules++] = trule_random();
	check(commit_rules(), "10 random rules");
	for (step = 0; step < steps; step++) {
		switch (pick(100)) {
		case 0:
			if (nrules > 1) {
				changes_ok &= delete_rule(pick(nrules));
				dels++;
			}
			break;
		case 1:
			if (nrules < NRULES_MAX) {
				changes_ok &= insert_rule(pick(nrules + 1));
				ins++;
			}
			break;
		case 2:
			/* Sent again whole: every rule carried over, states too. */
			if (!pick(4))
				policy = pick(2) ? NFHP_ACT_ACCEPT : NFHP_ACT_DROP;
			changes_ok &= commit_rules();
			resends++;
			break;
		case 3:
		case 4:
			now += pick(4 * HZ);
			nfhp_state_tick(&core_states, now, TICK_ALL);
			nfhp_state_tick(&ref_states, now, TICK_ALL);
			break;
		}
		packet_random(&p, &k);
		want = ref_classify(&p);
		nfhp_classify(rs, NFHP_HOOK_FORWARD, &k, 100, &p, &v);
		verdicts_ok += v.action == want;
		if (step % 64 == 63) {
			checks++;
			counts_ok += counters_agree() &&
				     atomic_read(&core_states.count) ==
				     atomic_read(&ref_states.count);
		}
		made = atomic_long_read(&ref_states.stats.created);
	}
	check(changes_ok, "%u deletions, %u insertions, %u resends committed",
	      dels, ins, resends);
	check(verdicts_ok == steps, "%u of %u verdicts as the reference's",
	      verdicts_ok, steps);
	check(counts_ok == checks,
	      "%u of %u times the same counters and states", counts_ok, checks);
	check(made > steps / 50, "states were made: %u", made);
	check(atomic_long_read(&ref_states.stats.refused_limit) > 0,
	      "limits refused states: %ld",
	      atomic_long_read(&ref_states.stats.refused_limit));
	while (nrules)
		free(rules[--nrules]);
	nfhp_ruleset_free(rs);
	nfhp_state_table_destroy(&core_states);
	nfhp_state_table_destroy(&ref_states);
	check(!core_mem.used && !ref_mem.used, "every byte given back");
}

/* A rule matching the source @src/@len (@len 0: any), for run_unreached(). */
static struct nfhp_rule_spec *net_spec(u32 src, u8 len, u8 action, u8 mode,
				       const char *target)
{
	static struct nfhp_rule_spec s;

	memset(&s, 0, sizeof(s));
	s.action = action;
	s.state.mode = mode;
	if (target)
		strcpy(s.target, target);
	if (len) {
		spec_match(&s, NFHP_DIM_SRC, NFHP_FORM_PREFIX, src, 0);
		s.m[0].nranges = len;
	}
	return &s;
}

/*
 * One transaction: insert @s into @chain at @pos (0: append), or with
 * @s NULL delete its rule @pos.
 */
static bool change(const char *chain, const struct nfhp_rule_spec *s,
		   unsigned int pos)
{
	const char *msg = NULL;
	int err;

	if (nfhp_txn_begin(rs))
		return false;
	if (!s)
		err = nfhp_rule_delete(rs, chain, pos, &msg);
	else if (pos)
		err = nfhp_rule_insert(rs, chain, pos, s, NULL, &msg);
	else
		err = nfhp_rule_append(rs, chain, s, NULL, &msg);
	if (err) {
		nfhp_txn_abort(rs);
		return false;
	}
	return !nfhp_txn_commit(rs, &msg);
}

/* The verdict of a udp packet from @a to @b; its state is made or found. */
static u8 udp_verdict(u32 a, u16 sport, u32 b, u16 dport)
{
	struct nfhp_state_tuple t;
	struct nfhp_verdict v;
	struct nfhp_key k;
	struct tpkt p;

	v4_tuple(&t, 17, a, sport, b, dport);
	nfhp_state_pkt_init(&p.sp, &t);
	p.sp.len = 100;
	key_of(&k, &t, 0);
	nfhp_classify(rs, NFHP_HOOK_FORWARD, &k, 100, &p, &v);
	return v.action;
}

/*
 * A state rule no packet reaches where it stands is the check point all
 * the same (issue 45), as nf-hipac-sim's reference has it:
 *
 *	-A FORWARD -s 10.0.0.0/8 -j inner
 *	-A FORWARD -s 172.16.0.2 -j DROP
 *	-A FORWARD -p udp -s 172.16.0.1 -m keep-state -j ACCEPT
 *	-A inner -s 192.168.0.0/16 -m keep-state -j ACCEPT
 *
 * Rule 3 makes the state of 172.16.0.1 -> .2; the reply is looked up
 * before rule 2's DROP only when inner's rule is the check point.  The
 * same for a dropped jump to a chain leading to a state rule ("-A inner
 * -s 192.168.0.0/16 -j deep", "-A deep -j deeper", "-A deeper -m
 * keep-state -j ACCEPT"); and after updates of the rules around it,
 * which must not carry entries over past it.
 */
static void run_unreached(void)
{
	const u32 net10 = 0x0a000000, net192 = 0xc0a80000;
	const u32 a = 0xac100001, b = 0xac100002;
	const char *msg = NULL;
	bool ok;

	rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	nfhp_ruleset_set_ext(rs, &handle_ops, NULL);
	ok = rs && tables_init() && !nfhp_txn_begin(rs) &&
	     !nfhp_chain_new(rs, "inner", &msg) &&
	     !nfhp_chain_new(rs, "deep", &msg) &&
	     !nfhp_chain_new(rs, "deeper", &msg) &&
	     !nfhp_rule_append(rs, "FORWARD",
			       net_spec(net10, 8, NFHP_ACT_JUMP, 0, "inner"),
			       NULL, &msg) &&
	     !nfhp_rule_append(rs, "FORWARD",
			       net_spec(b, 32, NFHP_ACT_DROP, 0, NULL),
			       NULL, &msg) &&
	     !nfhp_rule_append(rs, "FORWARD",
			       net_spec(a, 32, NFHP_ACT_ACCEPT,
					NFHP_RSTATE_KEEP, NULL), NULL, &msg) &&
	     !nfhp_rule_append(rs, "deep",
			       net_spec(0, 0, NFHP_ACT_JUMP, 0, "deeper"),
			       NULL, &msg) &&
	     !nfhp_rule_append(rs, "deeper",
			       net_spec(0, 0, NFHP_ACT_ACCEPT,
					NFHP_RSTATE_KEEP, NULL), NULL, &msg) &&
	     !nfhp_txn_commit(rs, &msg);
	check(ok, "unreached: FORWARD, inner, deep and deeper committed");
	ok = udp_verdict(a, 1000, b, 53) == NFHP_ACT_ACCEPT &&
	     udp_verdict(b, 53, a, 1000) == NFHP_ACT_DROP;
	check(ok, "unreached: without inner's rule the reply meets the DROP first");
	ok = change("inner", net_spec(net192, 16, NFHP_ACT_ACCEPT,
				      NFHP_RSTATE_KEEP, NULL), 0) &&
	     udp_verdict(b, 53, a, 1000) == NFHP_ACT_ACCEPT &&
	     udp_verdict(a, 1000, b, 53) == NFHP_ACT_ACCEPT;
	check(ok, "unreached: inner's keep-state rule, unreachable, is the check point: the reply passes");
	ok = change("FORWARD", net_spec(0, 0, NFHP_ACT_DROP, 0, NULL), 0) &&
	     udp_verdict(b, 53, a, 1000) == NFHP_ACT_ACCEPT;
	check(ok, "unreached: still so after a rule appended behind it");
	ok = change("inner", NULL, 1) &&
	     udp_verdict(b, 53, a, 1000) == NFHP_ACT_DROP;
	check(ok, "unreached: inner's rule deleted, the check point is rule 3 again");
	ok = change("inner", net_spec(net192, 16, NFHP_ACT_JUMP, 0, "deep"),
		    0) && udp_verdict(b, 53, a, 1000) == NFHP_ACT_ACCEPT;
	check(ok, "unreached: a dropped jump to a chain whose jump leads to a keep-state rule is the check point too");
	/* A state rule before it, then gone: the check point comes back. */
	ok = change("FORWARD", net_spec(0xac100063, 32, NFHP_ACT_ACCEPT,
					NFHP_RSTATE_KEEP, NULL), 1) &&
	     udp_verdict(b, 53, a, 1000) == NFHP_ACT_ACCEPT &&
	     change("FORWARD", NULL, 1) &&
	     udp_verdict(b, 53, a, 1000) == NFHP_ACT_ACCEPT;
	check(ok, "unreached: a keep-state rule inserted before it and deleted: the check point is back");
	nfhp_ruleset_free(rs);
	rs = NULL;
	nfhp_state_table_destroy(&core_states);
	nfhp_state_table_destroy(&ref_states);
}

int main(int argc, char **argv)
{
	unsigned int steps = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000;

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed;
	run_unreached();
	run_random(steps);
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
