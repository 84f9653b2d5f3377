// SPDX-License-Identifier: GPL-2.0
/*
 * test_state: the dynamic states' table against a naive list.
 *
 *	test_state [steps [seed]]
 *
 * Random flows, IPv4 and IPv6, TCP, UDP, ICMP and GRE, from a small
 * pool of addresses so that limits' parents are shared, send packets
 * both ways with random TCP flags and ACK numbers, through check-state
 * and through keep-state rules (some with limits of each kind), while
 * the clock moves on (across the wrap of unsigned long), ticks of
 * random budgets expire states and grow the table, rules are deleted,
 * the table is flushed, lifetimes change, and allocations fail now and
 * then; states are also added by hand (nfhp_state_add()) with random
 * lifetimes, TCP words and counters, deleted by flow, and listed in
 * pieces (nfhp_state_walk()) with ticks that grow the table between the
 * pieces, while a counting event callback follows every state made and
 * unlinked.  The reference is a flat list of states that it searches whole,
 * matching a packet forward or swapped against the tuple of the packet
 * that made each state, and that applies the TCP lifetimes with
 * booleans, not with the core's flag word.  Each step's verdict,
 * return code, lifetime left, counters and TCP flags must agree; the
 * tick may free a dead state when it likes, so the reference drops
 * its dead states the table no longer holds, and must hold no live
 * state the table lacks.  The table starts at 4 buckets and holds
 * at most 48 states, so it grows while full.  At the end every byte
 * is given back.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key.h"
#include "state.h"
#include "state_tuple.h"
#include "tap.h"
#include "xorshift.h"

#define HZ		100
#define FLOWS		96
#define REF_MAX		4096
#define NRULES		5

static const u8 protos[] = { 6, 6, 6, 17, 17, 1, 58, 47 };

/**
 * struct flow - a flow of the pool: one way of it
 * @t: its tuple, the first way
 * @ack: the next ACK numbers of each way, drifting
 */
struct flow {
	struct nfhp_state_tuple t;
	u32 ack[2];
};

/**
 * struct ref_state - a state of the reference
 * @t: the tuple of the packet that made it
 * @rule: the index of its rule
 * @syn: SYN seen forward and reverse
 * @fin: FIN seen
 * @rst: RST seen
 * @ackbit: ACKs seen each way since the last renewal
 * @ack: the highest ACK numbers, 0 for none
 * @expire: the tick from which it is dead
 * @pkts: packets each way
 * @bytes: bytes each way
 * @listed: times the listing under way listed it
 */
struct ref_state {
	struct nfhp_state_tuple t;
	int rule;
	bool syn[2], fin[2], rst[2], ackbit[2];
	u32 ack[2];
	unsigned long expire;
	u64 pkts[2], bytes[2];
	unsigned int listed;
};

/**
 * struct run - one run: the table, the reference and the world
 * @t: the table
 * @mem: its account
 * @tun: the settings the reference reads (the table's own copy)
 * @ref: the reference's states
 * @n: how many
 * @flows: the pool
 * @rules: the keep-state rules
 * @now: the clock
 * @bad: steps that disagreed
 * @why: the first disagreement
 * @ev_made: states the event callback was told were made
 * @ev_gone: and unlinked
 */
struct run {
	struct nfhp_state_table t;
	struct nfhp_mem mem;
	struct ref_state ref[REF_MAX];
	unsigned int n;
	struct flow flows[FLOWS];
	struct nfhp_state_rule rules[NRULES];
	unsigned long now;
	unsigned int bad;
	char why[160];
	long ev_made;
	long ev_gone;
};

static void bad(struct run *r, const char *what, unsigned int step)
{
	if (!r->bad++)
		snprintf(r->why, sizeof(r->why), "step %u: %s", step, what);
}

static bool tuple_eq(const struct nfhp_state_tuple *a,
		     const struct nfhp_state_tuple *b)
{
	return a->family == b->family && a->proto == b->proto &&
	       !memcmp(a->src, b->src, sizeof(a->src)) &&
	       !memcmp(a->dst, b->dst, sizeof(a->dst)) &&
	       a->sport == b->sport && a->dport == b->dport;
}

static void tuple_swap(struct nfhp_state_tuple *out,
		       const struct nfhp_state_tuple *in)
{
	*out = *in;
	memcpy(out->src, in->dst, sizeof(out->src));
	memcpy(out->dst, in->src, sizeof(out->dst));
	out->sport = in->dport;
	out->dport = in->sport;
}

/* The way @p goes on @s: 0 forward, 1 reverse, -1 not its flow. */
static int ref_dir(const struct ref_state *s, const struct nfhp_state_tuple *p)
{
	struct nfhp_state_tuple sw;

	if (tuple_eq(&s->t, p))
		return 0;
	tuple_swap(&sw, p);
	return tuple_eq(&s->t, &sw) ? 1 : -1;
}

static bool ref_dead(const struct run *r, const struct ref_state *s)
{
	return (long)(r->now - s->expire) >= 0;
}

static int ref_find(const struct run *r, const struct nfhp_state_tuple *p,
		    bool live)
{
	unsigned int i;

	for (i = 0; i < r->n; i++) {
		if (ref_dir(&r->ref[i], p) >= 0 &&
		    (!live || !ref_dead(r, &r->ref[i])))
			return i;
	}
	return -1;
}

static void ref_del(struct run *r, unsigned int i)
{
	r->ref[i] = r->ref[--r->n];
}

