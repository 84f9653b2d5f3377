// SPDX-License-Identifier: GPL-2.0
/*
 * test_state_threads: the states' table with threads at once.
 *
 *	test_state_threads [flows-per-worker]
 *
 * Built with NFHP_SHIM_THREADS: the shim's spinlocks are mutexes, RCU
 * pointers are published with a release and read with an acquire, and
 * what is freed after a grace period waits until the end.  Two workers
 * make states on the "packet path" (keep-state) and look them up both
 * ways, while a third thread ticks: it expires states, grows the table
 * from 4 buckets a few buckets a tick (its old arrays freed after a
 * grace period the workers' quiescent counts prove), and flushes a
 * rule.  Each worker makes flows of its own, which must all be found at
 * every step, flows both make (each made once), and short-lived ICMP
 * flows of a rule the ticker flushes.  At the end the table holds
 * exactly the flows it should, and every byte is given back.
 *
 * make check runs it under ASan.  Under TSan (clean at this writing),
 * from user/:
 *
 *	gcc -Ishim -I../include/uapi -I../kernel -D_GNU_SOURCE \
 *	    -DNFHP_SHIM_THREADS -std=gnu11 -O1 -g -fsanitize=thread \
 *	    -pthread -o test_state_tsan ../kernel/state_*.c ../kernel/mem.c \
 *	    shim/shim.c shim/shim_threads.c tests/test_state_threads.c
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key.h"
#include "state.h"
#include "state_tuple.h"
#include "tap.h"

#define HZ		100
#define WORKERS		2
#define SHARED		2000

static struct nfhp_state_table tb;
static struct nfhp_mem mem = { .limit = ~0ull };
static struct nfhp_state_rule rule_keep = { .rule = &rule_keep,
					    .number = 1, .verdict = 1 };
static struct nfhp_state_rule rule_churn = { .rule = &rule_churn,
					     .number = 2, .verdict = 2 };
static unsigned long now_ticks;
static unsigned long quiescent[WORKERS];
static int done[WORKERS];
static unsigned int flows;

/**
 * struct worker - what one worker counted
 * @id: its index
 * @made_shared: shared flows it made (not found made)
 * @missed: own flows not found, or made twice
 * @churn: ICMP flows it tried
 */
struct worker {
	int id;
	unsigned int made_shared;
	unsigned int missed;
	unsigned int churn;
};

static int keep(const struct nfhp_state_tuple *t,
		const struct nfhp_state_rule *rule)
{
	unsigned long now = __atomic_load_n(&now_ticks, __ATOMIC_RELAXED);
	struct nfhp_state_pkt pkt;
	struct nfhp_state *s;

	nfhp_state_pkt_init(&pkt, t);
	pkt.len = 100;
	return nfhp_state_keep(&tb, &pkt, rule, now, &s);
}

static bool found(const struct nfhp_state_tuple *t, bool back)
{
	unsigned long now = __atomic_load_n(&now_ticks, __ATOMIC_RELAXED);
	struct nfhp_state_tuple sw = *t;
	struct nfhp_state_pkt pkt;

	if (back) {
		memcpy(sw.src, t->dst, sizeof(sw.src));
		memcpy(sw.dst, t->src, sizeof(sw.dst));
		sw.sport = t->dport;
		sw.dport = t->sport;
	}
	nfhp_state_pkt_init(&pkt, &sw);
	pkt.len = 100;
	return nfhp_state_check(&tb, &pkt, now);
}

static void own_flow(struct nfhp_state_tuple *t, int w, unsigned int i)
{
	v4_tuple(t, 17, 0x0a000000 | w << 16 | i >> 8, 1024 + (i & 0xff),
	      0xc0000201, 53);
}

