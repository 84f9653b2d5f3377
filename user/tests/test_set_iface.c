// SPDX-License-Identifier: GPL-2.0
/*
 * test_set_iface: the interface sets' algorithms against a list of names.
 *
 *	test_set_iface [steps [seed]]
 *
 * A pool of names and wildcards that nest ("e+", "eth+", "eth1+", "eth10",
 * "eth10+"), of every length from 1 to 15, is added to and deleted from
 * each algorithm at random, with injected allocation failures.  Lookups
 * of device names, finds, walks and counts are checked against a plain
 * list of strings, matched the way iptables matches -i: a name itself,
 * else the longest wildcard whose text starts the name.  The list knows
 * nothing of the 128-bit keys, so the keys are checked too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "set_algo.h"
#include "set_iface.h"
#include "tap.h"
#include "set_phase.h"
#include "xorshift.h"

#define POOL	700

static const char *const stems[] = {
	"e", "eth", "eth1", "eth10", "eth100", "ppp", "br-lan", "wlan0",
	"veth", "x", "abcdefghijklmn", "abcdefghijklmno",
};

/**
 * struct iface_entry - a name of the pool, as text
 * @name: the name, without its "+"
 * @wild: it is a wildcard: every name that starts with @name
 */
struct iface_entry {
	char name[NFHP_IFNAME_LEN];
	bool wild;
};

/**
 * struct iface_run - one algorithm's run
 * @algo: the algorithm
 * @ctx: the writer's context
 * @mem: its account
 * @gc: its retire list
 * @set: the set
 * @in: whether each pool entry is in the set
 * @value: the value of each that is
 * @n: how many are
 * @bad: disagreements
 */
struct iface_run {
	const struct nfhp_set_algo *algo;
	struct nfhp_set_ctx ctx;
	struct nfhp_mem mem;
	struct nfhp_set_gc gc;
	void *set;
	bool in[POOL];
	u32 value[POOL];
	unsigned int n;
	unsigned int bad;
};

static struct iface_entry pool[POOL];

/* A stem, cut or grown by a few digits, 1 to @max characters. */
static void make_name(char *s, unsigned int max)
{
	unsigned int len;

	snprintf(s, NFHP_IFNAME_LEN, "%s", stems[rnd() % ARRAY_SIZE(stems)]);
	len = strlen(s);
	if (rnd() % 3 == 0 && len > 1)
		len -= 1 + rnd() % (len - 1);
	while (rnd() % 2 && len < max)
		s[len++] = '0' + rnd() % 3;
	if (len > max)
		len = max;
	s[len] = '\0';
}

/* The pool, its first entries the boundaries: "+", 1 and 15 bytes. */
static void make_pool(void)
{
	unsigned int i;

	for (i = 0; i < POOL; i++) {
		pool[i].wild = rnd() % 2;
		make_name(pool[i].name, pool[i].wild ? NFHP_IFACE_MAXLEN - 1 :
						       NFHP_IFACE_MAXLEN);
	}
	pool[0] = (struct iface_entry){ "", true };
	pool[1] = (struct iface_entry){ "e", false };
	pool[2] = (struct iface_entry){ "abcdefghijklmno", false };
	pool[3] = (struct iface_entry){ "abcdefghijklmn", true };
}

/* The key of a pool entry, through the text iptables would write. */
static struct nfhp_set_key entry_key(const struct iface_entry *e)
{
	struct nfhp_set_key k = {};
	char text[NFHP_IFNAME_LEN + 1];

	snprintf(text, sizeof(text), "%s%s", e->name, e->wild ? "+" : "");
	if (!nfhp_iface_key_parse(text, &k.addr, &k.plen))
		k.plen = 7;	/* no key: every operation must refuse it */
	return k;
}

static bool same_entry(const struct iface_entry *a,
		       const struct iface_entry *b)
{
	return a->wild == b->wild && !strcmp(a->name, b->name);
}

static int pool_index(const struct iface_run *r, const struct iface_entry *e)
{
	unsigned int i;

	for (i = 0; i < POOL; i++)
		if (r->in[i] && same_entry(&pool[i], e))
			return i;
	return -1;
}

/*
 * How well entry @i matches device @dev: 0 not at all, a wildcard the
 * length of its text plus one, the name itself more than any wildcard.
 */
static unsigned int ref_score(unsigned int i, const char *dev)
{
	size_t len = strlen(pool[i].name);

	if (!pool[i].wild)
		return strcmp(dev, pool[i].name) ? 0 : NFHP_IFNAME_LEN + 1;
	return strncmp(dev, pool[i].name, len) ? 0 : len + 1;
}

