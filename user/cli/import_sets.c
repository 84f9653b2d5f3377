// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac import: the named sets the imported rules use.
 *
 * The translation (lib/nft_xlate.c) turns a lookup of an address in a
 * named nft set into a set match of the nf-hipac set of the same name,
 * and hands over the sets it referred to; lib/nft_sets.c says what each
 * becomes.  Here they become the lines of nf-hipac-set save (create, add)
 * that go into the view's text before its table, as nf-hipac-save prints
 * them: nf-hipac-restore sends them in the transaction of the rules, and
 * a create of a set that is there replaces its entries (with --chain,
 * whose restore is --noflush, a flush line after the create does).
 * Before, a set of the name with another type or family, or a locked
 * one, is refused by name: the restore would fail on the one and unlock
 * the other.
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

/**
 * import_sets_check() - can the sets of a view replace nf-hipac's?
 * @nl: the connection of the transaction
 * @x: the translation, saved for the view
 * @family: the view's rule set, NFHP_FAMILY_IPV4 or NFHP_FAMILY_IPV6
 *
 * Return: 0, or the exit code after saying why.
 */
int import_sets_check(struct nfhp_nl *nl, const struct nfhp_xlate *x,
		      u8 family)
{
	struct sets_need need = { };
	int ret;

	ret = sets_read(x, family, &need);
	if (!ret)
		ret = sets_check(nl, &need);
	free(need.info);
	free(need.have);
	return ret;
}

/**
 * struct print_ctx - a set being written
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

	nfhp_set_print_add(p->f, p->info, e);
	return 0;
}

/* The named sets of a view as set lines, a flush after each create. */
static int sets_write(const struct nfhp_xlate *x, u8 family, bool flush,
		      FILE *f)
{
	struct sets_need need = { };
	struct print_ctx p = { .f = f };
	unsigned int i;
	int ret;

	ret = sets_read(x, family, &need);
	for (i = 0; !ret && i < need.n; i++) {
		p.info = &need.info[i];
		nfhp_set_print_create(f, p.info);
		if (flush)
			fprintf(f, "flush %s\n", p.info->name);
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

/**
 * import_sets_add() - the named sets of a view into its text
 * @x: the translation, saved for the view
 * @family: the view's rule set, NFHP_FAMILY_IPV4 or NFHP_FAMILY_IPV6
 * @flush: a flush line after each create, for a restore --noflush
 * @text: the text of the view, replaced by one with the sets
 * @len: its length
 *
 * After the first line, the "# Generated" one, as nf-hipac-save prints
 * them: the restore creates them before the rules that refer to them.
 *
 * Return: 0, or the exit code after saying why.
 */
int import_sets_add(const struct nfhp_xlate *x, u8 family, bool flush,
		    char **text, size_t *len)
{
	const char *end = memchr(*text, '\n', *len);
	size_t head = end ? end - *text + 1 : 0;
	char *buf = NULL;
	size_t n = 0;
	FILE *f;
	int ret;

	if (!nfhp_xlate_named_set(x, 0))
		return 0;
	f = open_memstream(&buf, &n);
	if (!f) {
		fprintf(stderr, "%s: out of memory\n", SETS_PROG);
		return NFHP_EXIT_RESOURCE;
	}
	fwrite(*text, 1, head, f);
	ret = sets_write(x, family, flush, f);
	fwrite(*text + head, 1, *len - head, f);
	if (fclose(f) && !ret) {
		fprintf(stderr, "%s: out of memory\n", SETS_PROG);
		ret = NFHP_EXIT_RESOURCE;
	}
	if (ret) {
		free(buf);
		return ret;
	}
	free(*text);
	*text = buf;
	*len = n;
	return 0;
}