/* ipfw's lifetimes, spelled out with booleans. */
static void ref_update(struct run *r, struct ref_state *s, int dir,
		       const struct nfhp_state_pkt *pkt)
{
	const struct nfhp_state_tunables *tun = &r->t.tun;
	bool syn_both, fin_both, fin_any, rst_any, ack_new = false;
	bool renew = true;
	u32 life = 0;

	s->pkts[dir]++;
	s->bytes[dir] += pkt->len;
	if (s->t.proto == 17) {
		life = tun->udp_lifetime;
	} else if (s->t.proto != 6) {
		life = tun->short_lifetime;
	} else {
		if (pkt->tcp_flags & NFHP_TCP_ACK) {
			ack_new = !s->ack[dir] ||
				  (int32_t)(pkt->ack - s->ack[dir]) >= 0;
			if (ack_new)
				s->ack[dir] = pkt->ack;
		}
		s->syn[dir] |= !!(pkt->tcp_flags & NFHP_TCP_SYN);
		s->fin[dir] |= !!(pkt->tcp_flags & NFHP_TCP_FIN);
		s->rst[dir] |= !!(pkt->tcp_flags & NFHP_TCP_RST);
		syn_both = s->syn[0] && s->syn[1];
		fin_both = s->fin[0] && s->fin[1];
		fin_any = s->fin[0] || s->fin[1];
		rst_any = s->rst[0] || s->rst[1];
		if (s->syn[0] && !s->syn[1] && !fin_any && !rst_any) {
			life = tun->syn_lifetime;
		} else if (syn_both && !fin_both && !rst_any) {
			renew = false;
			if (ack_new) {
				s->ackbit[dir] = true;
				if (s->ackbit[0] && s->ackbit[1]) {
					s->ackbit[0] = s->ackbit[1] = false;
					life = tun->ack_lifetime;
					renew = true;
				}
			}
		} else if (syn_both && fin_both && !rst_any) {
			life = tun->fin_lifetime;
		} else {
			life = tun->rst_lifetime;
		}
	}
	if (renew)
		s->expire = r->now + (unsigned long)life * HZ;
}

/* The masked tuple of a limit, as the reference sees it. */
static bool same_parent(const struct nfhp_state_rule *rule,
			const struct nfhp_state_tuple *a,
			const struct nfhp_state_tuple *b)
{
	u8 m = rule->limit_mask;

	return a->family == b->family && a->proto == b->proto &&
	       (!(m & NFHP_STATE_LIMIT_SRC_ADDR) ||
		!memcmp(a->src, b->src, sizeof(a->src))) &&
	       (!(m & NFHP_STATE_LIMIT_DST_ADDR) ||
		!memcmp(a->dst, b->dst, sizeof(a->dst))) &&
	       (!(m & NFHP_STATE_LIMIT_SRC_PORT) || a->sport == b->sport) &&
	       (!(m & NFHP_STATE_LIMIT_DST_PORT) || a->dport == b->dport);
}

/* Parents: the distinct (rule, masked tuple) of the states, counted. */
static unsigned int ref_parents(const struct run *r)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < r->n; i++) {
		const struct nfhp_state_rule *ru = &r->rules[r->ref[i].rule];

		if (!ru->limit)
			continue;
		for (j = 0; j < i; j++) {
			if (r->ref[j].rule == r->ref[i].rule &&
			    same_parent(ru, &r->ref[j].t, &r->ref[i].t))
				break;
		}
		n += j == i;
	}
	return n;
}

static int ref_admit(struct run *r, const struct nfhp_state_pkt *pkt, int ri,
		     bool *made);

/* What keep-state gives @p with rule @ri, with no memory failure. */
static int ref_keep(struct run *r, const struct nfhp_state_pkt *pkt, int ri,
		    bool *made)
{
	int i = ref_find(r, &pkt->tuple, true);

	*made = false;
	if (i >= 0) {
		ref_update(r, &r->ref[i], ref_dir(&r->ref[i], &pkt->tuple),
			   pkt);
		return -EEXIST;
	}
	return ref_admit(r, pkt, ri, made);
}

/* A new state for a flow with no live one: its dead twin goes first. */
static int ref_admit(struct run *r, const struct nfhp_state_pkt *pkt, int ri,
		     bool *made)
{
	const struct nfhp_state_rule *ru = &r->rules[ri];
	unsigned int j, kids = 0;
	bool parent = false;
	int i;

	i = ref_find(r, &pkt->tuple, false);
	if (i >= 0)
		ref_del(r, i);
	if (r->n >= r->t.tun.max_states)
		return -ENOSPC;
	if (ru->limit) {
		for (j = 0; j < r->n; j++) {
			if (r->ref[j].rule == ri &&
			    same_parent(ru, &r->ref[j].t, &pkt->tuple)) {
				parent = true;
				kids++;
			}
		}
		if (!parent && ref_parents(r) >= r->t.tun.max_parents)
			return -ENOSPC;
		if (kids >= ru->limit)
			return -EDQUOT;
	}
	*made = true;
	return 0;
}

static void ref_make(struct run *r, const struct nfhp_state_pkt *pkt, int ri)
{
	struct ref_state *s = &r->ref[r->n++];

	memset(s, 0, sizeof(*s));
	s->t = pkt->tuple;
	s->rule = ri;
	ref_update(r, s, 0, pkt);
}

/* Does the table's state @s hold what the reference's @rs does? */
static bool same_state(struct run *r, const struct nfhp_state *s,
		       const struct ref_state *rs)
{
	bool rev = s->creator_reverse;
	u32 w = s->tcp;
	int d;

	for (d = 0; d < 2; d++) {
		unsigned int sh = d ? 8 : 0;

		if (s->pkts[d] != rs->pkts[d] || s->bytes[d] != rs->bytes[d])
			return false;
		if (s->key.proto != 6)
			continue;
		if (!!(w & NFHP_TCP_SYN << sh) != rs->syn[d] ||
		    !!(w & NFHP_TCP_FIN << sh) != rs->fin[d] ||
		    !!(w & NFHP_TCP_RST << sh) != rs->rst[d] ||
		    !!(w & (d ? NFHP_STATE_ACK_REV : NFHP_STATE_ACK_FWD)) !=
		    rs->ackbit[d] || s->ack[d] != rs->ack[d])
			return false;
	}
	(void)rev;
	return s->expire == rs->expire && s->rule == &r->rules[rs->rule] &&
	       s->rule_number == r->rules[rs->rule].number &&
	       s->verdict == r->rules[rs->rule].verdict;
}

