/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the named-set commands of the netlink client.
 *
 * Each function sends one request on a connection of lib/nl.c and waits
 * for its answer.  They return 0 or -errno, the failure kept in the
 * connection (nfhp_nl_get_failure()) with the kernel's message.
 */
#ifndef _NFHP_NL_SET_H
#define _NFHP_NL_SET_H

#include "nl.h"
#include "set_parse.h"

/*
 * Most entries of one NFHP_CMD_SET_ADD, _REMOVE: their request (40 bytes
 * an entry, 64 with both counts) and the answer (48 bytes an entry with
 * its result, in one skb the kernel sizes for them) stay within the
 * 64 KiB a receive takes.
 */
#define NFHP_NL_SET_BATCH	512

int nfhp_nl_set_new(struct nfhp_nl *nl, const struct nfhp_set_info *info,
		    bool exist);
/* name NULL: every set */
int nfhp_nl_set_del(struct nfhp_nl *nl, const char *name);
int nfhp_nl_set_flush(struct nfhp_nl *nl, const char *name);
int nfhp_nl_set_swap(struct nfhp_nl *nl, const char *a, const char *b);
/* The limit when @limit is non-NULL, the lock when @locked is. */
int nfhp_nl_set_modify(struct nfhp_nl *nl, const char *name,
		       const u32 *limit, const bool *locked);

/*
 * NFHP_CMD_SET_ADD (@add) or NFHP_CMD_SET_REMOVE of @n entries (at most
 * %NFHP_NL_SET_BATCH) of set @info, @flags NFHP_SET_F_UPDATE and
 * NFHP_SET_F_EXIST; each entry's result is filled in from the answer.
 * Return: 0, or the command's -errno (the first failed entry's); -EPROTO
 * when the answer holds no result for every entry.
 */
int nfhp_nl_set_entries(struct nfhp_nl *nl, bool add,
			const struct nfhp_set_info *info, u32 flags,
			struct nfhp_set_entry *e, unsigned int n);
/*
 * NFHP_CMD_SET_TEST: *@found, and the entry's value and, in a set with
 * %NFHP_SET_F_COUNTERS, its counts (@e's has_packets and has_bytes).
 */
int nfhp_nl_set_test(struct nfhp_nl *nl, const struct nfhp_set_info *info,
		     struct nfhp_set_entry *e, bool *found);

/**
 * struct nfhp_nl_set_ops - callbacks of nfhp_nl_set_list()
 * @set: once per set, before its entries
 * @entry: per entry of the set the listing names
 *
 * A non-zero value stops the listing and is returned.
 */
struct nfhp_nl_set_ops {
	int (*set)(void *data, const struct nfhp_set_info *info);
	int (*entry)(void *data, const struct nfhp_set_info *info,
		     const struct nfhp_set_entry *e);
};

/*
 * NFHP_CMD_SET_LIST: every set's head (@name NULL), or that set's head
 * and its entries.
 */
int nfhp_nl_set_list(struct nfhp_nl *nl, const char *name,
		     const struct nfhp_nl_set_ops *ops, void *data);
/* The head of set @name into @info: 0, or -ENOENT when there is none. */
int nfhp_nl_set_get(struct nfhp_nl *nl, const char *name,
		    struct nfhp_set_info *info);

/*
 * The wire format, for the unit tests: put NFHPA_SET with its entries;
 * read the NFHPA_SET of an answer (a listing's message, or the answer to
 * an add, remove or test) into @info and each entry to @fn.
 */
void nfhp_nl_put_set(struct nlmsghdr *nlh, const struct nfhp_set_info *info,
		     u32 flags, const struct nfhp_set_entry *e,
		     unsigned int n, bool values);
int nfhp_nl_parse_set_msg(const struct nlmsghdr *nlh,
			  struct nfhp_set_info *info,
			  int (*fn)(void *data, const struct nfhp_set_info *info,
				    const struct nfhp_set_entry *e),
			  void *data);

#endif /* _NFHP_NL_SET_H */
