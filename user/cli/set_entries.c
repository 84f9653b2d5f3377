// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac-set: the commands on entries, add, del and test.
 *
 * Adds and deletes go to the kernel in batches, many entries per
 * NFHP_CMD_SET_ADD or _REMOVE, each answered with a result per entry:
 * the first entry that failed is reported as ipset reports it.  A restore
 * (set_restore.c) batches the adds of its lines the same way.
 */
#include "set.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ipset's words for an entry's failure, NULL for a success. */
static const char *result_msg(bool add, u32 flags, u8 result)
{
	switch (result) {
	case NFHP_SET_ADDED:
	case NFHP_SET_UPDATED:
	case NFHP_SET_DELETED:
		return NULL;
	case NFHP_SET_EXISTS:
		if (flags & NFHP_SET_F_EXIST)
			return NULL;
		return "Element cannot be added to the set: it's already added";
	case NFHP_SET_NOT_FOUND:
		if (flags & NFHP_SET_F_EXIST)
			return NULL;
		return "Element cannot be deleted from the set: it's not added";
	case NFHP_SET_LIMIT:
		return "Hash is full, cannot add more elements";
	case NFHP_SET_LOCKED:
		return add ? "Element cannot be added to the set: the set is locked" :
			     "Element cannot be deleted from the set: the set is locked";
	case NFHP_SET_NOMEM:
		return "Memory allocation problem";
	case NFHP_SET_OUT_OF_RANGE:
		return "Element is out of the range of the set";
	default:
		return "Element is not of the set's type or family";
	}
}

/**
 * set_batch_send() - send the entries queued
 * @c: the run
 * @b: the batch, empty after
 *
 * Return: 0, or ipset's exit code after its message for the first entry
 * that failed, named by its line in a restore.
 */
int set_batch_send(struct set_cli *c, struct set_batch *b)
{
	unsigned long line = c->line;
	struct nfhp_nl_failure f;
	unsigned int i, n = b->n;
	int ret;

	if (!n)
		return 0;
	b->n = 0;
	ret = nfhp_nl_set_entries(c->nl, b->add, &b->info, b->flags, b->e, n);
	nfhp_nl_get_failure(c->nl, &f);
	for (i = 0; i < n; i++) {
		const char *m = result_msg(b->add, b->flags, b->e[i].result);

		if (!m)
			continue;
		/* An entry without a result: the command failed as a whole. */
		if (ret && ret != -EPROTO && b->e[i].result == NFHP_SET_INVALID)
			break;
		c->line = b->line[i];
		set_error(c, "%s", m);
		c->line = line;
		return NFHP_SET_EXIT_ERR;
	}
	if (!ret)
		return 0;
	c->line = b->line[i < n ? i : 0];
	if (ret == -EPROTO)
		set_error(c, "Kernel error received: an answer nf-hipac-set cannot read");
	else
		set_failure(c, &f, b->add ? NFHP_CMD_SET_ADD :
					    NFHP_CMD_SET_REMOVE);
	c->line = line;
	return NFHP_SET_EXIT_ERR;
}

/**
 * struct queue_ctx - the keys of one element, queued
 * @c: the run
 * @b: the batch
 * @opts: the value and the counts they take
 * @ret: an exit code of a batch sent on the way
 */
struct queue_ctx {
	struct set_cli *c;
	struct set_batch *b;
	const struct nfhp_set_entry *opts;
	int ret;
};

/* Queue one key, sending the batch first when it is full. */
static int queue_one(struct queue_ctx *q, const struct nfhp_set_entry *e)
{
	struct set_batch *b = q->b;

	if (b->n == NFHP_NL_SET_BATCH) {
		q->ret = set_batch_send(q->c, b);
		if (q->ret)
			return 1;
	}
	b->e[b->n] = *e;
	b->e[b->n].value = q->opts->value;
	b->e[b->n].has_packets = q->opts->has_packets;
	b->e[b->n].packets = q->opts->packets;
	b->e[b->n].has_bytes = q->opts->has_bytes;
	b->e[b->n].bytes = q->opts->bytes;
	b->e[b->n].flags = q->opts->flags;
	b->line[b->n] = q->c->line;
	b->n++;
	return 0;
}

/*
 * The kernel's "bitmap" deletes a range all or none.  With -exist ipset
 * deletes the ports that are there: so does a range sent port by port.
 */