static void make_flow(struct flow *f)
{
	struct nfhp_state_tuple *t = &f->t;
	bool v6 = rnd() % 3 == 0;
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->family = v6 ? NFHP_FAMILY_IPV6 : NFHP_FAMILY_IPV4;
	t->proto = protos[rnd() % ARRAY_SIZE(protos)];
	if (t->proto == 58 && !v6)
		t->proto = 1;
	/* Few addresses, so that limits' parents fill. */
	for (i = 0; i < (v6 ? 4 : 1); i++) {
		t->src[i] = i == 3 || !v6 ? 0x0a000000 + rnd() % 4 : 0x20010db8;
		t->dst[i] = i == 3 || !v6 ? 0x0a000000 + rnd() % 4 : 0x20010db8;
	}
	if (t->proto == 1 || t->proto == 58) {
		t->sport = t->dport = rnd() % 3;
	} else if (t->proto != 47) {
		t->sport = rnd() % 4 ? 1024 + rnd() % 8 : 80;
		t->dport = rnd() % 2 ? 80 : 443 + rnd() % 2;
	}
	f->ack[0] = rnd() % 3 ? (u32)rnd() : 0xfffffff0u;
	f->ack[1] = (u32)rnd();
}

static const u8 flag_mixes[] = {
	NFHP_TCP_SYN, NFHP_TCP_SYN | NFHP_TCP_ACK, NFHP_TCP_ACK, NFHP_TCP_ACK,
	NFHP_TCP_ACK, NFHP_TCP_ACK, NFHP_TCP_FIN | NFHP_TCP_ACK,
	NFHP_TCP_RST, 0,
};

static void make_packet(struct run *r, struct nfhp_state_pkt *pkt)
{
	struct flow *f = &r->flows[rnd() % FLOWS];
	int way = rnd() % 2;
	struct nfhp_state_tuple t;

	if (way)
		tuple_swap(&t, &f->t);
	else
		t = f->t;
	nfhp_state_pkt_init(pkt, &t);
	pkt->len = 40 + rnd() % 1400;
	pkt->tcp_flags = 0;
	pkt->ack = 0;
	if (t.proto != 6)
		return;
	pkt->tcp_flags = rnd() % 64 == 0 ? (u8)rnd() :
			 flag_mixes[rnd() % ARRAY_SIZE(flag_mixes)];
	/* Mostly forward in sequence space, now and then back. */
	f->ack[way] += rnd() % 8 ? rnd() % 3000 : -(u32)(rnd() % 3000);
	pkt->ack = f->ack[way];
}

static void step_check(struct run *r, unsigned int step)
{
	struct nfhp_state_pkt pkt;
	struct nfhp_state *s;
	int i;

	make_packet(r, &pkt);
	s = nfhp_state_check(&r->t, &pkt, r->now);
	i = ref_find(r, &pkt.tuple, true);
	if (!s != (i < 0)) {
		bad(r, "check: found in one only", step);
		return;
	}
	if (i < 0)
		return;
	ref_update(r, &r->ref[i], ref_dir(&r->ref[i], &pkt.tuple), &pkt);
	if (!same_state(r, s, &r->ref[i]))
		bad(r, "check: state differs", step);
}

static void step_keep(struct run *r, unsigned int step)
{
	int ri = rnd() % NRULES, want, got;
	struct nfhp_state_pkt pkt;
	struct nfhp_state *s = NULL;
	bool made;
	int i;

	make_packet(r, &pkt);
	want = ref_keep(r, &pkt, ri, &made);
	nfhp_shim_fail_countdown = rnd() % 16 == 0 ? 1 + rnd() % 2 : 0;
	got = nfhp_state_keep(&r->t, &pkt, &r->rules[ri], r->now, &s);
	nfhp_shim_fail_countdown = 0;
	if (got == -ENOMEM && made)
		return;
	if (got != want) {
		snprintf(r->why + 100, 60, " (%d, want %d)", got, want);
		bad(r, "keep: return code differs", step);
		return;
	}
	if (made)
		ref_make(r, &pkt, ri);
	if (got && got != -EEXIST)
		return;
	i = ref_find(r, &pkt.tuple, false);
	if (i < 0 || !s || !same_state(r, s, &r->ref[i]))
		bad(r, "keep: state differs", step);
}

/*
 * After a tick: the reference drops the dead states the table freed;
 * every state it keeps must be in the table, as it is.
 */
static void sync_and_compare(struct run *r, unsigned int step)
{
	struct nfhp_state_pkt pkt;
	struct nfhp_state *s;
	unsigned int i;

	for (i = 0; i < r->n;) {
		nfhp_state_pkt_init(&pkt, &r->ref[i].t);
		s = nfhp_state_find(&r->t, &pkt.key);
		if (!s && ref_dead(r, &r->ref[i])) {
			ref_del(r, i);
			continue;
		}
		if (!s || !same_state(r, s, &r->ref[i]))
			bad(r, "tick: a state lost or changed", step);
		i++;
	}
	if ((unsigned int)atomic_read(&r->t.count) != r->n)
		bad(r, "tick: counts differ", step);
	if ((unsigned int)atomic_read(&r->t.parent_count) != ref_parents(r))
		bad(r, "tick: parents differ", step);
	if (r->ev_made != atomic_long_read(&r->t.stats.created) ||
	    r->ev_made - r->ev_gone != atomic_read(&r->t.count))
		bad(r, "events: made or unlinked states untold", step);
}

static void step_tick(struct run *r, unsigned int step, u32 budget)
{
	/* A growth's array may not come: the tick tries again later. */
	nfhp_shim_fail_countdown = rnd() % 4 == 0;
	nfhp_state_tick(&r->t, r->now, budget);
	nfhp_shim_fail_countdown = 0;
	if (rnd() % 4 == 0)
		synchronize_rcu();
	sync_and_compare(r, step);
}

/* A tick over every bucket, when the table does not grow, frees the dead. */
static void step_full_tick(struct run *r, unsigned int step)
{
	bool growing = nfhp_state_growing(&r->t);
	unsigned int i;

	step_tick(r, step, ~0u);
	if (growing)
		return;
	for (i = 0; i < r->n; i++) {
		if (ref_dead(r, &r->ref[i]))
			bad(r, "full tick: a dead state left", step);
	}
}

static bool of_family(const struct nfhp_state *s, const void *family)
{
	return s->key.family == *(const u8 *)family;
}

