// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the entries of named sets, as they move between sets and go.
 *
 * A body (&struct nfhp_set_body) is one algorithm instance with its memory
 * account and its retired blocks.  A flush gives a set a new, empty body;
 * a swap exchanges two sets' bodies; a transaction writes to a copy.  A
 * body packets could read goes onto &nfhp_sets.dead when no set holds it
 * any more, and is freed by the first collection after a grace period:
 * no synchronize_rcu() under the namespace's mutex.
 *
 * This is part of the pure core: no netlink here.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "set.h"

/**
 * nfhp_set_body_ctx() - the context of a body's writers
 * @sets: the namespace's sets
 * @body: the body
 *
 * Return: the context, with @body's account and retired blocks.
 */
struct nfhp_set_ctx nfhp_set_body_ctx(const struct nfhp_sets *sets,
				      struct nfhp_set_body *body)
{
	return (struct nfhp_set_ctx){ .mem = &body->mem, .gc = &body->gc,
				      .lock = sets->lock };
}

/**
 * nfhp_set_body_new() - an empty body, which no packet reads yet
 * @sets: the namespace's sets
 * @algo: the algorithm
 * @family: the family of its keys
 * @hint: the entries it will likely hold
 * @counting: its entries count packets (set_counter.c)
 * @slotted: its entries have slots even if they do not count, to take
 *	nomatch entries (DOC: Counters)
 *
 * Return: the body, %NFHP_SET_BODY_STAGED, or NULL.
 */
struct nfhp_set_body *nfhp_set_body_new(const struct nfhp_sets *sets,
					const struct nfhp_set_algo *algo,
					u8 family, u32 hint, bool counting,
					bool slotted)
{
	struct nfhp_set_body *body = kzalloc(sizeof(*body), GFP_KERNEL);
	struct nfhp_set_ctx ctx;

	if (!body)
		return NULL;
	body->algo = algo;
	body->mem.limit = sets->mem_limit;
	ctx = nfhp_set_body_ctx(sets, body);
	body->inst = algo->create(&ctx, family, hint);
	if (!body->inst)
		goto err_free_body;
	body->counting = counting;
	body->slotted = counting || slotted;
	if (body->slotted && nfhp_set_counters_init(&ctx, &body->counters))
		goto err_destroy_inst;
	return body;

err_destroy_inst:
	algo->destroy(&ctx, body->inst);
	nfhp_set_gc_run(&ctx, true);
err_free_body:
	kfree(body);
	return NULL;
}

/* Entries a copy reads at a time: the walk runs under RCU, adds sleep. */
#define NFHP_SET_COPY_CHUNK 256

/**
 * struct nfhp_set_chunk - entries read from a body, to add to another
 * @key: their keys
 * @value: their values
 * @counts: their counts, of a counting body
 * @flags: their add flags: %NFHP_SET_ADD_NOMATCH for nomatch entries
 * @n: how many
 */
struct nfhp_set_chunk {
	struct nfhp_set_key key[NFHP_SET_COPY_CHUNK];
	u32 value[NFHP_SET_COPY_CHUNK];
	struct nfhp_set_counts counts[NFHP_SET_COPY_CHUNK];
	u32 flags[NFHP_SET_COPY_CHUNK];
	unsigned int n;
};

static int nfhp_set_chunk_take(void *arg, const struct nfhp_set_key *key,
			       u32 value, const struct nfhp_set_counts *counts,
			       u32 eflags)
{
	struct nfhp_set_chunk *c = arg;

	if (c->n == NFHP_SET_COPY_CHUNK)
		return -1;
	c->key[c->n] = *key;
	c->flags[c->n] = eflags & NFHP_SETE_F_NOMATCH ? NFHP_SET_ADD_NOMATCH :
							0;
	c->counts[c->n] = counts ? *counts : (struct nfhp_set_counts){ 0 };
	c->value[c->n++] = value;
	return 0;
}