static bool queue_ports(const struct set_batch *b)
{
	return !b->add && b->flags & NFHP_SET_F_EXIST &&
	       !strcmp(b->info.algo, "bitmap");
}

static int queue_cb(void *data, const struct nfhp_set_entry *e)
{
	struct queue_ctx *q = data;
	struct nfhp_set_entry port = *e;
	u32 k;

	if (!queue_ports(q->b))
		return queue_one(q, e);
	for (k = e->addr; k <= e->hi; k++) {
		port.addr = k;
		port.hi = k;
		if (queue_one(q, &port))
			return 1;
		if (k == e->hi)		/* e->hi may be the last u32 */
			break;
	}
	return 0;
}

static int count_cb(void *data, const struct nfhp_set_entry *e)
{
	(*(unsigned int *)data)++;
	return 0;
}

/**
 * set_entry_check() - may an add's options go to a set?
 * @c: the run
 * @info: the set
 * @add: an add; the options of a del carry no counts
 * @opts: the value and counts the options gave
 *
 * Return: 0, or ipset's exit code after its message: counts only go to
 * a set that counts, "nomatch" only to one that takes it, and never to
 * a del, as ipset's del refuses it.
 */
int set_entry_check(struct set_cli *c, const struct nfhp_set_info *info,
		    bool add, const struct nfhp_set_entry *opts)
{
	char err[256];
	int ret;

	/* A del's or a test's options carry no counts. */
	ret = nfhp_set_check_entry_opts(info, opts, err, sizeof(err));
	if (ret == NFHP_SET_EXIT_PARAM)
		return set_param_error(c, "%s", err);
	if (ret)
		set_error(c, "%s", err);
	return ret;
}

/*
 * The words after NAME ELEMENT of add, del and test into @opts, and the
 * element itself, checked against set @info: 0, or an exit code after a
 * message.
 */
static int check_elem(struct set_cli *c, const struct nfhp_set_info *info,
		      bool add, int argc, char **argv,
		      struct nfhp_set_entry *opts, bool *exist)
{
	unsigned int n = 0;
	char err[256];
	int ret;

	memset(opts, 0, sizeof(*opts));
	ret = nfhp_set_parse_entry_opts(argc - 2, argv + 2, add, opts, exist,
					err, sizeof(err));
	if (ret == NFHP_SET_EXIT_PARAM)
		return set_param_error(c, "%s", err);
	if (ret) {
		set_error(c, "%s", err);
		return ret;
	}
	if (!info)
		return 0;
	ret = set_entry_check(c, info, add, opts);
	if (ret)
		return ret;
	if (nfhp_set_parse_elem(argv[1], info->family, info->type, info->algo,
				count_cb,
				&n, err, sizeof(err))) {
		set_error(c, "%s", err);
		return NFHP_SET_EXIT_ERR;
	}
	return 0;
}

static int arg_count(struct set_cli *c, int argc, const char *cmd)
{
	if (argc < 1)
		return set_param_error(c, "Missing mandatory argument to command %s",
				       cmd);
	if (argc < 2)
		return set_param_error(c, "Missing second mandatory argument to command %s",
				       cmd);
	return 0;
}

/**
 * set_entry_args() - the words of an add or a del
 * @c: the run
 * @info: the set, or NULL: neither the element nor the counts are
 *	checked against it
 * @add: an add, else a del
 * @argc: number of words
 * @argv: the words from the set's name on
 * @opts: set by "value N", "packets N" and "bytes N"
 * @exist: set by -exist
 *
 * Return: 0, or ipset's exit code after its message.
 */
int set_entry_args(struct set_cli *c, const struct nfhp_set_info *info,
		   bool add, int argc, char **argv,
		   struct nfhp_set_entry *opts, bool *exist)
{
	int ret = arg_count(c, argc, add ? "add" : "del") ?:
		  check_elem(c, info, add, argc, argv, opts, exist);

	if (!ret && !add && (opts->flags & NFHP_SETE_F_NOMATCH))
		return set_param_error(c, "Unknown argument: `nomatch'");
	return ret;
}

/**
 * set_entry_flags() - NFHPA_SET_FLAGS of an add or a del
 * @add: an add
 * @exist: -exist
 *
 * Return: the flags.
 */