static void *work(void *arg)
{
	struct worker *me = arg;
	struct nfhp_state_tuple t;
	u64 rng = 0x9e3779b9 + me->id;
	unsigned int i;
	int err;

	for (i = 0; i < flows; i++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		own_flow(&t, me->id, i);
		me->missed += keep(&t, &rule_keep) != 0;
		own_flow(&t, me->id, rng % (i + 1));
		me->missed += !found(&t, rng & 1);
		v4_tuple(&t, 17, 0x0b000000 + i % SHARED, 5000, 0xc0000201, 53);
		err = keep(&t, &rule_keep);
		me->made_shared += err == 0;
		me->missed += err && err != -EEXIST;
		v4_tuple(&t, 1, 0x0c000000 + rng % 4096, 7, 0xc0000201, 7);
		keep(&t, &rule_churn);
		me->churn++;
		/* A quiescent state: no state or array held past here. */
		__atomic_add_fetch(&quiescent[me->id], 1, __ATOMIC_SEQ_CST);
		/* Every 32 flows, a tick: the table grows while they come. */
		if (i % 32 == 0) {
			unsigned long t0 = __atomic_load_n(&now_ticks,
							   __ATOMIC_RELAXED);

			while (__atomic_load_n(&now_ticks, __ATOMIC_RELAXED) ==
			       t0) {
				__atomic_add_fetch(&quiescent[me->id], 1,
						   __ATOMIC_SEQ_CST);
				sched_yield();
			}
		}
	}
	__atomic_store_n(&done[me->id], 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Wait until every worker has passed a quiescent state: a grace period. */
static void grace_period(void)
{
	unsigned long seen[WORKERS];
	int w;

	for (w = 0; w < WORKERS; w++)
		seen[w] = __atomic_load_n(&quiescent[w], __ATOMIC_SEQ_CST);
	for (w = 0; w < WORKERS; w++) {
		while (__atomic_load_n(&quiescent[w], __ATOMIC_SEQ_CST) ==
		       seen[w] && !__atomic_load_n(&done[w], __ATOMIC_SEQ_CST))
			sched_yield();
	}
	synchronize_rcu();
}

static bool workers_done(void)
{
	int w;

	for (w = 0; w < WORKERS; w++) {
		if (!__atomic_load_n(&done[w], __ATOMIC_SEQ_CST))
			return false;
	}
	return true;
}

static void *tick(void *arg)
{
	unsigned int *grows = arg, n = 0;
	bool was;

	while (!workers_done()) {
		unsigned long now = __atomic_add_fetch(&now_ticks, 1,
						       __ATOMIC_RELAXED);

		was = nfhp_state_growing(&tb);
		nfhp_state_tick(&tb, now, 32);
		*grows += was && !nfhp_state_growing(&tb);
		if (++n % 64 == 0)
			nfhp_state_flush(&tb, &rule_churn);
		grace_period();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker wk[WORKERS] = {};
	struct nfhp_state_tunables tun;
	struct nfhp_state_tuple t;
	unsigned int grows = 0, shared = 0, missed = 0, left, i;
	pthread_t th[WORKERS + 1];
	int w;

	flows = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
	nfhp_state_tunables_default(&tun);
	tun.buckets_init = 4;
	tun.buckets_max = 65536;
	tun.max_states = WORKERS * flows + SHARED + 8192;
	tun.udp_lifetime = 1000000;
	tun.short_lifetime = 1;
	check(!nfhp_state_table_init(&tb, &mem, &tun, HZ, NULL), "threads: init");
	for (w = 0; w < WORKERS; w++) {
		wk[w].id = w;
		pthread_create(&th[w], NULL, work, &wk[w]);
	}
	pthread_create(&th[WORKERS], NULL, tick, &grows);
	for (w = 0; w <= WORKERS; w++)
		pthread_join(th[w], NULL);
	for (w = 0; w < WORKERS; w++) {
		shared += wk[w].made_shared;
		missed += wk[w].missed;
		for (i = 0; i < flows; i++) {
			own_flow(&t, w, i);
			missed += !found(&t, i & 1);
		}
	}
	check(!missed && shared == SHARED,
	      "threads: %u workers, %u flows each, %u shared made once; "
	      "%u growths to %u buckets, none lost (%u missed)",
	      WORKERS, flows, shared, grows, nfhp_state_buckets(&tb),
	      missed);
	nfhp_state_flush(&tb, &rule_churn);
	left = nfhp_state_flush(&tb, &rule_keep);
	check(left == WORKERS * flows + SHARED && !atomic_read(&tb.count),
	      "threads: the table held exactly the flows made (%u)", left);
	nfhp_state_table_destroy(&tb);
	nfhp_shim_rcu_drain();
	check(!mem.used && !mem.allocated, "threads: every byte given back");
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
