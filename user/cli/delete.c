// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac -D, -R and -C.
 */
#include "subcommands.h"

int delete_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl)
{
	if (cl->pos) {
		if (nfhp_nl_delete_pos(nl, cl->chain, cl->pos))
			return nfhp_nl_report(nl, NFHP_PROG);
		return NFHP_EXIT_OK;
	}
	if (nfhp_nl_delete_spec(nl, cl->chain, &cl->spec))
		return nfhp_cli_rule_error(nl, &cl->spec);
	return NFHP_EXIT_OK;
}

int replace_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl)
{
	if (nfhp_nl_replace(nl, cl->chain, cl->pos, &cl->spec))
		return nfhp_cli_rule_error(nl, &cl->spec);
	return NFHP_EXIT_OK;
}

static int find_rule(void *data, const char *chain, unsigned int pos,
		     const struct nfhp_rule_spec *spec,
		     const struct nfhp_counter *c)
{
	/* Non-zero stops the dump: found. */
	return nfhp_nl_spec_equal(data, spec);
}

/*
 * -C lists the rules of the chain equal to the rule (the kernel compares
 * them as for a delete by rule, so a chain of 100k rules sends one or
 * none) and looks for an equal one among them, which an older kernel that
 * sends every rule needs.  A missing chain is a missing rule, as in
 * iptables.
 */
int check_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl)
{
	static const struct nfhp_nl_dump_ops ops = { .rule = find_rule };
	int ret;

	ret = nfhp_nl_dump_equal(nl, cl->chain, &cl->spec, &ops,
				 (void *)&cl->spec);
	if (ret > 0)
		return NFHP_EXIT_OK;
	if (ret < 0 && ret != -ENOENT)
		return nfhp_nl_report(nl, NFHP_PROG);
	if (nfhp_cli_bad_target(nl, &cl->spec))
		return NFHP_EXIT_PARAM;
	fprintf(stderr,
		"%s: Bad rule (does a matching rule exist in that chain?).\n",
		NFHP_PROG);
	return NFHP_EXIT_OTHER;
}
