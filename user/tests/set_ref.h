/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The naive reference of the set tests (test_set.c, test_set_flow.c): a
 * list of (key, value), the walk that must list it, and the add and
 * delete steps that keep it beside an algorithm's instance.  The includer
 * defines REF_MAX, the most entries, and includes xorshift.h first.
 */
#ifndef _NFHP_SET_REF_H
#define _NFHP_SET_REF_H

#include "set_algo.h"

/**
 * struct ref_entry - one key of the reference
 * @key: the key
 * @value: its value
 */
struct ref_entry {
	struct nfhp_set_key key;
	u32 value;
};

/**
 * struct ref_set - the naive reference: a list
 * @e: the entries, in no order
 * @n: how many
 */
struct ref_set {
	struct ref_entry e[REF_MAX];
	unsigned int n;
};

/* Keys of every type: address, prefix length, protocol and port. */
static bool key_eq(const struct nfhp_set_key *a, const struct nfhp_set_key *b)
{
	return a->addr == b->addr && a->plen == b->plen &&
	       a->proto == b->proto && a->port == b->port;
}

static int ref_index(const struct ref_set *r, const struct nfhp_set_key *k)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (key_eq(&r->e[i].key, k))
			return i;
	return -1;
}

/**
 * struct walk_check - what a walk of the set must list
 * @ref: the reference
 * @seen: which of its entries the walk listed
 * @bad: entries listed that are not in it, or listed twice, or with
 *	another value
 */
struct walk_check {
	const struct ref_set *ref;
	bool seen[REF_MAX];
	unsigned int bad;
};

static int walk_one(void *arg, const struct nfhp_set_key *key, u32 value)
{
	struct walk_check *w = arg;
	int i = ref_index(w->ref, key);

	/* Now and then refuse the entry: the next call must offer it again. */
	if (rnd() % 6 == 0)
		return -1;
	if (i < 0 || w->seen[i] || w->ref->e[i].value != value)
		w->bad++;
	else
		w->seen[i] = true;
	/* Stop now and then: the cursor must take the walk on. */
	return rnd() % 4 == 0;
}

static bool walk_agrees(const struct nfhp_set_algo *algo, const void *set,
			const struct ref_set *ref)
{
	struct walk_check w = { .ref = ref };
	u64 cursor = 0;
	unsigned int i;

	while (algo->walk(set, &cursor, walk_one, &w))
		;
	for (i = 0; i < ref->n; i++)
		if (!w.seen[i])
			w.bad++;
	return !w.bad && algo->count(set) == ref->n;
}

/*
 * Add @k to the set and the reference, with or without update, now and
 * then out of memory (which must change nothing).  Return: 1 when the
 * set's answer is not the reference's, else 0.
 */
static unsigned int ref_step_add(const struct nfhp_set_algo *algo,
				 struct nfhp_set_ctx *ctx, void *set,
				 struct ref_set *ref,
				 const struct nfhp_set_key *k)
{
	bool update = rnd() % 2;
	u32 value = (u32)rnd();
	int i = ref_index(ref, k), want, got;

	nfhp_shim_fail_countdown = rnd() % 8 == 0 ? 1 + rnd() % 2 : 0;
	got = algo->add(ctx, set, k, value, update);
	nfhp_shim_fail_countdown = 0;
	if (got == -ENOMEM)
		return 0;
	if (i >= 0) {
		want = update ? NFHP_SET_UPDATED : NFHP_SET_EXISTS;
		if (update)
			ref->e[i].value = value;
	} else {
		want = NFHP_SET_ADDED;
		ref->e[ref->n++] = (struct ref_entry){ *k, value };
	}
	return got != want;
}

/* Delete @k from the set and the reference; 1 when they disagree. */
static unsigned int ref_step_del(const struct nfhp_set_algo *algo,
				 struct nfhp_set_ctx *ctx, void *set,
				 struct ref_set *ref,
				 const struct nfhp_set_key *k)
{
	int i = ref_index(ref, k), got;

	got = algo->del(ctx, set, k);
	if (i < 0)
		return got != NFHP_SET_NOT_FOUND;
	ref->e[i] = ref->e[--ref->n];
	return got != NFHP_SET_DELETED;
}

#endif /* _NFHP_SET_REF_H */
