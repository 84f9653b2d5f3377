// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac-sim: the classifier core offline.
 *
 *   nf-hipac-sim [--check] [--bench] [--stats] [--shadow] [--opaque-xt] [-6]
 *		 [--sets FILE] [--passes N] [--updates N] RULESET [PACKETS]
 *
 * RULESET is in iptables-save format (filter table).  It is loaded into
 * the core and into the naive reference (sim/ref.c).  Each packet line of
 * PACKETS (or stdin) is classified and printed as "VERDICT CHAIN N", or
 * "VERDICT CHAIN policy".  --check compares every verdict with the
 * reference; --bench measures build time, memory, lookups and single-rule
 * updates (1000, or --updates N); --stats prints the tree statistics, --shadow the rules that can
 * never match.  --opaque-xt runs the matches and targets the tree does not
 * know (-m recent, -j LOG, ...) as opaque tests of a model (opaque.h)
 * instead of refusing them.  --sets FILE loads named sets written as
 * nf-hipac-set save (or ipset save) writes them, for the set matches of
 * the rules (-m set --match-set NAME src|dst, sets.h); RULESET may hold
 * them too, before its table, as nf-hipac-save writes them.  keep-state
 * and CHECK-STATE rules keep dynamic states (states.h) in the core's
 * table, on the packets' clock (time=); a packet a state decides prints
 * as "VERDICT HOOK state".
 */
#include "pkt.h"
#include "opaque.h"
#include "sets.h"
#include "states.h"
#include "parse.h"
#include "print.h"
#include "ref.h"
#include "stats.h"
#include "shim.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const hook_names[NFHP_HOOK_MAX] = {
	"INPUT", "FORWARD", "OUTPUT",
};

/**
 * struct sim - everything the simulator holds
 * @rs: the core's rule set
 * @ref: the reference
 * @build_ns: time spent in the core while loading
 * @build_allocs: blocks the core allocated while loading
 * @update_allocs: blocks the core allocated per single-rule update
 * @updates: single-rule updates --bench times (--updates)
 * @lines: the save-file line of every rule, for the update benchmark
 * @chains: the chain of each entry of @lines
 * @nlines: entries in @lines
 * @cap: allocated entries
 * @sets: named sets are on (sets_on())
 * @tables: the rule set's table began
 * @states: the core's dynamic states
 * @ref_states: the reference's
 */
struct sim {
	u8 family;
	struct nfhp_ruleset *rs;
	struct nfhp_ref *ref;
	u64 build_ns;
	unsigned long build_allocs;
	double update_allocs;
	unsigned long updates;
	char **lines;
	char **chains;
	size_t nlines, cap;
	bool sets;
	bool tables;
	struct nfhp_sim_states states;
	struct nfhp_sim_states ref_states;
};

/*
 * Timings are the thread's CPU time: on a shared machine wall-clock time
 * would measure the other processes too.  The program is single-threaded,
 * so this is the single-thread cost.
 */
static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int core_err(const char *what, int ret, const char *msg)
{
	fprintf(stderr, "nf-hipac-sim: %s: %s (%s)\n", what,
		msg ? msg : "failed", strerror(-ret));
	return NFHP_EXIT_OTHER;
}

static int ref_err(const char *what, int ret)
{
	fprintf(stderr, "nf-hipac-sim: reference: %s: %s\n", what,
		strerror(-ret));
	return NFHP_EXIT_OTHER;
}

static int on_chain(void *ctx, const char *name, u8 policy,
		    const struct nfhp_counter *c)
{
	struct sim *s = ctx;
	const char *msg = NULL;
	u64 t0 = now_ns();
	int ret;

	if (policy == NFHP_ACT_NONE)
		ret = nfhp_chain_new(s->rs, name, &msg);
	else
		ret = nfhp_chain_policy(s->rs, name, policy, c, &msg);
	s->build_ns += now_ns() - t0;
	if (ret)
		return core_err(name, ret, msg);
	ret = policy == NFHP_ACT_NONE ? nfhp_ref_chain_new(s->ref, name) :
	      nfhp_ref_policy(s->ref, name, policy);
	return ret ? ref_err(name, ret) : 0;
}

/*
 * Keep each appended rule as its save line (a spec is ~7 KiB, the line
 * ~100 bytes), to insert copies of it in the update benchmark.
 */
