// SPDX-License-Identifier: GPL-2.0
/*
 * test_rule_place: where the committed keep-state rules stand
 * (rule_place.c), against a naive model of the chains.
 *
 *	test_rule_place [steps [seed]]
 *
 * Random rules, keep-state or not, are appended, inserted and deleted
 * in the built-in chains and two user chains, each change committed
 * alone or a few in a transaction that is committed or aborted.  Each
 * rule carries its number in its comment, which the test evaluator's
 * handle keeps, so the model knows every handle's rule whatever a
 * commit did with it.  After every change, and while a transaction is
 * open, the map of nfhp_rule_places() must hold exactly the keep-state
 * rules the model has committed, each at its chain and position, found
 * by what its states know it by; nfhp_rule_keep_ext() must give the
 * handle of a committed keep-state rule and refuse every other place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"
#include "rule_place.h"
#include "ruleset.h"
#include "state.h"

#include "tap.h"
#include "xorshift.h"

#define NCHAINS		5
#define NRULES_MAX	24

static const char * const chains[NCHAINS] = {
	"INPUT", "FORWARD", "OUTPUT", "U1", "U2",
};

/**
 * struct handle - the test evaluator's handle of a rule
 * @sr: what its states get; @sr.rule points here, as the kernel's
 *	handle points its states at its keep-state part
 * @id: the number of its rule, from the rule's comment
 */
struct handle {
	struct nfhp_state_rule sr;
	unsigned int id;
};

/**
 * struct model - the rules of the model, by chain
 * @id: the number of each rule, in order
 * @keep: which of them are keep-state rules
 * @n: rules of each chain
 */
struct model {
	unsigned int id[NCHAINS][NRULES_MAX];
	bool keep[NCHAINS][NRULES_MAX];
	unsigned int n[NCHAINS];
};

static struct nfhp_ruleset *rs;
static struct model committed, staged;
static unsigned int next_id = 1;

static int h_create(void *priv, const struct nfhp_rule_spec *spec,
		    unsigned int hooks, void **ext, bool *matches,
		    const char **msg)
{
	struct handle *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	h->sr.rule = &h->sr;
	h->sr.verdict = spec->action;
	h->id = strtoul(spec->comment, NULL, 10);
	*matches = spec->state.mode == NFHP_RSTATE_KEEP;
	*ext = h;
	return 0;
}

static void h_destroy(void *priv, void *ext)
{
	free(ext);
}

static enum nfhp_ext_result h_match(const void *ext, void *pkt)
{
	return NFHP_EXT_MATCH;
}

static u32 h_target(const void *ext, void *pkt)
{
	return NFHP_EXT_CONTINUE;
}

static u8 h_check_state(void *priv, void *pkt)
{
	return NFHP_ACT_NONE;
}

static const struct nfhp_ext_ops handle_ops = {
	.create = h_create,
	.destroy = h_destroy,
	.match = h_match,
	.target = h_target,
	.check_state = h_check_state,
};

/* What a handle's states know it by: its keep-state part. */
static const void *state_key(const void *ext)
{
	return &((const struct handle *)ext)->sr;
}

static struct handle *key_handle(const void *key)
{
	return (struct handle *)((const char *)key -
				 offsetof(struct handle, sr));
}

static struct nfhp_rule_spec *rule_spec(unsigned int id, bool keep)
{
	static struct nfhp_rule_spec s;

	memset(&s, 0, sizeof(s));
	s.action = keep || rnd() % 2 ? NFHP_ACT_ACCEPT : NFHP_ACT_NONE;
	s.state.mode = keep ? NFHP_RSTATE_KEEP :
		       rnd() % 4 ? NFHP_RSTATE_NONE : NFHP_RSTATE_CHECK;
	if (s.state.mode == NFHP_RSTATE_CHECK)
		s.action = NFHP_ACT_NONE;
	/* Some other rules have a handle too: an xtables match. */
	else if (!keep && rnd() % 2)
		s.ext_len = 1;
	snprintf(s.comment, sizeof(s.comment), "%u", id);
	return &s;
}

