/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the subcommands of the nf-hipac tool.
 *
 * nf-hipac parses its command line with nfhp_parse_cmdline() and hands the
 * result to one of the *_main() functions below through the table in
 * nf-hipac.c.  They return the exit code, iptables' for the same outcome.
 * nf-hipac-save and nf-hipac-restore are the same binary under another
 * name and take their own argv.
 */
#ifndef _NFHP_SUBCOMMANDS_H
#define _NFHP_SUBCOMMANDS_H

#include "nl.h"
#include "parse.h"

#define NFHP_PROG	"nf-hipac"
/* From the VERSION file at the top, through user/Makefile. */
#ifndef NFHP_VERSION
#error "NFHP_VERSION is not defined: build with user/Makefile"
#endif

/* append.c */
int append_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
int insert_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
/* delete.c */
int delete_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
int replace_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
int check_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
/* chain.c */
int new_chain_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
int del_chain_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
int rename_chain_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
int policy_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
int flush_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
int zero_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
/* list.c */
int list_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
int list_rules_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
/* set.c: nf-hipac-set, or "nf-hipac set": argv from the program's name on */
int set_main(int argc, char **argv);
/* state.c: "nf-hipac state": argv from "state" on; @family the program's */
int state_main(int argc, char **argv, u8 family);
/* save.c, restore.c: argv as given */
int save_main(int argc, char **argv);
int restore_main(int argc, char **argv);

/**
 * struct restore_opts - how nf-hipac-restore loads its input
 * @noflush: --noflush: keep the rules and chains that are there
 * @test: --test: check everything with the kernel, change nothing
 * @counters: --counters: restore the packet and byte counters
 * @verbose: --verbose: say what was done
 * @wait: --wait: wait for another tool's transaction
 * @wait_seconds: for at most this long, 0 for ever
 * @wait_interval_us: --wait-interval: try again this often, 0 for the default
 * @file: the input, NULL for stdin
 */
struct restore_opts {
	bool noflush, test, counters, verbose, wait;
	unsigned int wait_seconds;
	unsigned long wait_interval_us;
	const char *file;
};

/* restore.c: text in memory, for import: one transaction, both families */
int restore_begin(struct nfhp_nl **nlp, const struct restore_opts *o);
int restore_part(struct nfhp_nl *nl, u8 family, const char *text, size_t len,
		 const struct restore_opts *o);
int restore_end(struct nfhp_nl *nl, int ret, const struct restore_opts *o);
/*
 * import.c: "nf-hipac import ...", argv from "import" on; @family the
 * program's (nf-hipac6 import reads the ip6 table by default)
 */
int import_main(int argc, char **argv, u8 family);
/* import_sets.c: the named sets of a view's text, checked and written */
struct nfhp_xlate;
int import_sets_check(struct nfhp_nl *nl, const struct nfhp_xlate *x,
		      u8 family);
int import_sets_add(const struct nfhp_xlate *x, u8 family, bool flush,
		    char **text, size_t *len);

/* helpers.c: what the subcommands share */
const char *nfhp_cli_chain(const struct nfhp_cmdline *cl);
bool nfhp_cli_bad_target(struct nfhp_nl *nl, const struct nfhp_rule_spec *spec);
int nfhp_cli_rule_error(struct nfhp_nl *nl,
			const struct nfhp_rule_spec *spec);
void nfhp_cli_param_error(const char *prog, const char *msg);

#endif /* _NFHP_SUBCOMMANDS_H */