static int remember(struct sim *s, const char *chain,
		    const struct nfhp_rule_spec *spec)
{
	char **nl, **nc, *text = NULL;
	size_t len = 0;
	FILE *m;

	if (s->nlines == s->cap) {
		s->cap = s->cap * 2 + 1024;
		nl = realloc(s->lines, s->cap * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		s->lines = nl;
		nc = realloc(s->chains, s->cap * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		s->chains = nc;
	}
	m = open_memstream(&text, &len);
	if (!m)
		return -ENOMEM;
	nfhp_print_rule_save(m, chain, spec, NULL);
	fclose(m);
	s->lines[s->nlines] = text;
	s->chains[s->nlines] = strdup(chain);
	if (!text || !s->chains[s->nlines]) {
		free(text);
		free(s->chains[s->nlines]);
		return -ENOMEM;
	}
	s->nlines++;
	return 0;
}

static int on_cmd(void *ctx, struct nfhp_cmdline *cl)
{
	struct sim *s = ctx;
	const char *msg = NULL;
	const struct nfhp_counter *cnt = cl->has_counters ? &cl->counters :
					 NULL;
	unsigned int n;
	u64 t0 = now_ns();
	int ret, rret;

	switch (cl->cmd) {
	case NFHP_CLI_APPEND:
		ret = nfhp_rule_append(s->rs, cl->chain, &cl->spec, cnt, &msg);
		s->build_ns += now_ns() - t0;
		t0 = now_ns();
		n = nfhp_ref_nrules(s->ref, cl->chain);
		rret = nfhp_ref_insert(s->ref, cl->chain, n + 1, &cl->spec);
		if (!ret && !rret)
			rret = remember(s, cl->chain, &cl->spec);
		t0 = now_ns();
		break;
	case NFHP_CLI_INSERT:
		n = cl->pos ? cl->pos : 1;
		ret = nfhp_rule_insert(s->rs, cl->chain, n, &cl->spec, cnt,
				       &msg);
		rret = nfhp_ref_insert(s->ref, cl->chain, n, &cl->spec);
		break;
	case NFHP_CLI_REPLACE:
		ret = nfhp_rule_replace(s->rs, cl->chain, cl->pos, &cl->spec,
					&msg);
		rret = nfhp_ref_replace(s->ref, cl->chain, cl->pos, &cl->spec);
		break;
	case NFHP_CLI_DELETE:
		if (!cl->pos) {
			fprintf(stderr,
				"nf-hipac-sim: -D by rule spec is not supported, use a number\n");
			return NFHP_EXIT_PARAM;
		}
		ret = nfhp_rule_delete(s->rs, cl->chain, cl->pos, &msg);
		rret = nfhp_ref_delete(s->ref, cl->chain, cl->pos);
		break;
	case NFHP_CLI_NEW_CHAIN:
		ret = nfhp_chain_new(s->rs, cl->chain, &msg);
		rret = nfhp_ref_chain_new(s->ref, cl->chain);
		break;
	case NFHP_CLI_POLICY:
		ret = nfhp_chain_policy(s->rs, cl->chain, cl->policy, cnt, &msg);
		rret = nfhp_ref_policy(s->ref, cl->chain, cl->policy);
		break;
	case NFHP_CLI_FLUSH:
		if (!cl->chain[0]) {
			fprintf(stderr,
				"nf-hipac-sim: -F without a chain is not supported\n");
			return NFHP_EXIT_PARAM;
		}
		ret = nfhp_chain_flush(s->rs, cl->chain, &msg);
		rret = nfhp_ref_flush(s->ref, cl->chain);
		break;
	default:
		fprintf(stderr,
			"nf-hipac-sim: command -%c is not supported in a rule set file\n",
			"?AIDRCFZLSNXEPhV"[cl->cmd]);
		return NFHP_EXIT_PARAM;
	}
	s->build_ns += now_ns() - t0;
	if (ret)
		return core_err(cl->chain, ret, msg);
	return rret ? ref_err(cl->chain, rret) : 0;
}

/* Set matches run from now on, the opaque extensions of @inner with them. */
static void sets_on(struct sim *s, const struct nfhp_ext_ops *inner)
{
	void *family = (void *)(uintptr_t)s->family;

	nfhp_sim_sets_init(inner);
	nfhp_sim_states_set_inner(&s->states, &nfhp_sim_ext_ops, family);
	nfhp_sim_states_set_inner(&s->ref_states, &nfhp_sim_ext_ops, family);
	s->sets = true;
}

/*
 * The states of the core and of the reference, each its own table, as
 * the evaluators of both: the sets and the opaque extensions go through
 * them (sets_on()).
 */
static int states_on(struct sim *s)
{
	struct nfhp_sim_states *st[] = { &s->states, &s->ref_states };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(st); i++) {
		st[i]->flow = nfhp_sim_pkt_flow;
		if (nfhp_sim_states_init(st[i], s->family, NFHP_SIM_HZ, NULL))
			return -ENOMEM;
	}
	nfhp_ruleset_set_ext(s->rs, &s->states.ops, &s->states);
	nfhp_ref_set_ext(s->ref, &s->ref_states.ops, &s->ref_states);
	return 0;
}

/* The sets of a save, before its table, as nf-hipac-save prints them. */
static int on_outside(void *ctx, char *line)
{
	struct sim *s = ctx;
	char err[256];
	int ret;

	if (!s->sets && s->tables) {
		fprintf(stderr,
			"nf-hipac-sim: set lines after the table: give the sets first, or with --sets\n");
		return NFHP_EXIT_OTHER;
	}
	if (!s->sets)
		sets_on(s, NULL);
	ret = nfhp_sim_sets_line(line, false, err, sizeof(err));
	if (ret == 1)
		return -1;	/* the parser's "no table specified" */
	if (ret)
		fprintf(stderr, "nf-hipac-sim: %s\n", err);
	return ret ? NFHP_EXIT_OTHER : 0;
}

static int on_table(void *ctx, const char *name)
{
	struct sim *s = ctx;
	u64 t0 = now_ns();
	int ret = nfhp_txn_begin(s->rs);

	s->tables = true;
	s->build_ns += now_ns() - t0;
	return ret ? core_err("transaction", ret, NULL) : 0;
}

static int on_commit(void *ctx)
{
	struct sim *s = ctx;
	const char *msg = NULL;
	u64 t0 = now_ns();
	int ret = nfhp_txn_commit(s->rs, &msg);

	s->build_ns += now_ns() - t0;
	return ret ? core_err("commit", ret, msg) : 0;
}

static int load_ruleset(struct sim *s, FILE *f, char *err, size_t errlen)
{
	static const struct nfhp_restore_ops ops = {
		.table = on_table,
		.chain = on_chain,
		.cmd = on_cmd,
		.commit = on_commit,
		.outside = on_outside,
	};

	return nfhp_parse_save_stream(f, s->family, &ops, s, err, errlen);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 rnd_state = 0x9E3779B97F4A7C15ull;

static u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* The word of a verdict; an extension target's says NF_ACCEPT or not. */
static const char *action_name(u8 action, u32 xt_verdict)
{
	if (action == NFHP_ACT_XT)
		return xt_verdict == 1 ? "ACCEPT" : "DROP";
	return action == NFHP_ACT_ACCEPT ? "ACCEPT" :
	       action == NFHP_ACT_QUEUE ? "QUEUE" : "DROP";
}

/* @state: a dynamic state decided the packet, at its hook's check point. */
static void print_verdict(FILE *f, struct nfhp_ruleset *rs,
			  const struct nfhp_verdict *v, enum nfhp_hook hook,
			  bool state)
{
	const char *act = action_name(v->action, v->xt_verdict);

	if (!v->rule) {
		fprintf(f, "%s %s %s\n", act, hook_names[hook],
			state ? "state" : v->hotdrop ? "hotdrop" : "policy");
		return;
	}
	fprintf(f, "%s %s %u\n", act,
		nfhp_chain_name(nfhp_rule_chain(rs, v->rule)),
		nfhp_rule_position(rs, v->rule));
}

static bool same_verdict(struct nfhp_ruleset *rs,
			 const struct nfhp_verdict *v, bool state,
			 const struct nfhp_ref_verdict *r, enum nfhp_hook hook)
{
	if (v->action != r->action || v->hotdrop != r->hotdrop ||
	    state != r->state)
		return false;
	if (v->action == NFHP_ACT_XT && v->xt_verdict != r->xt_verdict)
		return false;
	if (!v->rule)
		return r->pos == 0 && !strcmp(r->chain, hook_names[hook]);
	return r->pos == nfhp_rule_position(rs, v->rule) &&
	       !strcmp(r->chain, nfhp_chain_name(nfhp_rule_chain(rs, v->rule)));
}

/*
 * A packet without time= comes at the time of the one before; none may
 * come before it.  False for one that does.
 */
static bool packet_time(struct nfhp_sim_pkt *p,
			const struct nfhp_sim_pkt *before)
{
	if (!before)
		return true;
	if (!p->timed)
		p->time = before->time;
	return p->time >= before->time;
}

static int read_packets(FILE *f, struct nfhp_sim_pkt **out, size_t *n)
{
	struct nfhp_sim_pkt *pk = NULL, *np;
	size_t cap = 0, cnt = 0, len = 0;
	unsigned int lineno = 0;
	char *line = NULL, err[256];
	int ret;

	while (getline(&line, &len, f) >= 0) {
		lineno++;
		if (cnt == cap) {
			cap = cap * 2 + 4096;
			np = realloc(pk, cap * sizeof(*pk));
			if (!np) {
				free(pk);
				free(line);
				return NFHP_EXIT_RESOURCE;
			}
			pk = np;
		}
		ret = nfhp_sim_parse_packet(line, &pk[cnt], err, sizeof(err));
		if (!ret && !packet_time(&pk[cnt], cnt ? &pk[cnt - 1] : NULL)) {
			snprintf(err, sizeof(err),
				 "time= goes back: packets come in time order");
			ret = -1;
		}
		if (ret < 0) {
			fprintf(stderr, "nf-hipac-sim: packets line %u: %s\n",
				lineno, err);
			free(pk);
			free(line);
			return NFHP_EXIT_PARAM;
		}
		if (!ret)
			cnt++;
	}
	free(line);
	*out = pk;
	*n = cnt;
	return 0;
}

static volatile unsigned long sink;

/*
 * Lookups are timed in rounds, the tree's and the reference's taking
 * turns, and each figure is the median of its rounds: this machine's
 * speed drifts by tens of per cent within minutes, and a single long run
 * of each would compare two different machines.
 */
#define BENCH_ROUNDS	7
#define BENCH_ROUND_NS	150000000ull

/*
 * Classify the packets once, in order; the verdicts are summed so that
 * the compiler keeps the lookups.
 */
static unsigned long classify_pass(struct sim *s,
				   const struct nfhp_sim_pkt *pk, size_t n)
{
	struct nfhp_verdict v;
	unsigned long acc = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		nfhp_classify(s->rs, pk[i].hook, &pk[i].key, pk[i].len,
			      (void *)&pk[i], &v);
		acc += v.action + (unsigned long)v.rule;
	}
	return acc;
}

/* Nanoseconds per lookup of one round of trace passes through the tree. */
static double bench_tree(struct sim *s, const struct nfhp_sim_pkt *pk,
			 size_t n)
{
	u64 t0 = now_ns(), t, lookups = 0;
	unsigned long acc = 0;

	do {
		acc += classify_pass(s, pk, n);
		lookups += n;
		t = now_ns() - t0;
	} while (t < BENCH_ROUND_NS);
	sink = acc;
	return (double)t / lookups;
}

/*
 * The same through the linear reference, which may not finish one pass
 * in a round; each round goes on where the last one stopped.
 */
static double bench_ref(struct sim *s, const struct nfhp_sim_pkt *pk,
			size_t n, size_t *next)
{
	struct nfhp_ref_verdict v;
	u64 t0 = now_ns(), t, lookups = 0;
	unsigned long acc = 0;
	size_t i = *next;

	do {
		nfhp_ref_classify(s->ref, pk[i].hook, &pk[i].key, (void *)&pk[i],
				  &v);
		acc += v.action + v.pos;
		i = i + 1 < n ? i + 1 : 0;
		t = ++lookups & 63 ? 0 : now_ns() - t0;
	} while (t < BENCH_ROUND_NS);
	*next = i;
	sink = acc;
	return (double)t / lookups;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The medians of BENCH_ROUNDS interleaved rounds of each. */
static void bench_lookups(struct sim *s, const struct nfhp_sim_pkt *pk,
			  size_t n, double *tree_ns, double *ref_ns)
{
	double tree[BENCH_ROUNDS], ref[BENCH_ROUNDS];
	size_t next = 0;
	int r;

	for (r = 0; r < BENCH_ROUNDS; r++) {
		tree[r] = bench_tree(s, pk, n);
		ref[r] = bench_ref(s, pk, n, &next);
	}
	qsort(tree, BENCH_ROUNDS, sizeof(*tree), cmp_double);
	qsort(ref, BENCH_ROUNDS, sizeof(*ref), cmp_double);
	*tree_ns = tree[BENCH_ROUNDS / 2];
	*ref_ns = ref[BENCH_ROUNDS / 2];
}

/* Single-rule updates --bench times, unless --updates says otherwise. */
#define BENCH_UPDATES 1000

static int bench_updates(struct sim *s, double *ins50, double *ins99,
			 double *del50, double *del99)
{
	u64 *ins = calloc(s->updates, sizeof(u64));
	u64 *del = calloc(s->updates, sizeof(u64));
	struct nfhp_cmdline *cl = malloc(sizeof(*cl));
	const struct nfhp_chain *c;
	char *argv[256], buf[4096], err[256];
	const char *msg = NULL;
	unsigned int i, pos, n;
	unsigned long allocs = 0, a0;
	int argc, ret = 0;
	u64 t0;

	if (!ins || !del || !cl) {
		ret = NFHP_EXIT_RESOURCE;
		goto out;
	}
	for (i = 0; i < s->updates; i++) {
		size_t k = rnd() % s->nlines;

		snprintf(buf, sizeof(buf), "%s", s->lines[k]);
		/* The name says the family (nfhp_parse_cmdline()). */
		argv[0] = s->family == NFHP_FAMILY_IPV6 ? "ip6tables" :
							  "nf-hipac-sim";
		argc = nfhp_split_line(buf, argv + 1, 254);
		if (argc >= 0)
			argv[argc + 1] = NULL;
		if (argc < 0 || nfhp_parse_cmdline(argc + 1, argv, cl, err,
						   sizeof(err))) {
			fprintf(stderr, "nf-hipac-sim: reparse: %s\n", err);
			ret = NFHP_EXIT_OTHER;
			goto out;
		}
		c = nfhp_chain_find(s->rs, s->chains[k]);
		n = c ? nfhp_chain_rules(c) : 0;
		pos = 1 + rnd() % (n + 1);
		a0 = nfhp_shim_allocs;
		t0 = now_ns();
		ret = nfhp_rule_insert(s->rs, s->chains[k], pos, &cl->spec,
				       NULL, &msg);
		ins[i] = now_ns() - t0;
		if (ret) {
			ret = core_err("insert", ret, msg);
			goto out;
		}
		t0 = now_ns();
		ret = nfhp_rule_delete(s->rs, s->chains[k], pos, &msg);
		del[i] = now_ns() - t0;
		allocs += nfhp_shim_allocs - a0;
		if (ret) {
			ret = core_err("delete", ret, msg);
			goto out;
		}
	}
	s->update_allocs = allocs / (2.0 * s->updates);
	qsort(ins, s->updates, sizeof(u64), cmp_u64);
	qsort(del, s->updates, sizeof(u64), cmp_u64);
	*ins50 = ins[s->updates / 2] / 1000.0;
	*ins99 = ins[s->updates * 99 / 100] / 1000.0;
	*del50 = del[s->updates / 2] / 1000.0;
	*del99 = del[s->updates * 99 / 100] / 1000.0;
out:
	free(ins);
	free(del);
	free(cl);
	return ret;
}

/*
 * What lookups read, apart from the rules themselves: the trees, the
 * entries and the counters (per CPU; the simulator has one).  The rest of
 * "memory used" is the rule set as written, which listings and updates
 * read.
 */
static int lookup_mem(struct sim *s, u64 *trees, u64 *entries)
{
	struct nfhp_tree_stats st;
	int h, ret;

	*trees = 0;
	*entries = 0;
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		ret = nfhp_tree_get_stats(s->rs, h, &st);
		if (ret)
			return core_err("stats", ret, NULL);
		*trees += st.mem;
		*entries += st.entry_mem;
	}
	return 0;
}

static int print_lookup_mem(struct sim *s)
{
	u64 trees, entries, counters = nfhp_ruleset_counter_mem(s->rs);
	int ret = lookup_mem(s, &trees, &entries);

	if (ret)
		return ret;
	printf("lookup memory %llu: trees %llu, entries %llu, counters %llu\n",
	       (unsigned long long)(trees + entries + counters),
	       (unsigned long long)trees, (unsigned long long)entries,
	       (unsigned long long)counters);
	return 0;
}

static int do_bench(struct sim *s, const struct nfhp_sim_pkt *pk, size_t n)
{
	double tree_ns = 0, ref_ns = 0, i50 = 0, i99 = 0, d50 = 0, d99 = 0;
	unsigned int rules = nfhp_ruleset_nrules(s->rs);
	u64 mem = nfhp_ruleset_mem_allocated(s->rs);
	u64 trees, entries, counters = nfhp_ruleset_counter_mem(s->rs);
	int ret;

	ret = lookup_mem(s, &trees, &entries);
	if (ret)
		return ret;
	if (n)
		bench_lookups(s, pk, n, &tree_ns, &ref_ns);
	if (s->nlines && s->updates) {
		ret = bench_updates(s, &i50, &i99, &d50, &d99);
		if (ret)
			return ret;
	}
	printf("(times are thread CPU time)\n");
	printf("rules:            %u\n", rules);
	printf("build:            %.1f ms\n", s->build_ns / 1e6);
	printf("memory:           %.2f MiB\n", mem / 1048576.0);
	printf("lookup memory:    %.2f MiB (trees %.2f, entries %.2f, counters %.2f)\n",
	       (trees + entries + counters) / 1048576.0, trees / 1048576.0,
	       entries / 1048576.0, counters / 1048576.0);
	printf("allocations:      %lu while loading (%.1f per rule)\n",
	       s->build_allocs, rules ? (double)s->build_allocs / rules : 0);
	printf("packets:          %zu\n", n);
	printf("tree lookup:      %.1f ns (%.2f M lookups/s)\n", tree_ns,
	       tree_ns ? 1e3 / tree_ns : 0);
	printf("linear lookup:    %.1f ns (%.3f M lookups/s)\n", ref_ns,
	       ref_ns ? 1e3 / ref_ns : 0);
	printf("speedup:          %.1fx\n", tree_ns ? ref_ns / tree_ns : 0);
	printf("insert p50/p99:   %.1f / %.1f us\n", i50, i99);
	printf("delete p50/p99:   %.1f / %.1f us\n", d50, d99);
	printf("allocations:      %.1f per single-rule update\n",
	       s->update_allocs);
	printf("rules=%u\n", rules);
	printf("build_ms=%.3f\n", s->build_ns / 1e6);
	printf("memory_bytes=%llu\n", (unsigned long long)mem);
	printf("lookup_memory_bytes=%llu\n",
	       (unsigned long long)(trees + entries + counters));
	printf("build_allocs=%lu\n", s->build_allocs);
	printf("update_allocs=%.1f\n", s->update_allocs);
	printf("lookup_ns=%.2f\n", tree_ns);
	printf("linear_lookup_ns=%.2f\n", ref_ns);
	printf("insert_us_p50=%.2f\n", i50);
	printf("insert_us_p99=%.2f\n", i99);
	printf("delete_us_p50=%.2f\n", d50);
	printf("delete_us_p99=%.2f\n", d99);
	return 0;
}

static void print_hist(const char *name, const unsigned int *h)
{
	int i, last = -1;

	for (i = 0; i < NFHP_HIST_BUCKETS; i++)
		if (h[i])
			last = i;
	printf("  %s:", name);
	for (i = 0; i <= last; i++)
		printf(" [%u]=%u", 1u << i, h[i]);
	printf("\n");
}

static int do_stats(struct sim *s)
{
	static const char *const dims[NFHP_DIM_MAX] = {
		"src", "dst", "proto", "sport", "dport", "state", "frag",
		"tcpflags", "icmp", "ttl", "len", "mark", "iif", "oif",
	};
	struct nfhp_tree_stats st;
	int h, d, ret;

	printf("memory used %llu, allocated %llu, limit %llu\n",
	       (unsigned long long)nfhp_ruleset_mem_used(s->rs),
	       (unsigned long long)nfhp_ruleset_mem_allocated(s->rs),
	       (unsigned long long)nfhp_ruleset_mem_limit(s->rs));
	ret = print_lookup_mem(s);
	if (ret)
		return ret;
	for (h = 0; h < NFHP_HOOK_MAX; h++) {
		ret = nfhp_tree_get_stats(s->rs, h, &st);
		if (ret)
			return core_err("stats", ret, NULL);
		printf("%s: rules %u, mem %llu, entry mem %llu, nodes %u, leaves %u (lists %u), depth %u, shared %u\n",
		       hook_names[h], st.rules, (unsigned long long)st.mem,
		       (unsigned long long)st.entry_mem,
		       st.nodes, st.leaves, st.lists, st.depth, st.shared);
		printf("  tested leaves %u (entries %u, largest %u)\n",
		       st.tested, st.tested_entries, st.tested_max);
		printf("  nodes per dim:");
		for (d = 0; d < NFHP_DIM_MAX; d++)
			if (st.nodes_per_dim[d])
				printf(" %s=%u", dims[d], st.nodes_per_dim[d]);
		printf("\n");
		print_hist("node sizes", st.node_size_hist);
		print_hist("leaf sizes", st.leaf_size_hist);
		printf("  depths:");
		for (d = 0; d < NFHP_HIST_BUCKETS; d++)
			if (st.depth_hist[d])
				printf(" %d:%u", d, st.depth_hist[d]);
		printf("\n");
	}
	return 0;
}

struct shadow_ctx {
	struct sim *s;
	struct nfhp_rule_spec *spec;
	unsigned int n;
};

static void shadow_cb(void *ctx, const struct nfhp_rule *rule)
{
	struct shadow_ctx *sc = ctx;
	const char *chain = nfhp_chain_name(nfhp_rule_chain(sc->s->rs, rule));

	sc->n++;
	printf("shadowed: %s %u: ", chain, nfhp_rule_position(sc->s->rs, rule));
	if (nfhp_rule_get_spec(rule, sc->spec))
		printf("?\n");
	else
		nfhp_print_rule_save(stdout, chain, sc->spec, NULL);
}

static int do_shadow(struct sim *s)
{
	struct shadow_ctx sc = { .s = s };
	int ret;

	sc.spec = malloc(sizeof(*sc.spec));
	if (!sc.spec)
		return NFHP_EXIT_RESOURCE;
	ret = nfhp_shadowed_rules(s->rs, shadow_cb, &sc);
	free(sc.spec);
	if (ret)
		return core_err("shadow analysis", ret, NULL);
	printf("%u shadowed rules\n", sc.n);
	return 0;
}

/*
 * Classify the packets @passes times over and print nothing: the lookups
 * alone, for a profiler (bench/lookup-counts.sh subtracts a run of 0
 * passes from one of 2 under cachegrind).
 */
static void do_passes(struct sim *s, const struct nfhp_sim_pkt *pk, size_t n,
		      unsigned long passes)
{
	unsigned long acc = 0, p;

	for (p = 0; p < passes; p++)
		acc += classify_pass(s, pk, n);
	sink = acc;
}

/* A mismatch of the tree and the reference, the first 20 of them. */
static void report_mismatch(struct sim *s, size_t i, enum nfhp_hook hook,
			    const struct nfhp_verdict *v, bool state,
			    const struct nfhp_ref_verdict *rv)
{
	fprintf(stderr, "MISMATCH packet %zu: tree ", i + 1);
	print_verdict(stderr, s->rs, v, hook, state);
	fprintf(stderr, "  reference %s %s ",
		action_name(rv->action, rv->xt_verdict), rv->chain);
	if (rv->pos)
		fprintf(stderr, "%u\n", rv->pos);
	else
		fprintf(stderr, "%s%s\n",
			rv->state ? "state" : rv->hotdrop ? "hotdrop" : "policy",
			rv->loop ? " (loop)" : "");
}

/*
 * Classify the packets in order and print their verdicts; with @check,
 * compare each with the reference's.  The states' clock moves to each
 * packet's time first.  Return the mismatches.
 */
static unsigned long classify_all(struct sim *s, const struct nfhp_sim_pkt *pk,
				  size_t n, bool check)
{
	unsigned long mismatches = 0;
	struct nfhp_ref_verdict rv;
	struct nfhp_verdict v;
	size_t i;

	for (i = 0; i < n; i++) {
		nfhp_sim_states_advance(&s->states, pk[i].time);
		s->states.decided = false;
		nfhp_classify(s->rs, pk[i].hook, &pk[i].key, pk[i].len,
			      (void *)&pk[i], &v);
		print_verdict(stdout, s->rs, &v, pk[i].hook, s->states.decided);
		if (!check)
			continue;
		nfhp_sim_states_advance(&s->ref_states, pk[i].time);
		nfhp_ref_classify(s->ref, pk[i].hook, &pk[i].key,
				  (void *)&pk[i], &rv);
		if (same_verdict(s->rs, &v, s->states.decided, &rv,
				 pk[i].hook))
			continue;
		if (mismatches++ < 20)
			report_mismatch(s, i, pk[i].hook, &v,
					s->states.decided, &rv);
	}
	return mismatches;
}

/* Load the sets of @path; an exit code. */
static int load_sets(const char *path)
{
	FILE *f = fopen(path, "r");
	char err[512];
	int ret;

	if (!f) {
		perror(path);
		return NFHP_EXIT_OTHER;
	}
	ret = nfhp_sim_sets_load(f, err, sizeof(err));
	fclose(f);
	if (!ret)
		return 0;
	fprintf(stderr, "nf-hipac-sim: %s: %s\n", path, err);
	return NFHP_EXIT_OTHER;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nf-hipac-sim [--check] [--bench] [--stats] [--shadow] [--opaque-xt] [-6] [--sets FILE] [--passes N] [--updates N] RULESET [PACKETS]\n");
}

int main(int argc, char **argv)
{
	bool bench = false, stats = false, shadow = false, check = false;
	bool opaque = false;
	const char *rfile = NULL, *pfile = NULL, *sfile = NULL;
	long passes = -1;
	char *end;
	struct nfhp_sim_pkt *pk = NULL;
	struct sim s = { .updates = BENCH_UPDATES, .family = NFHP_FAMILY_IPV4 };
	unsigned long mismatches;
	char err[512];
	size_t n = 0, i;
	FILE *f;
	int ret, a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--bench"))
			bench = true;
		else if (!strcmp(argv[a], "--stats"))
			stats = true;
		else if (!strcmp(argv[a], "--shadow"))
			shadow = true;
		else if (!strcmp(argv[a], "--check"))
			check = true;
		else if (!strcmp(argv[a], "-6") || !strcmp(argv[a], "--ipv6"))
			s.family = NFHP_FAMILY_IPV6;
		else if (!strcmp(argv[a], "--opaque-xt"))
			opaque = true;
		else if (!strcmp(argv[a], "--sets") && a + 1 < argc)
			sfile = argv[++a];
		else if (!strcmp(argv[a], "--updates") && a + 1 < argc) {
			s.updates = strtoul(argv[++a], &end, 10);
			if (*end) {
				usage();
				return NFHP_EXIT_PARAM;
			}
		}
		else if (!strcmp(argv[a], "--passes") && a + 1 < argc) {
			passes = strtol(argv[++a], &end, 10);
			if (*end || passes < 0) {
				usage();
				return NFHP_EXIT_PARAM;
			}
		} else if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			usage();
			return 0;
		} else if (argv[a][0] == '-' && argv[a][1]) {
			usage();
			return NFHP_EXIT_PARAM;
		} else if (!rfile) {
			rfile = argv[a];
		} else if (!pfile) {
			pfile = argv[a];
		} else {
			usage();
			return NFHP_EXIT_PARAM;
		}
	}
	if (!rfile) {
		usage();
		return NFHP_EXIT_PARAM;
	}
	s.rs = nfhp_ruleset_new(s.family, ~0ULL);
	s.ref = nfhp_ref_new(s.family);
	nfhp_print_set_family(s.family);
	if (!s.rs || !s.ref || states_on(&s)) {
		fprintf(stderr, "nf-hipac-sim: out of memory\n");
		return NFHP_EXIT_RESOURCE;
	}
	if (opaque)
		nfhp_sim_opaque_plug(s.rs);
	if (opaque || sfile)
		sets_on(&s, opaque ? &nfhp_sim_opaque_ops : NULL);
	if (sfile) {
		ret = load_sets(sfile);
		if (ret)
			goto out;
	}
	f = fopen(rfile, "r");
	if (!f) {
		perror(rfile);
		ret = NFHP_EXIT_OTHER;
		goto out;
	}
	s.build_allocs = nfhp_shim_allocs;
	ret = load_ruleset(&s, f, err, sizeof(err));
	s.build_allocs = nfhp_shim_allocs - s.build_allocs;
	fclose(f);
	if (ret) {
		if (err[0])
			fprintf(stderr, "nf-hipac-sim: %s: %s\n", rfile, err);
		goto out;
	}
	if (nfhp_txn_active(s.rs)) {
		fprintf(stderr, "nf-hipac-sim: %s: COMMIT missing\n", rfile);
		ret = NFHP_EXIT_OTHER;
		goto out;
	}
	if (stats) {
		ret = do_stats(&s);
		if (ret)
			goto out;
	}
	if (shadow) {
		ret = do_shadow(&s);
		if (ret)
			goto out;
	}
	if ((stats || shadow) && !pfile && !bench && !check)
		goto out;
	f = pfile ? fopen(pfile, "r") : stdin;
	if (!f) {
		perror(pfile);
		ret = NFHP_EXIT_OTHER;
		goto out;
	}
	ret = read_packets(f, &pk, &n);
	if (pfile)
		fclose(f);
	if (ret)
		goto out;
	if (passes >= 0) {
		do_passes(&s, pk, n, passes);
		goto out;
	}
	if (bench) {
		ret = do_bench(&s, pk, n);
		goto out;
	}
	mismatches = classify_all(&s, pk, n, check);
	if (check) {
		fprintf(stderr, "nf-hipac-sim: %zu packets checked, %lu mismatches\n",
			n, mismatches);
		if (mismatches)
			ret = 1;
	}
out:
	free(pk);
	for (i = 0; i < s.nlines; i++) {
		free(s.lines[i]);
		free(s.chains[i]);
	}
	free(s.lines);
	free(s.chains);
	nfhp_sim_opaque_plug(NULL);
	nfhp_ref_free(s.ref);
	nfhp_ruleset_free(s.rs);
	/* The rules referred to the sets and the states: they go first. */
	if (s.sets)
		nfhp_sim_sets_free();
	nfhp_sim_states_destroy(&s.states);
	nfhp_sim_states_destroy(&s.ref_states);
	return ret;
}
