/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac-set: what its subcommand files share, and what nf-hipac-save
 * and nf-hipac-restore take from them.
 *
 * set.c reads the command line and dispatches; it holds the commands on
 * whole sets (create, destroy, flush, swap, lock, unlock, limit, list,
 * save).  set_entries.c holds those on entries (add, del, test) and their
 * batches; set_restore.c the restore, also of the set lines of
 * nf-hipac-restore.  Each command returns ipset's exit code: 0, 1 for an
 * error, 2 for a bad command line.
 */
#ifndef _NFHP_CLI_SET_H
#define _NFHP_CLI_SET_H

#include "nl_set.h"
#include "set_parse.h"

#define NFHP_SET_PROG	"nf-hipac-set"

/**
 * struct set_cli - one nf-hipac-set run
 * @nl: the connection, NULL until a command needs it
 * @exist: -exist: no error for what is already so
 * @names: -name: list the names only
 * @terse: -terse: list the heads only
 * @quiet: -quiet: no messages for test results, nor for errors
 * @save: -output save: list in the save format
 * @line: the line of a restore being run, 0 outside a restore
 * @prog: the tool whose name starts the messages (nf-hipac-restore),
 *	NULL for ipset's "nf-hipac-set v1.0: "
 */
struct set_cli {
	struct nfhp_nl *nl;
	bool exist, names, terse, quiet, save;
	unsigned long line;
	const char *prog;
};

/**
 * struct set_batch - entries on their way to the kernel
 * @info: their set
 * @add: an add, else a delete
 * @flags: NFHP_SET_F_UPDATE, NFHP_SET_F_EXIST
 * @e: the entries
 * @line: the restore line of each entry, 0 outside a restore
 * @n: how many
 */
struct set_batch {
	struct nfhp_set_info info;
	bool add;
	u32 flags;
	struct nfhp_set_entry e[NFHP_NL_SET_BATCH];
	unsigned long line[NFHP_NL_SET_BATCH];
	unsigned int n;
};

/* set.c */
int set_connect(struct set_cli *c);
void set_error(const struct set_cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int set_param_error(const struct set_cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int set_kernel_error(struct set_cli *c, const char *name, int cmd);
int set_failure(struct set_cli *c, const struct nfhp_nl_failure *f, int cmd);
int set_lookup(struct set_cli *c, const char *name,
	       struct nfhp_set_info *info);
int set_run(struct set_cli *c, int argc, char **argv);
bool set_ipset_type(const char *s);
int set_parse_create(struct set_cli *c, int argc, char **argv,
		     struct nfhp_set_info *info, bool *exist);
int set_save(struct set_cli *c, FILE *out, u8 family);

/* set_entries.c: argv from the set's name on */
int set_add_main(struct set_cli *c, int argc, char **argv);
int set_del_main(struct set_cli *c, int argc, char **argv);
int set_test_main(struct set_cli *c, int argc, char **argv);
int set_entry_args(struct set_cli *c, const struct nfhp_set_info *info,
		   bool add, int argc, char **argv,
		   struct nfhp_set_entry *opts, bool *exist);
int set_entry_check(struct set_cli *c, const struct nfhp_set_info *info,
		    bool add, const struct nfhp_set_entry *opts);
u32 set_entry_flags(bool add, bool exist);
int set_batch_queue(struct set_cli *c, struct set_batch *b, const char *elem,
		    const struct nfhp_set_entry *opts);
int set_batch_send(struct set_cli *c, struct set_batch *b);

/* set_restore.c */
struct set_restore;

int set_restore_main(struct set_cli *c, int argc, char **argv);
int set_restore_start(struct set_cli *c, bool replace,
		      struct set_restore **rp);
int set_restore_line(struct set_restore *r, char *line);
int set_restore_flush(struct set_restore *r);
void set_restore_free(struct set_restore *r);

#endif /* _NFHP_CLI_SET_H */
