// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: what the subcommands share: the chain a command line names,
 * and the reports of a bad parameter and of a failed rule command in
 * iptables' words.
 */
#include <string.h>
#include "nl_set.h"
#include "subcommands.h"

/**
 * nfhp_cli_chain() - the chain of a command line, NULL when none was given
 * @cl: the parsed command line
 *
 * Return: the chain name or NULL (-F, -Z, -X, -L, -S without a chain).
 */
const char *nfhp_cli_chain(const struct nfhp_cmdline *cl)
{
	return cl->chain[0] ? cl->chain : NULL;
}

/**
 * nfhp_cli_param_error() - report a parameter problem as iptables does
 * @prog: the program name
 * @msg: what is wrong
 */
void nfhp_cli_param_error(const char *prog, const char *msg)
{
	/* nf-hipac's own refusals name it already ("nf-hipac: ... not supported"). */
	if (strncmp(msg, "nf-hipac: ", 10))
		fprintf(stderr, "%s: ", prog);
	fprintf(stderr, "%s\n", msg);
	fprintf(stderr,
		"Try `%s -h' or '%s --help' for more information.\n",
		prog, prog);
}

static int target_exists(void *data, const struct nfhp_nl_chain *c)
{
	*(bool *)data = true;
	return 0;
}

/**
 * nfhp_cli_bad_target() - does a rule jump to a chain that does not exist?
 * @nl: the connection
 * @spec: the rule
 *
 * iptables resolves the target of "-j chain" before it talks to the
 * kernel and fails with a parameter problem (exit 2) when there is no such
 * chain.  The kernel only says -ENOENT, which may as well be about the
 * rule's own chain, so the target is looked up after such a failure.
 *
 * Return: true, after printing iptables' message, if it does.
 */
bool nfhp_cli_bad_target(struct nfhp_nl *nl, const struct nfhp_rule_spec *spec)
{
	static const struct nfhp_nl_dump_ops ops = { .chain = target_exists };
	char msg[160];
	bool found = false;

	if (spec->action != NFHP_ACT_JUMP && spec->action != NFHP_ACT_GOTO)
		return false;
	if (nfhp_nl_dump_chains(nl, spec->target, &ops, &found) && !found) {
		snprintf(msg, sizeof(msg),
			 "Couldn't load target `%s':No such file or directory\n",
			 spec->target);
		nfhp_cli_param_error(NFHP_PROG, msg);
		return true;
	}
	return false;
}

/**
 * nfhp_cli_bad_set() - does a rule match a set that does not exist?
 * @nl: the connection
 * @spec: the rule
 *
 * iptables' set match looks its sets up while it parses the line, and
 * fails with a parameter problem for one that is not there; the kernel
 * says -ENOENT, as for a chain.
 *
 * Return: true, after printing iptables' message, if it does.
 */
static bool nfhp_cli_bad_set(struct nfhp_nl *nl,
			     const struct nfhp_rule_spec *spec)
{
	struct nfhp_set_info info;
	char msg[160];
	unsigned int i;

	for (i = 0; i < nfhp_spec_nsetm(spec); i++) {
		if (nfhp_nl_set_get(nl, spec->setm[i].name, &info) != -ENOENT)
			continue;
		snprintf(msg, sizeof(msg), "Set %s doesn't exist.\n",
			 spec->setm[i].name);
		nfhp_cli_param_error(NFHP_PROG, msg);
		return true;
	}
	return false;
}

/**
 * nfhp_cli_rule_error() - report the failure of a rule command
 * @nl: the connection, holding the failure
 * @spec: the rule that was sent
 *
 * Return: the exit code.
 */
int nfhp_cli_rule_error(struct nfhp_nl *nl,
			const struct nfhp_rule_spec *spec)
{
	struct nfhp_nl_failure f;

	nfhp_nl_get_failure(nl, &f);
	if (f.err == -ENOENT && (nfhp_cli_bad_target(nl, spec) ||
				 nfhp_cli_bad_set(nl, spec)))
		return NFHP_EXIT_PARAM;
	return nfhp_nl_report_failure(&f, NFHP_PROG);
}