static void step_flush(struct run *r, unsigned int step)
{
	int ri = rnd() % (NRULES + 2), i;
	u8 family = rnd() % 2 ? NFHP_FAMILY_IPV4 : NFHP_FAMILY_IPV6;
	unsigned int got, want = 0;

	/* A rule's states, all, or a family's. */
	if (ri <= NRULES)
		got = nfhp_state_flush(&r->t, ri < NRULES ? &r->rules[ri] :
							   NULL);
	else
		got = nfhp_state_flush_if(&r->t, of_family, &family);
	for (i = r->n - 1; i >= 0; i--) {
		if (ri == NRULES || r->ref[i].rule == ri ||
		    (ri > NRULES && r->ref[i].t.family == family)) {
			ref_del(r, i);
			want++;
		}
	}
	if (got != want)
		bad(r, "flush: counts differ", step);
	sync_and_compare(r, step);
}

/* The reference of a state added by hand, from @init. */
static void ref_make_init(struct run *r, const struct nfhp_state_pkt *pkt,
			  int ri, const struct nfhp_state_init *init)
{
	struct ref_state *s = &r->ref[r->n++];
	int d;

	memset(s, 0, sizeof(*s));
	s->t = pkt->tuple;
	s->rule = ri;
	s->expire = init->expire;
	for (d = 0; d < 2; d++) {
		u32 w = init->tcp >> (d ? 8 : 0);

		s->syn[d] = w & NFHP_TCP_SYN;
		s->fin[d] = w & NFHP_TCP_FIN;
		s->rst[d] = w & NFHP_TCP_RST;
		s->ackbit[d] = init->tcp & (d ? NFHP_STATE_ACK_REV :
					    NFHP_STATE_ACK_FWD);
		s->pkts[d] = init->pkts[d];
		s->bytes[d] = init->bytes[d];
	}
}

/* A state added by hand, as a standby restores one. */
static void step_add(struct run *r, unsigned int step)
{
	static const u32 bits = NFHP_TCP_SYN | NFHP_TCP_FIN | NFHP_TCP_RST;
	struct nfhp_state_init init = {};
	int ri = rnd() % NRULES, want, got, i;
	struct nfhp_state_pkt pkt;
	bool made = false;

	make_packet(r, &pkt);
	init.expire = r->now + (rnd() % 8 ? 1 + rnd() % (400 * HZ) :
				-(unsigned long)(rnd() % 2));
	if (pkt.tuple.proto == 6)
		init.tcp = (rnd() & (bits | bits << 8)) |
			   (rnd() % 2 ? NFHP_STATE_ACK_FWD : 0) |
			   (rnd() % 2 ? NFHP_STATE_ACK_REV : 0);
	init.pkts[0] = rnd() % 1000;
	init.pkts[1] = rnd() % 1000;
	init.bytes[0] = rnd();
	init.bytes[1] = rnd();
	if ((long)(init.expire - r->now) <= 0)
		want = -EINVAL;
	else if (ref_find(r, &pkt.tuple, true) >= 0)
		want = -EEXIST;
	else
		want = ref_admit(r, &pkt, ri, &made);
	nfhp_shim_fail_countdown = rnd() % 16 == 0 ? 1 + rnd() % 2 : 0;
	got = nfhp_state_add(&r->t, &pkt, &r->rules[ri], &init, r->now);
	nfhp_shim_fail_countdown = 0;
	if (got == -ENOMEM && made)
		return;
	if (got != want) {
		snprintf(r->why + 100, 60, " (%d, want %d)", got, want);
		bad(r, "add: return code differs", step);
		return;
	}
	if (!made)
		return;
	ref_make_init(r, &pkt, ri, &init);
	i = ref_find(r, &pkt.tuple, false);
	if (!same_state(r, nfhp_state_find(&r->t, &pkt.key), &r->ref[i]))
		bad(r, "add: state differs", step);
}

/* The live state of a flow deleted, given either way. */
static void step_delete(struct run *r, unsigned int step)
{
	struct nfhp_state_pkt pkt;
	int i, want = -ENOENT;

	make_packet(r, &pkt);
	i = ref_find(r, &pkt.tuple, true);
	if (i >= 0) {
		ref_del(r, i);
		want = 0;
	}
	if (nfhp_state_delete(&r->t, &pkt.key, r->now) != want)
		bad(r, "delete: return code differs", step);
	sync_and_compare(r, step);
}

/**
 * struct walk - a listing under way
 * @r: the run
 * @left: states the piece under way may still list
 * @dead: dead states listed
 * @unknown: states listed the reference does not hold
 */
struct walk {
	struct run *r;
	unsigned int left;
	unsigned int dead;
	unsigned int unknown;
};

static int walk_fn(void *arg, const struct nfhp_state *s)
{
	struct walk *w = arg;
	struct nfhp_state_pkt pkt;
	unsigned int i;

	if (!w->left)
		return 1;
	w->left--;
	w->dead += nfhp_state_dead(s, w->r->now);
	for (i = 0; i < w->r->n; i++) {
		nfhp_state_pkt_init(&pkt, &w->r->ref[i].t);
		if (nfhp_state_key_equal(&pkt.key, &s->key)) {
			w->r->ref[i].listed++;
			return 0;
		}
	}
	w->unknown++;
	return 0;
}

/*
 * The whole table listed in pieces of random sizes, with ticks between
 * them that expire nothing (the clock stands) but move states to a
 * bigger array: every live state is listed, once unless the table grew
 * under the listing.  Return: whether it grew.
 */
static bool step_walk(struct run *r, unsigned int step)
{
	struct nfhp_state_cursor cur = {};
	struct walk w = { .r = r };
	bool grew = nfhp_state_growing(&r->t);
	u32 buckets = nfhp_state_buckets(&r->t);
	unsigned int i, pieces = 0;

	for (i = 0; i < r->n; i++)
		r->ref[i].listed = 0;
	do {
		w.left = 1 + rnd() % 8;
		if (!nfhp_state_walk(&r->t, &cur, r->now, walk_fn, &w))
			break;
		if (rnd() % 2)
			step_tick(r, step, 1 + rnd() % 3);
		grew |= nfhp_state_growing(&r->t) ||
			nfhp_state_buckets(&r->t) != buckets;
	} while (++pieces < 10000);
	for (i = 0; i < r->n; i++) {
		if (ref_dead(r, &r->ref[i]))
			continue;
		if (!r->ref[i].listed || (!grew && r->ref[i].listed != 1))
			bad(r, "walk: a live state missed or listed twice",
			    step);
	}
	if (w.dead || w.unknown || pieces == 10000)
		bad(r, "walk: a dead or unknown state listed", step);
	return grew;
}