/* One random change of the staged rules, in the core and the model. */
static bool change(void)
{
	unsigned int c = rnd() % NCHAINS, n = staged.n[c], pos, i;
	const char *msg = NULL;
	bool keep = rnd() % 2;

	if (n && (n == NRULES_MAX || rnd() % 3 == 0)) {
		pos = 1 + rnd() % n;
		if (nfhp_rule_delete(rs, chains[c], pos, &msg))
			return false;
		for (i = pos - 1; i + 1 < n; i++) {
			staged.id[c][i] = staged.id[c][i + 1];
			staged.keep[c][i] = staged.keep[c][i + 1];
		}
		staged.n[c]--;
		return true;
	}
	pos = 1 + rnd() % (n + 1);
	if (nfhp_rule_insert(rs, chains[c], pos, rule_spec(next_id, keep),
			     NULL, &msg))
		return false;
	for (i = n; i >= pos; i--) {
		staged.id[c][i] = staged.id[c][i - 1];
		staged.keep[c][i] = staged.keep[c][i - 1];
	}
	staged.id[c][pos - 1] = next_id++;
	staged.keep[c][pos - 1] = keep;
	staged.n[c]++;
	return true;
}

static unsigned int chain_index(const char *name)
{
	unsigned int c;

	for (c = 0; c < NCHAINS; c++) {
		if (!strcmp(chains[c], name))
			return c;
	}
	return NCHAINS;
}

/* Does the map hold exactly the committed keep-state rules? */
static bool places_agree(void)
{
	static struct nfhp_rule_place places[NCHAINS * NRULES_MAX];
	const struct nfhp_rule_place *p;
	unsigned int n, want = 0, c, i;
	struct handle *h;

	n = nfhp_rule_places(rs, state_key, places, ARRAY_SIZE(places));
	for (c = 0; c < NCHAINS; c++) {
		for (i = 0; i < committed.n[c]; i++)
			want += committed.keep[c][i];
	}
	if (n != want)
		return false;
	for (i = 0; i < n; i++) {
		p = nfhp_rule_place_find(places, n, places[i].key);
		c = chain_index(places[i].chain);
		h = key_handle(places[i].key);
		if (p != &places[i] || c == NCHAINS || !places[i].pos ||
		    places[i].pos > committed.n[c] ||
		    !committed.keep[c][places[i].pos - 1] ||
		    committed.id[c][places[i].pos - 1] != h->id)
			return false;
	}
	/* A rule not committed is found nowhere. */
	return !nfhp_rule_place_find(places, n, &places);
}

/* Does nfhp_rule_keep_ext() answer for every place, and a few more? */
static bool keep_ext_agrees(void)
{
	unsigned int c, pos;
	void *ext;
	int err, want;

	for (c = 0; c < NCHAINS; c++) {
		for (pos = 0; pos <= committed.n[c] + 1; pos++) {
			ext = NULL;
			err = nfhp_rule_keep_ext(rs, chains[c], pos, &ext);
			if (!pos || pos > committed.n[c])
				want = -ENOENT;
			else
				want = committed.keep[c][pos - 1] ? 0 : -EINVAL;
			if (err != want || (!err &&
			    ((struct handle *)ext)->id != committed.id[c][pos - 1]))
				return false;
		}
	}
	return nfhp_rule_keep_ext(rs, "NOPE", 1, &ext) == -ENOENT;
}

static void run_random(unsigned int steps)
{
	unsigned int step, i, n, bad = 0, commits = 0, aborts = 0, open = 0;
	unsigned int most = 0;
	const char *msg = NULL;

	rs = nfhp_ruleset_new(NFHP_FAMILY_IPV4, ~0ull);
	nfhp_ruleset_set_ext(rs, &handle_ops, NULL);
	check(rs && !nfhp_chain_new(rs, "U1", &msg) &&
	      !nfhp_chain_new(rs, "U2", &msg), "a rule set and two user chains");
	check(places_agree() && keep_ext_agrees(), "no rule, no place");
	for (step = 0; step < steps; step++) {
		if (rnd() % 4) {
			bad += !change();
			committed = staged;
			commits++;
		} else {
			bad += nfhp_txn_begin(rs) != 0;
			n = 1 + rnd() % 4;
			for (i = 0; i < n; i++)
				bad += !change();
			/* Staged changes move no committed place. */
			bad += !places_agree() || !keep_ext_agrees();
			open++;
			if (rnd() % 3) {
				bad += nfhp_txn_commit(rs, &msg) != 0;
				committed = staged;
				commits++;
			} else {
				nfhp_txn_abort(rs);
				staged = committed;
				aborts++;
			}
		}
		bad += !places_agree() || !keep_ext_agrees();
		most = max(most, nfhp_rule_places(rs, NULL, NULL, 0));
		if (bad)
			break;
	}
	check(!bad, "random: %u steps, places as the model's (%u commits, %u aborts, %u checked open)",
	      step, commits, aborts, open);
	check(most > 10, "random: up to %u keep-state rules placed", most);
	nfhp_ruleset_free(rs);
}

int main(int argc, char **argv)
{
	unsigned int steps = argc > 1 ? strtoul(argv[1], NULL, 0) : 3000;

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x91ace;
	run_random(steps);
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