u32 set_entry_flags(bool add, bool exist)
{
	u32 flags = exist ? NFHP_SET_F_EXIST : 0;

	/* -exist updates an entry, as it updates ipset's timeouts. */
	if (add && exist)
		flags |= NFHP_SET_F_UPDATE;
	return flags;
}

/**
 * set_batch_queue() - queue the keys of one element
 * @c: the run, whose line each key keeps
 * @b: the batch, of the element's set; full batches are sent on the way
 * @elem: the element
 * @opts: the value of its keys, and the counts they start at
 *
 * Return: 0, or ipset's exit code after its message.
 */
int set_batch_queue(struct set_cli *c, struct set_batch *b, const char *elem,
		    const struct nfhp_set_entry *opts)
{
	struct queue_ctx q = { .c = c, .b = b, .opts = opts };
	char err[256];
	int ret;

	ret = nfhp_set_parse_elem(elem, b->info.family, b->info.type,
				  b->info.algo,
				  queue_cb, &q, err, sizeof(err));
	if (q.ret)
		return q.ret;
	if (ret) {
		set_error(c, "%s", err);
		return NFHP_SET_EXIT_ERR;
	}
	return 0;
}

static int entries_main(struct set_cli *c, int argc, char **argv, bool add)
{
	struct nfhp_set_entry opts;
	bool exist = c->exist;
	struct set_batch *b;
	int ret;

	ret = set_entry_args(c, NULL, add, argc, argv, &opts, &exist);
	if (ret)
		return ret;
	b = calloc(1, sizeof(*b));
	if (!b) {
		set_error(c, "Memory allocation problem");
		return NFHP_SET_EXIT_ERR;
	}
	ret = set_lookup(c, argv[0], &b->info);
	if (ret)
		goto cleanup;
	b->add = add;
	b->flags = set_entry_flags(add, exist);
	/* Every key is checked before the first is sent. */
	ret = check_elem(c, &b->info, add, argc, argv, &opts, &exist) ?:
	      set_batch_queue(c, b, argv[1], &opts) ?: set_batch_send(c, b);
cleanup:
	free(b);
	return ret;
}

int set_add_main(struct set_cli *c, int argc, char **argv)
{
	return entries_main(c, argc, argv, true);
}

int set_del_main(struct set_cli *c, int argc, char **argv)
{
	return entries_main(c, argc, argv, false);
}

static int first_cb(void *data, const struct nfhp_set_entry *e)
{
	struct nfhp_set_entry *first = data;

	if (first->result)
		return 1;	/* a second key */
	*first = *e;
	first->result = 1;
	return 0;
}

int set_test_main(struct set_cli *c, int argc, char **argv)
{
	struct nfhp_set_entry e = {}, opts;
	struct nfhp_set_info info;
	bool found, exist = false;
	char err[256];
	int ret;

	ret = arg_count(c, argc, "test") ?:
	      check_elem(c, NULL, false, argc, argv, &opts, &exist) ?:
	      set_lookup(c, argv[0], &info) ?:
	      set_entry_check(c, &info, false, &opts);
	if (ret)
		return ret;
	ret = nfhp_set_parse_elem(argv[1], info.family, info.type, info.algo,
				  first_cb,
				  &e, err, sizeof(err));
	if (ret > 0) {
		set_error(c, "Syntax error: test takes one address, prefix or number range: %s",
			  argv[1]);
		return NFHP_SET_EXIT_ERR;
	}
	if (ret) {
		set_error(c, "%s", err);
		return NFHP_SET_EXIT_ERR;
	}
	/* ipset's test with nomatch: is the entry found a nomatch one? */
	e.flags = opts.flags;
	ret = nfhp_nl_set_test(c->nl, &info, &e, &found);
	if (ret == -EPROTO) {
		set_error(c, "Kernel error received: an answer nf-hipac-set cannot read");
		return NFHP_SET_EXIT_ERR;
	}
	if (ret)
		return set_kernel_error(c, info.name, NFHP_CMD_SET_TEST);
	if (!c->quiet)
		fprintf(stderr, found ? "Warning: %s is in set %s.\n" :
					"%s is NOT in set %s.\n",
			argv[1], info.name);
	return found ? NFHP_SET_EXIT_OK : NFHP_SET_EXIT_ERR;
}