static void count_event(void *arg, const struct nfhp_state *s, bool made)
{
	struct run *r = arg;

	if (made)
		r->ev_made++;
	else
		r->ev_gone++;
}

/* Now and then, new lifetimes, short ones often. */
static void step_tune(struct run *r)
{
	struct nfhp_state_tunables *tun = &r->t.tun;
	u32 *life[] = { &tun->syn_lifetime, &tun->ack_lifetime,
			&tun->fin_lifetime, &tun->rst_lifetime,
			&tun->udp_lifetime, &tun->short_lifetime };

	*life[rnd() % ARRAY_SIZE(life)] = rnd() % 2 ? rnd() % 4 : rnd() % 400;
}

static void init_rules(struct run *r)
{
	static const u8 masks[NRULES] = {
		0, NFHP_STATE_LIMIT_SRC_ADDR, NFHP_STATE_LIMIT_DST_ADDR |
		NFHP_STATE_LIMIT_DST_PORT, NFHP_STATE_LIMIT_ALL, 0,
	};
	static const u32 limits[NRULES] = { 0, 2, 3, 1, 0 };
	int i;

	for (i = 0; i < NRULES; i++) {
		r->rules[i] = (struct nfhp_state_rule){
			.rule = &r->rules[i], .number = 100 * (i + 1),
			.verdict = i + 1, .limit = limits[i],
			.limit_mask = masks[i],
		};
	}
}

/* A new table, empty, and a new pool of flows; false if no table. */
static bool restart(struct run *r, bool first)
{
	struct nfhp_state_tunables tun;
	int i;

	if (!first) {
		nfhp_state_table_destroy(&r->t);
		r->bad += r->mem.used || r->mem.allocated;
		if (r->bad && !r->why[0])
			snprintf(r->why, sizeof(r->why), "bytes left");
	}
	r->n = 0;
	nfhp_state_tunables_default(&tun);
	tun.buckets_init = 4;
	tun.buckets_max = 64;
	tun.max_states = 48;
	tun.max_parents = 24;
	for (i = 0; i < FLOWS; i++)
		make_flow(&r->flows[i]);
	r->ev_made = 0;
	r->ev_gone = 0;
	if (nfhp_state_table_init(&r->t, &r->mem, &tun, HZ, NULL))
		return false;
	r->t.event = count_event;
	r->t.event_arg = r;
	return true;
}

/* add_stats() - add the counters of one table's life to @sum. */
static void add_stats(struct nfhp_state_stats *sum,
		      const struct nfhp_state_stats *st)
{
	atomic_long_add(atomic_long_read(&st->created), &sum->created);
	atomic_long_add(atomic_long_read(&st->refused_max), &sum->refused_max);
	atomic_long_add(atomic_long_read(&st->refused_limit),
			&sum->refused_limit);
	atomic_long_add(atomic_long_read(&st->refused_parents),
			&sum->refused_parents);
}

static void run_random(unsigned int steps)
{
	static struct run r;
	unsigned int s, grows = 0, refused = 0, made, maxb = 0;
	unsigned int checks_growing = 0, walks = 0, walks_grew = 0;
	struct nfhp_state_stats sum = {};

	memset(&r, 0, sizeof(r));
	r.mem.limit = ~0ull;
	init_rules(&r);
	/* Across the wrap of the clock. */
	r.now = -(unsigned long)(600 * HZ);
	check(restart(&r, true), "random: init");
	for (s = 0; s < steps; s++) {
		bool was = nfhp_state_growing(&r.t);

		if (s % 5000 == 4999) {
			add_stats(&sum, &r.t.stats);
			if (!restart(&r, false)) {
				bad(&r, "restart", s);
				break;
			}
			continue;
		}
		checks_growing += was;

		switch (rnd() % 20) {
		case 0: case 1: case 2: case 3: case 4:
			step_keep(&r, s);
			break;
		case 5: case 6: case 7: case 8: case 9: case 10:
			step_check(&r, s);
			break;
		case 11:
			r.now += rnd() % 8 ? rnd() % (3 * HZ) : rnd() % (400 * HZ);
			break;
		case 12: case 13:
			step_tick(&r, s, 1 + rnd() % 3);
			break;
		case 14:
			if (rnd() % 8 == 0)
				step_flush(&r, s);
			else if (rnd() % 4 == 0)
				step_tune(&r);
			break;
		case 15:
			if (rnd() % 16 == 0)
				step_full_tick(&r, s);
			break;
		case 16: case 17:
			step_add(&r, s);
			break;
		case 18:
			step_delete(&r, s);
			break;
		default:
			if (rnd() % 8)
				break;
			walks++;
			walks_grew += step_walk(&r, s);
		}
		grows += was && !nfhp_state_growing(&r.t);
		maxb = max(maxb, nfhp_state_buckets(&r.t));
		if (r.bad)
			break;
	}
	add_stats(&sum, &r.t.stats);
	made = atomic_long_read(&sum.created);
	refused = atomic_long_read(&sum.refused_max) +
		  atomic_long_read(&sum.refused_limit) +
		  atomic_long_read(&sum.refused_parents);
	check(!r.bad, "random: %u steps agree with the list (%u disagree%s%s)",
	      s, r.bad, r.bad ? ": " : "", r.why);
	check(grows && made > 100 && refused,
	      "random: %u states made, %u refused, %u growths up to %u buckets",
	      made, refused, grows, maxb);
	check(checks_growing > 100,
	      "random: %u steps while the table grew", checks_growing);
	check(atomic_long_read(&sum.refused_limit) &&
	      atomic_long_read(&sum.refused_parents) &&
	      atomic_long_read(&sum.refused_max),
	      "random: refused at limits (%ld), parents (%ld), max (%ld)",
	      atomic_long_read(&sum.refused_limit),
	      atomic_long_read(&sum.refused_parents),
	      atomic_long_read(&sum.refused_max));
	check(walks > 100 && walks_grew > 10,
	      "random: %u listings in pieces, %u while the table grew", walks,
	      walks_grew);
	nfhp_state_table_destroy(&r.t);
	check(!r.mem.used && !r.mem.allocated,
	      "random: every byte given back (%llu left)",
	      (unsigned long long)r.mem.used);
}