/* Add the entries of @c to @body; 0 or -errno. */
static int nfhp_set_chunk_add(const struct nfhp_sets *sets,
			      struct nfhp_set_body *body,
			      const struct nfhp_set_chunk *c)
{
	struct nfhp_set_ctx ctx = nfhp_set_body_ctx(sets, body);
	unsigned int i;
	int ret;

	for (i = 0; i < c->n; i++) {
		ret = nfhp_set_body_add(&ctx, body, &c->key[i], c->value[i],
					&c->counts[i], c->flags[i]);
		if (ret < 0)
			return ret;
	}
	nfhp_set_gc_run(&ctx, false);
	return 0;
}

/**
 * nfhp_set_body_copy() - a new body with the entries of another
 * @sets: the namespace's sets
 * @from: the body to copy, which only the caller's writers change
 * @family: the family of its keys
 * @slotted: the copy has slots even if @from has none
 *
 * What a transaction writes to, so that packets keep reading @from until
 * the commit; what a body becomes when it takes its first nomatch entry.
 * It costs an add per entry.  The counts are those of the moment of the
 * copy.
 *
 * Return: the copy, %NFHP_SET_BODY_STAGED, or NULL when out of memory.
 */
struct nfhp_set_body *nfhp_set_body_copy(const struct nfhp_sets *sets,
					 const struct nfhp_set_body *from,
					 u8 family, bool slotted)
{
	struct nfhp_set_body *body;
	struct nfhp_set_chunk *c;
	u64 cursor = 0;
	int more;
	u32 n;

	rcu_read_lock();
	n = from->algo->count(from->inst);
	rcu_read_unlock();
	body = nfhp_set_body_new(sets, from->algo, family, n, from->counting,
				 from->slotted || slotted);
	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!body || !c)
		goto err_free;
	do {
		c->n = 0;
		rcu_read_lock();
		more = nfhp_set_body_walk(from, &cursor, nfhp_set_chunk_take,
					  c);
		rcu_read_unlock();
		if (nfhp_set_chunk_add(sets, body, c))
			goto err_free;
	} while (more);
	kfree(c);
	return body;

err_free:
	kfree(c);
	if (body)
		nfhp_set_body_free(sets, body);
	return NULL;
}

/**
 * nfhp_set_body_free() - free a body no packet can read
 * @sets: the namespace's sets
 * @body: the body
 */
void nfhp_set_body_free(const struct nfhp_sets *sets,
			struct nfhp_set_body *body)
{
	struct nfhp_set_ctx ctx = nfhp_set_body_ctx(sets, body);

	body->algo->destroy(&ctx, body->inst);
	if (body->slotted)
		nfhp_set_counters_destroy(&ctx, &body->counters);
	nfhp_set_gc_run(&ctx, true);
	WARN_ON_ONCE(body->mem.used);
	kfree(body);
}

/**
 * nfhp_set_body_retire() - free a body when no set holds it any more
 * @sets: the namespace's sets
 * @body: a body its set just let go, or NULL
 *
 * A body only the open transaction saw is freed now; one packets read
 * until now (%NFHP_SET_BODY_LEAVING) after a grace period.  A body that
 * is live, or retired already, stays as it is.
 */
void nfhp_set_body_retire(struct nfhp_sets *sets, struct nfhp_set_body *body)
{
	if (!body)
		return;
	switch (body->state) {
	case NFHP_SET_BODY_STAGED:
		nfhp_set_body_free(sets, body);
		return;
	case NFHP_SET_BODY_LEAVING:
		break;
	default:
		return;
	}
	body->state = NFHP_SET_BODY_DEAD;
	body->next = NULL;
	body->cookie = get_state_synchronize_rcu();
	if (sets->dead_tail)
		sets->dead_tail->next = body;
	else
		sets->dead = body;
	sets->dead_tail = body;
}

/**
 * nfhp_set_bodies_collect() - free the retired bodies no packet can read
 * @sets: the namespace's sets
 * @wait: wait for the grace periods and free them all
 *
 * Return: true when some are left, for a later call.
 */
bool nfhp_set_bodies_collect(struct nfhp_sets *sets, bool wait)
{
	struct nfhp_set_body *body;

	while ((body = sets->dead)) {
		if (wait)
			cond_synchronize_rcu(body->cookie);
		else if (!poll_state_synchronize_rcu(body->cookie))
			break;
		sets->dead = body->next;
		nfhp_set_body_free(sets, body);
	}
	if (!sets->dead)
		sets->dead_tail = NULL;
	return sets->dead;
}
