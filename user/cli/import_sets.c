// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac import: the named sets the imported rules use.
 *
 * The translation (lib/nft_xlate.c) turns a lookup of an address in a
 * named nft set into a set match of the nf-hipac set of the same name,
 * and hands over the sets it referred to; lib/nft_sets.c says what each
 * becomes.  Here they go into the import's transaction, before the rules
 * of their view that refer to them: NFHP_CMD_SET_NEW with
 * NFHP_SET_F_EXIST, so that a set of that name, type and family is
 * replaced, then a flush, the nft set's limit and its keys.  A set of the
 * name with another type or family, or a locked one, is refused first,
 * by name, before anything of the view is sent.  With --print the sets
 * are written as nf-hipac-set restore lines, commented out, after the
 * rules.
 */
#include "subcommands.h"
#include "nft_sets.h"
#include "nft_xlate.h"
#include "nl_set.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SETS_PROG	"nf-hipac import"

/**
 * struct sets_need - the sets of a view, and what nf-hipac has of them
 * @info: each set as the import makes it
 * @have: a set of that name nf-hipac holds
 * @n: their number
 */
struct sets_need {
	struct nfhp_set_info *info;
	struct nfhp_set_info *have;
	unsigned int n;
};

/**
 * struct key_batch - keys on their way into a set
 * @nl: the connection
 * @info: the set
 * @e: the keys not yet sent
 * @n: their number
 */
struct key_batch {
	struct nfhp_nl *nl;
	const struct nfhp_set_info *info;
	struct nfhp_set_entry e[NFHP_NL_SET_BATCH];
	unsigned int n;
};

static int set_failed(struct nfhp_nl *nl, const char *name, int err)
{
	fprintf(stderr, "%s: nf-hipac set %s: %s; nothing changed\n",
		SETS_PROG, name, strerror(-err));
	if (nfhp_nl_ext_msg(nl)[0])
		fprintf(stderr, "%s: kernel: %s\n", SETS_PROG,
			nfhp_nl_ext_msg(nl));
	return NFHP_EXIT_OTHER;
}

/* The sets of the view as the import makes them, into @need. */
static int sets_read(const struct nfhp_xlate *x, u8 family,
		     struct sets_need *need)
{
	const struct nftnl_set *s;
	unsigned int n = 0;
	int ret;

	while (nfhp_xlate_named_set(x, n))
		n++;
	need->info = calloc(n + 1, sizeof(*need->info));
	need->have = calloc(n + 1, sizeof(*need->have));
	if (!need->info || !need->have) {
		fprintf(stderr, "%s: out of memory\n", SETS_PROG);
		return NFHP_EXIT_RESOURCE;
	}
	for (need->n = 0; (s = nfhp_xlate_named_set(x, need->n)); need->n++) {
		ret = nfhp_nft_set_info(s, family, &need->info[need->n]);
		if (ret) {
			fprintf(stderr, "%s: nft set %s: %s\n", SETS_PROG,
				need->info[need->n].name,
				ret == -EINVAL ? "an element it cannot read" :
				strerror(-ret));
			return ret == -ENOMEM ? NFHP_EXIT_RESOURCE :
						NFHP_EXIT_OTHER;
		}
	}
	return 0;
}

static int have_cb(void *data, const struct nfhp_set_info *info)
{
	struct sets_need *need = data;
	unsigned int i;

	for (i = 0; i < need->n; i++)
		if (!strcmp(need->info[i].name, info->name))
			need->have[i] = *info;
	return 0;
}

static const char *family_word(u8 family)
{
	return family == NFHP_FAMILY_IPV6 ? "inet6" : "inet";
}

/*
 * What nf-hipac holds of the names: a set of another type or family
 * cannot be replaced (SET_NEW would fail), nor a locked one filled.
 */
static int sets_check(struct nfhp_nl *nl, struct sets_need *need)
{
	static const struct nfhp_nl_set_ops ops = { .set = have_cb };
	const struct nfhp_set_info *want, *have;
	unsigned int i;
	int ret;

	if (!need->n)
		return 0;
	ret = nfhp_nl_set_list(nl, NULL, &ops, need);
	if (ret) {
		fprintf(stderr, "%s: cannot list the nf-hipac sets: %s\n",
			SETS_PROG, strerror(-ret));
		return NFHP_EXIT_OTHER;
	}
	for (i = 0; i < need->n; i++) {
		want = &need->info[i];
		have = &need->have[i];
		if (!have->type)
			continue;
		if (have->type != want->type || have->family != want->family ||
		    strcmp(have->algo, want->algo)) {
			fprintf(stderr,
				"%s: nf-hipac has a set %s of type %s family %s; nft set %s becomes one of type %s family %s.  Nothing changed; destroy or rename one of them.\n",
				SETS_PROG, want->name, nfhp_set_typename(have),
				family_word(have->family), want->name,
				nfhp_set_typename(want),
				family_word(want->family));
			return NFHP_EXIT_OTHER;
		}
		if (have->flags & NFHP_SET_F_LOCKED) {
			fprintf(stderr,
				"%s: nf-hipac set %s is locked, so the import cannot replace its entries.  Nothing changed; nf-hipac-set unlock %s first.\n",
				SETS_PROG, want->name, want->name);
			return NFHP_EXIT_OTHER;
		}
	}
	return 0;
}