/* One packet of @t, forward or @back, through check-state. */
static struct nfhp_state *pass(struct nfhp_state_table *tb,
			       const struct nfhp_state_tuple *t, bool back,
			       u8 flags, u32 ack, unsigned long now)
{
	struct nfhp_state_tuple sw;
	struct nfhp_state_pkt pkt;

	if (back)
		tuple_swap(&sw, t);
	nfhp_state_pkt_init(&pkt, back ? &sw : t);
	pkt.tcp_flags = flags;
	pkt.ack = ack;
	pkt.len = 60;
	return nfhp_state_check(tb, &pkt, now);
}

static int keep(struct nfhp_state_table *tb, const struct nfhp_state_tuple *t,
		const struct nfhp_state_rule *rule, u8 flags,
		unsigned long now)
{
	struct nfhp_state_pkt pkt;
	struct nfhp_state *s;

	nfhp_state_pkt_init(&pkt, t);
	pkt.tcp_flags = flags;
	pkt.len = 60;
	return nfhp_state_keep(tb, &pkt, rule, now, &s);
}

/* The worked examples of DOC: Theory of Operation (state_table.c). */
static void run_examples(void)
{
	struct nfhp_state_rule rule = { .rule = &rule, .number = 100,
					.verdict = 1 };
	struct nfhp_state_rule lim = { .rule = &lim, .number = 200,
				       .verdict = 1, .limit = 2,
				       .limit_mask = NFHP_STATE_LIMIT_SRC_ADDR };
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_state_tunables tun;
	struct nfhp_state_tuple t, u, v[3];
	struct nfhp_state_table tb;
	const u32 a = 0x0a000001, b = 0x0a000002;
	struct nfhp_state *s;
	bool ok;
	int i, err;

	nfhp_state_tunables_default(&tun);
	check(tun.syn_lifetime == 20 && tun.ack_lifetime == 300 &&
	      tun.fin_lifetime == 1 && tun.rst_lifetime == 1 &&
	      tun.udp_lifetime == 10 && tun.short_lifetime == 5 &&
	      tun.max_states == 16384 && tun.max_parents == 4096 &&
	      tun.buckets_init == 256 && tun.buckets_max == 1u << 22 &&
	      tun.bucket_load == 1,
	      "examples: ipfw's defaults, buckets up to max_states");
	check(!nfhp_state_table_init(&tb, &mem, &tun, HZ, NULL), "examples: init");

	/* A TCP connection, as in the DOC. */
	v4_tuple(&t, 6, a, 40000, b, 80);
	ok = keep(&tb, &t, &rule, NFHP_TCP_SYN, 0) == 0;
	s = pass(&tb, &t, false, 0, 0, 1);
	ok &= s && s->expire == 1 + 20 * HZ;
	s = pass(&tb, &t, true, NFHP_TCP_SYN | NFHP_TCP_ACK, 1001, 5);
	ok &= s && s->expire == 1 + 20 * HZ && (s->tcp & NFHP_STATE_ACK_REV);
	s = pass(&tb, &t, false, NFHP_TCP_ACK, 5001, 6);
	ok &= s && s->expire == 6 + 300 * HZ && !(s->tcp & NFHP_STATE_ACK_REV);
	s = pass(&tb, &t, false, NFHP_TCP_ACK, 6001, 100);
	ok &= s && s->expire == 6 + 300 * HZ;
	s = pass(&tb, &t, true, NFHP_TCP_ACK, 2001, 110);
	ok &= s && s->expire == 110 + 300 * HZ;
	/* An old ACK does not count: one way only, no renewal. */
	s = pass(&tb, &t, false, NFHP_TCP_ACK, 1, 120);
	s = pass(&tb, &t, true, NFHP_TCP_ACK, 2002, 130);
	ok &= s && s->expire == 110 + 300 * HZ;
	s = pass(&tb, &t, false, NFHP_TCP_FIN | NFHP_TCP_ACK, 6002, 200);
	ok &= s && s->expire == 200 + 300 * HZ;
	s = pass(&tb, &t, true, NFHP_TCP_FIN | NFHP_TCP_ACK, 2003, 201);
	ok &= s && s->expire == 201 + HZ && s->pkts[0] == 6 &&
	      s->pkts[1] == 4 && s->bytes[1] == 240;
	check(ok, "examples: a TCP connection's lifetimes: syn, ack, fin");
	nfhp_state_tick(&tb, 300, ~0u);
	ok = atomic_read(&tb.count) == 1 && pass(&tb, &t, true, 0, 0, 300);
	ok &= !pass(&tb, &t, true, NFHP_TCP_ACK, 2004, 301 + HZ);
	nfhp_state_tick(&tb, 301 + HZ, ~0u);
	check(ok && !atomic_read(&tb.count) &&
	      atomic_long_read(&tb.stats.expired) == 1,
	      "examples: dead after its fin lifetime, freed by the tick");

	/* A RST: rst lifetime.  UDP and ICMP: their own. */
	ok = keep(&tb, &t, &rule, NFHP_TCP_SYN, 1000) == 0;
	s = pass(&tb, &t, true, NFHP_TCP_RST, 0, 1001);
	ok &= s && s->expire == 1001 + HZ;
	v4_tuple(&u, 17, a, 5353, b, 53);
	ok &= keep(&tb, &u, &rule, 0, 1000) == 0;
	s = pass(&tb, &u, true, 0, 0, 1002);
	ok &= s && s->expire == 1002 + 10 * HZ && s->pkts[1] == 1;
	v4_tuple(&u, 1, a, 7, b, 7);
	ok &= keep(&tb, &u, &rule, 0, 1000) == 0;
	s = pass(&tb, &u, true, 0, 0, 1003);
	ok &= s && s->expire == 1003 + 5 * HZ;
	v4_tuple(&u, 17, a, 5354, b, 53);
	ok &= !pass(&tb, &u, true, 0, 0, 1003);
	check(ok, "examples: rst, udp and short lifetimes; no state, no match");
	check(nfhp_state_flush(&tb, &rule) == 3 && !atomic_read(&tb.count),
	      "examples: a rule's deletion takes its states");

	/* A limit: two flows from a, not a third, until one goes. */
	v4_tuple(&v[0], 17, a, 1000, b, 80);
	v4_tuple(&v[1], 17, a, 1001, b, 443);
	v4_tuple(&v[2], 17, a, 1002, b, 8080);
	ok = keep(&tb, &v[0], &lim, 0, 0) == 0;
	ok &= keep(&tb, &v[1], &lim, 0, 500) == 0;
	ok &= keep(&tb, &v[2], &lim, 0, 600) == -EDQUOT;
	ok &= atomic_long_read(&tb.stats.refused_limit) == 1 &&
	      atomic_read(&tb.parent_count) == 1;
	v4_tuple(&u, 17, b, 1000, a, 80);
	ok &= keep(&tb, &u, &lim, 0, 600) == 0 &&
	      atomic_read(&tb.parent_count) == 2;
	nfhp_state_tick(&tb, 10 * HZ, ~0u);
	ok &= keep(&tb, &v[2], &lim, 0, 10 * HZ) == 0;
	check(ok, "examples: a limit of 2 per source refuses the third flow");
	nfhp_state_flush(&tb, NULL);
	check(!atomic_read(&tb.count) && !atomic_read(&tb.parent_count),
	      "examples: flush takes every state and parent");
	nfhp_state_table_destroy(&tb);

	/* Growth: 4 buckets, 5 states; every state found at every tick. */
	tun.buckets_init = 4;
	nfhp_state_table_init(&tb, &mem, &tun, HZ, NULL);
	for (i = 0; i < 5; i++) {
		v4_tuple(&u, 17, a, 2000 + i, b, 53);
		keep(&tb, &u, &rule, 0, 0);
	}
	ok = true;
	for (i = 0; i < 6; i++) {
		int j;

		nfhp_state_tick(&tb, 1, 1);
		for (j = 0; j < 5; j++) {
			v4_tuple(&u, 17, a, 2000 + j, b, 53);
			ok &= !!pass(&tb, &u, j % 2, 0, 0, 2);
		}
		ok &= nfhp_state_growing(&tb) == (i < 4);
		ok &= nfhp_state_growth_left(&tb) == (i < 4 ? 4 - i : 0);
	}
	check(ok && nfhp_state_buckets(&tb) == 8,
	      "examples: 4 buckets grow to 8 over 5 ticks, one moved a tick, no state lost");
	nfhp_state_table_destroy(&tb);
	check(!mem.used && !mem.allocated, "examples: every byte given back");

	/* Each allocation of init fails in turn: nothing is left behind. */
	ok = true;
	for (i = 1; i <= 6; i++) {
		nfhp_shim_fail_countdown = i;
		err = nfhp_state_table_init(&tb, &mem, &tun, HZ, NULL);
		nfhp_shim_fail_countdown = 0;
		if (!err)
			nfhp_state_table_destroy(&tb);
		ok &= (i <= 4) == (err == -ENOMEM) && !mem.used;
	}
	check(ok, "examples: init fails cleanly at each of its 4 allocations");

	/* The bound: the reservation of max_states must fit the account. */
	mem.limit = 64 << 10;
	tun.max_states = 1000;
	check(nfhp_state_table_init(&tb, &mem, &tun, HZ, NULL) == -ENOMEM &&
	      !mem.used, "examples: 1000 states do not fit 64 KiB");
	tun.max_states = 100;
	tun.max_parents = 10;
	ok = !nfhp_state_table_init(&tb, &mem, &tun, HZ, NULL);
	ok &= nfhp_state_set_bounds(&tb, 1000, 10) == -ENOMEM &&
	      tb.tun.max_states == 100;
	ok &= !nfhp_state_set_bounds(&tb, 200, 10) &&
	      tb.tun.max_states == 200;
	nfhp_state_table_destroy(&tb);
	check(ok && !mem.used && !mem.allocated,
	      "examples: bounds within the account only, bytes given back");
}