/* iptables' rule: the name itself, else the longest wildcard of it. */
static bool ref_lookup(const struct iface_run *r, const char *dev, u32 *value)
{
	unsigned int i, score, best_score = 0;
	int best = -1;

	for (i = 0; i < POOL; i++) {
		score = r->in[i] ? ref_score(i, dev) : 0;
		if (score > best_score) {
			best_score = score;
			best = i;
		}
	}
	if (best >= 0)
		*value = r->value[best];
	return best >= 0;
}

/* The pool's names repeat: act on the first copy in the set. */
static void step_add(void *run, unsigned int i)
{
	struct iface_run *r = run;
	struct nfhp_set_key k = entry_key(&pool[i]);
	bool update = rnd() % 2;
	u32 value = (u32)rnd();
	int j = pool_index(r, &pool[i]), got;

	set_fail_maybe();
	got = r->algo->add(&r->ctx, r->set, &k, value, update);
	nfhp_shim_fail_countdown = 0;
	if (got != -ENOMEM)
		r->bad += !set_list_add(r->in, r->value, &r->n, j, i, value,
					update, got);
}

static void step_del(void *run, unsigned int i)
{
	struct iface_run *r = run;
	struct nfhp_set_key k = entry_key(&pool[i]);
	int j = pool_index(r, &pool[i]), got;

	set_fail_maybe();
	got = r->algo->del(&r->ctx, r->set, &k);
	nfhp_shim_fail_countdown = 0;
	if (got != -ENOMEM)
		r->bad += !set_list_del(r->in, &r->n, j, got);
}

/* A device name near the pool's: one itself, grown, cut, or random. */
static void probe_name(char *dev)
{
	const struct iface_entry *e = &pool[rnd() % POOL];
	size_t len;

	snprintf(dev, NFHP_IFNAME_LEN, "%s", e->name);
	len = strlen(dev);
	switch (rnd() % 4) {
	case 0:
		while (rnd() % 2 && len < NFHP_IFACE_MAXLEN)
			dev[len++] = '0' + rnd() % 3;
		break;
	case 1:
		if (len > 1)
			len -= 1 + rnd() % (len - 1);
		break;
	case 2:
		make_name(dev, NFHP_IFACE_MAXLEN);
		len = strlen(dev);
		break;
	}
	if (!len)
		dev[len++] = 'e';
	dev[len] = '\0';
}

static void step_lookup(void *run)
{
	struct iface_run *r = run;
	struct nfhp_set_key k;
	char dev[NFHP_IFNAME_LEN];
	u32 want = 0, got = 0;
	bool in_ref, in_set;

	probe_name(dev);
	/* As the module reads a device: all 16 bytes, NUL-padded. */
	k = (struct nfhp_set_key){ .addr = nfhp_ifname_value(dev, 0),
				   .plen = 128 };
	in_ref = ref_lookup(r, dev, &want);
	in_set = r->algo->lookup(r->set, &k, &got);
	r->bad += in_ref != in_set || (in_ref && want != got);
}

static void step_find(void *run, unsigned int i)
{
	struct iface_run *r = run;
	struct nfhp_set_key k = entry_key(&pool[i]);
	int j = pool_index(r, &pool[i]);
	u32 got = 0;
	bool in;

	in = r->algo->find(r->set, &k, &got);
	r->bad += in != (j >= 0) || (j >= 0 && got != r->value[j]);
}

static unsigned int walked;

/* Each entry walked is in the list, with its value, as text again. */
static int walk_one(void *arg, const struct nfhp_set_key *key, u32 value)
{
	struct iface_run *r = arg;
	struct iface_entry e = { .wild = key->plen < 128 };
	char text[NFHP_IFNAME_LEN + 1];
	int j;

	nfhp_iface_key_str(key->addr, key->plen, text);
	snprintf(e.name, sizeof(e.name), "%.*s",
		 (int)strlen(text) - e.wild, text);
	j = pool_index(r, &e);
	r->bad += j < 0 || r->value[j] != value ||
		  !nfhp_iface_key_ok(key->addr, key->plen);
	walked++;
	return rnd() % 64 == 0;
}

static bool walk_agrees(void *run)
{
	struct iface_run *r = run;
	u64 cursor = 0;

	walked = 0;
	while (r->algo->walk(r->set, &cursor, walk_one, r))
		;
	return walked == r->n && r->algo->count(r->set) == r->n;
}