static int batch_flush(struct key_batch *b)
{
	int ret = 0;

	if (b->n)
		ret = nfhp_nl_set_entries(b->nl, true, b->info, 0, b->e, b->n);
	b->n = 0;
	return ret;
}

static int batch_key(void *data, const struct nfhp_set_entry *e)
{
	struct key_batch *b = data;

	b->e[b->n++] = *e;
	return b->n == NFHP_NL_SET_BATCH ? batch_flush(b) : 0;
}

/* Set @i of @need, replaced by the nft set @s. */
static int set_send(struct nfhp_nl *nl, const struct nftnl_set *s,
		    const struct sets_need *need, unsigned int i)
{
	const struct nfhp_set_info *info = &need->info[i];
	struct key_batch *b;
	int ret;

	ret = nfhp_nl_set_new(nl, info, true);
	if (!ret)
		ret = nfhp_nl_set_flush(nl, info->name);
	if (!ret && need->have[i].type && need->have[i].limit != info->limit)
		ret = nfhp_nl_set_modify(nl, info->name, &info->limit, NULL);
	if (ret)
		return ret;
	b = malloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->nl = nl;
	b->info = info;
	b->n = 0;
	ret = nfhp_nft_set_keys(s, info, batch_key, b);
	if (!ret)
		ret = batch_flush(b);
	free(b);
	return ret;
}

/**
 * import_sets() - the named sets of a view into the open transaction
 * @nl: the connection of the transaction
 * @x: the translation, saved for the view
 * @family: the view's rule set, NFHP_FAMILY_IPV4 or NFHP_FAMILY_IPV6
 * @verbose: say what was sent
 *
 * Return: 0, or the exit code after saying why.
 */
int import_sets(struct nfhp_nl *nl, const struct nfhp_xlate *x, u8 family,
		bool verbose)
{
	struct sets_need need = { };
	unsigned int i;
	int ret;

	ret = sets_read(x, family, &need);
	if (!ret)
		ret = sets_check(nl, &need);
	for (i = 0; !ret && i < need.n; i++) {
		ret = set_send(nl, nfhp_xlate_named_set(x, i), &need, i);
		if (ret) {
			ret = set_failed(nl, need.info[i].name, ret);
			break;
		}
		if (verbose)
			fprintf(stderr, "%s: set %s (%s family %s) sent\n",
				SETS_PROG, need.info[i].name,
				nfhp_set_typename(&need.info[i]),
				family_word(family));
	}
	free(need.info);
	free(need.have);
	return ret;
}

/**
 * struct print_ctx - a set being printed
 * @f: where to
 * @info: the set
 */
struct print_ctx {
	FILE *f;
	const struct nfhp_set_info *info;
};

static int print_key(void *data, const struct nfhp_set_entry *e)
{
	struct print_ctx *p = data;

	fputs("# ", p->f);
	nfhp_set_print_add(p->f, p->info, e);
	return 0;
}

/**
 * import_sets_print() - the named sets of a view, for --print
 * @x: the translation, saved for the view
 * @family: the view's rule set, NFHP_FAMILY_IPV4 or NFHP_FAMILY_IPV6
 * @f: where to
 *
 * Each line as nf-hipac-set save writes it, after "# ", so that the text
 * stays what nf-hipac-restore takes.
 *
 * Return: 0, or the exit code after saying why.
 */
int import_sets_print(const struct nfhp_xlate *x, u8 family, FILE *f)
{
	struct sets_need need = { };
	struct print_ctx p = { .f = f };
	unsigned int i;
	int ret;

	ret = sets_read(x, family, &need);
	if (!ret && need.n)
		fputs("# The named sets, for nf-hipac-set restore without the \"# \":\n",
		      f);
	for (i = 0; !ret && i < need.n; i++) {
		p.info = &need.info[i];
		fputs("# ", f);
		nfhp_set_print_create(f, p.info);
		if (nfhp_nft_set_keys(nfhp_xlate_named_set(x, i), p.info,
				      print_key, &p)) {
			fprintf(stderr, "%s: out of memory\n", SETS_PROG);
			ret = NFHP_EXIT_RESOURCE;
		}
	}
	free(need.info);
	free(need.have);
	return ret;
}