/*
 * Many states, a table of 8 buckets: it grows to 8192 a few buckets a
 * tick, and every state is found after each tick.
 */
static void run_bulk(unsigned int n)
{
	struct nfhp_state_rule rule = { .rule = &rule, .number = 1,
					.verdict = 1 };
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_state_tunables tun;
	struct nfhp_state_tuple u;
	struct nfhp_state_table tb;
	unsigned int i, ticks = 0, grows = 0, miss = 0;
	bool was;

	nfhp_state_tunables_default(&tun);
	tun.buckets_init = 8;
	tun.max_states = n;
	nfhp_state_table_init(&tb, &mem, &tun, HZ, NULL);
	for (i = 0; i < n; i++) {
		v4_tuple(&u, 17, 0x0a000000 + i / 1000, 1024 + i % 1000,
			 0x0a0000ff, 53);
		miss += keep(&tb, &u, &rule, 0, 0) != 0;
		if (i % 500 == 0) {
			was = nfhp_state_growing(&tb);
			nfhp_state_tick(&tb, 0, 64);
			grows += was && !nfhp_state_growing(&tb);
			synchronize_rcu();
		}
	}
	v4_tuple(&u, 17, 0x0a000000, 1024, 0x0a0000ff, 53);
	miss += keep(&tb, &u, &rule, 0, 0) != -EEXIST;
	v4_tuple(&u, 17, 0x0b000000, 1024, 0x0a0000ff, 53);
	miss += keep(&tb, &u, &rule, 0, 0) != -ENOSPC;
	do {
		was = nfhp_state_growing(&tb);
		nfhp_state_tick(&tb, 0, 64);
		grows += was && !nfhp_state_growing(&tb);
		synchronize_rcu();
		ticks++;
		for (i = 0; i < n; i += 7) {
			v4_tuple(&u, 17, 0x0a000000 + i / 1000,
				 1024 + i % 1000, 0x0a0000ff, 53);
			miss += !pass(&tb, &u, i % 2, 0, 0, 1);
		}
	} while (nfhp_state_growing(&tb) || ticks < 2);
	check(!miss && nfhp_state_buckets(&tb) == 8192 &&
	      atomic_read(&tb.count) == (int)n,
	      "bulk: %u states, %u growths to %u buckets, none lost (%u missed)",
	      n, grows, nfhp_state_buckets(&tb), miss);
	nfhp_state_tick(&tb, 20 * HZ, ~0u);
	check(!atomic_read(&tb.count) &&
	      atomic_long_read(&tb.stats.expired) == n,
	      "bulk: all expire together");
	nfhp_state_table_destroy(&tb);
	check(!mem.used && !mem.allocated, "bulk: every byte given back");
}