static const struct set_phase_ops steps_ops = {
	.add = step_add, .del = step_del, .find = step_find,
	.lookup = step_lookup, .walk_agrees = walk_agrees,
};

/* @steps random steps, adds weighted by @add_pct against deletes. */
static void phase(struct iface_run *r, unsigned int steps,
		  unsigned int add_pct)
{
	set_phase(&steps_ops, r, &r->ctx, &r->bad, POOL, steps, add_pct);
}

/* Keys that are no names: each operation refuses them, nothing changes. */
static void check_refused(struct iface_run *r)
{
	static const struct nfhp_set_key bad[] = {
		{ .addr = 0, .plen = 128 },			/* "" */
		{ .addr = (nfhp_u128)'e' << 120, .plen = 12 },	/* not bytes */
		{ .addr = (nfhp_u128)'e' << 120 | 'x', .plen = 128 },
		{ .addr = (nfhp_u128)'e' << 120, .plen = 16 },	/* "e\0+" */
		{ .addr = ~(nfhp_u128)0, .plen = 128 },		/* 16 bytes */
		{ .addr = ~(nfhp_u128)0 << 8, .plen = 120 },	/* "+" 16th */
	};
	unsigned int i, n = r->n, refused = 0;
	u32 v;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		refused += r->algo->add(&r->ctx, r->set, &bad[i], 1, true) ==
			   -EINVAL &&
			   r->algo->del(&r->ctx, r->set, &bad[i]) == -EINVAL &&
			   !r->algo->find(r->set, &bad[i], &v);
	check(refused == ARRAY_SIZE(bad) && r->algo->count(r->set) == n,
	      "%s: keys that are no names refused, the set unchanged",
	      r->algo->name);
}

static void run_algo(const struct nfhp_set_algo *algo, unsigned int steps)
{
	static struct iface_run r;
	unsigned int most;

	memset(&r, 0, sizeof(r));
	r.algo = algo;
	r.mem.limit = ~0ull;
	r.ctx = (struct nfhp_set_ctx){ .mem = &r.mem, .gc = &r.gc };
	r.set = algo->create(&r.ctx, NFHP_FAMILY_IPV4, 0);
	check(r.set, "%s: create", algo->name);
	if (!r.set)
		return;
	phase(&r, steps, 90);
	most = r.n;
	check_refused(&r);
	phase(&r, 2 * steps, 0);
	check(!r.bad, "%s: grew to %u names, shrank to %u: all agree",
	      algo->name, most, r.n);
	phase(&r, steps, 70);
	check(!r.bad && walk_agrees(&r), "%s: grew again to %u: all agree",
	      algo->name, r.n);
	algo->destroy(&r.ctx, r.set);
	nfhp_set_gc_run(&r.ctx, true);
	check(!r.mem.used && !r.gc.bytes, "%s: every byte given back",
	      algo->name);
}

/* The text of names: the boundaries iptables draws. */
static void test_parse(void)
{
	nfhp_u128 v;
	char text[NFHP_IFNAME_LEN + 1];
	u8 plen;

	check(!nfhp_iface_key_parse("", &v, &plen) &&
	      !nfhp_iface_key_parse("abcdefghijklmnop", &v, &plen) &&
	      !nfhp_iface_key_parse("abcdefghijklmno+", &v, &plen),
	      "parse: no name, 16 bytes refused");
	check(nfhp_iface_key_parse("abcdefghijklmno", &v, &plen) &&
	      plen == 128 && v == nfhp_ifname_value("abcdefghijklmno", 0),
	      "parse: 15 bytes are a name");
	check(nfhp_iface_key_parse("eth+", &v, &plen) && plen == 24 &&
	      v == nfhp_ifname_value("eth", 0),
	      "parse: eth+ is the 24-bit prefix of eth");
	check(nfhp_iface_key_parse("+", &v, &plen) && plen == 0 && !v,
	      "parse: + is every name");
	nfhp_iface_key_parse("eth1+", &v, &plen);
	nfhp_iface_key_str(v, plen, text);
	check(!strcmp(text, "eth1+"), "str: eth1+ back as eth1+ (%s)", text);
}

int main(int argc, char **argv)
{
	unsigned int steps = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x1f5;
	test_parse();
	make_pool();
	run_algo(&nfhp_set_iface_hash, steps);
	run_algo(&nfhp_set_iface_lpm, steps);
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