/* The longest chain of the table's newest array. */
static unsigned int longest_chain(const struct nfhp_state_table *tb)
{
	const struct nfhp_state_array *a = rcu_dereference(tb->arr), *f;
	const struct nfhp_state *s;
	unsigned int i, len, most = 0;

	while ((f = rcu_dereference(a->future)))
		a = f;
	for (i = 0; i <= a->mask; i++) {
		len = 0;
		for (s = rcu_dereference(a->head[i]); s;
		     s = rcu_dereference(s->next))
			len++;
		most = max(most, len);
	}
	return most;
}

/* The flow of state @i of a bound run. */
static void bound_tuple(struct nfhp_state_tuple *u, unsigned int i)
{
	v4_tuple(u, 17, 0x0a000000 + i / 50000, 1024 + i % 50000,
		 0x0a0000ff, 53);
}

/*
 * Fill @tb with the states [@from, @to) of a bound run, ticking now and
 * then, then tick until the growth is over.  Return: states refused or,
 * in the end, not found.
 */
static unsigned int bound_fill(struct nfhp_state_table *tb,
			       const struct nfhp_state_rule *rule,
			       unsigned int from, unsigned int to)
{
	struct nfhp_state_tuple u;
	unsigned int i, miss = 0;

	for (i = from; i < to; i++) {
		bound_tuple(&u, i);
		miss += keep(tb, &u, rule, 0, 0) != 0;
		if (i % 2000 == 0) {
			nfhp_state_tick(tb, 0, 4096);
			synchronize_rcu();
		}
	}
	do {
		nfhp_state_tick(tb, 0, 4096);
		synchronize_rcu();
	} while (nfhp_state_growing(tb));
	for (i = 0; i < to; i++) {
		bound_tuple(&u, i);
		miss += !pass(tb, &u, i % 2, 0, 0, 1);
	}
	return miss;
}

/*
 * The buckets follow max_states, past the 8192 they once stopped at:
 * @n states make as many buckets, rounded up, and short chains; a
 * lowered max_states stops growth, a raised one lets it go on; the hard
 * cap holds; and an account too small for a bigger array keeps the
 * table as it is, every state found.
 */
static void run_bound(unsigned int n)
{
	struct nfhp_state_rule rule = { .rule = &rule, .number = 1,
					.verdict = 1 };
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_state_tunables tun;
	struct nfhp_state_table tb;
	unsigned int miss, longest;
	u32 buckets;
	bool ok;

	nfhp_state_tunables_default(&tun);
	tun.max_states = n;
	nfhp_state_table_init(&tb, &mem, &tun, HZ, NULL);
	miss = bound_fill(&tb, &rule, 0, n);
	buckets = nfhp_state_buckets(&tb);
	longest = longest_chain(&tb);
	check(!miss && buckets == roundup_pow_of_two(n) && buckets > 8192 &&
	      longest <= 12 && atomic_read(&tb.count) == (int)n,
	      "bound: %u states grow the table to %u buckets, chains of %u at most, none lost (%u missed)",
	      n, buckets, longest, miss);
	nfhp_state_table_destroy(&tb);

	/* Lowered before the states come: growth stops at its bound. */
	nfhp_state_table_init(&tb, &mem, &tun, HZ, NULL);
	ok = !nfhp_state_set_bounds(&tb, n / 8, tun.max_parents);
	miss = bound_fill(&tb, &rule, 0, n / 8);
	ok &= nfhp_state_buckets(&tb) == roundup_pow_of_two(n / 8);
	/* Raised: the table grows on, the states it holds all kept. */
	ok &= !nfhp_state_set_bounds(&tb, n, tun.max_parents);
	miss += bound_fill(&tb, &rule, n / 8, n);
	ok &= nfhp_state_buckets(&tb) == roundup_pow_of_two(n);
	/* Lowered again: it never shrinks. */
	ok &= !nfhp_state_set_bounds(&tb, 100, tun.max_parents) &&
	      nfhp_state_buckets_bound(&tb) == tun.buckets_init;
	nfhp_state_tick(&tb, 0, ~0u);
	ok &= nfhp_state_buckets(&tb) == roundup_pow_of_two(n);
	/* The hard cap. */
	ok &= !nfhp_state_set_bounds(&tb, INT_MAX, tun.max_parents) &&
	      nfhp_state_buckets_bound(&tb) == NFHP_STATE_BUCKETS_MAX;
	nfhp_state_table_destroy(&tb);
	check(ok && !miss && !mem.used && !mem.allocated,
	      "bound: follows max_states down and up, capped, no shrink, none lost (%u missed)",
	      miss);

	/* The account holds the states, not an array of n buckets. */
	mem.limit = (u64)n / 8 * kmalloc_size_roundup(sizeof(struct nfhp_state)) +
		    (u64)tun.max_parents *
		    kmalloc_size_roundup(sizeof(struct nfhp_state_parent)) +
		    (256 << 10);
	tun.max_states = n / 8;
	ok = !nfhp_state_table_init(&tb, &mem, &tun, HZ, NULL);
	miss = bound_fill(&tb, &rule, 0, n / 8);
	buckets = nfhp_state_buckets(&tb);
	ok &= buckets < roundup_pow_of_two(n / 8) && buckets > tun.buckets_init;
	nfhp_state_table_destroy(&tb);
	check(ok && !miss && !mem.used && !mem.allocated,
	      "bound: the account stops growth at %u buckets, none lost (%u missed)",
	      buckets, miss);
}

int main(int argc, char **argv)
{
	unsigned int steps = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x57a7e;
	run_examples();
	run_bulk(6000);
	run_bound(200000);
	run_random(steps);
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
