// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: /proc/net/nf-hipac, per network namespace.
 *
 * info shows the memory use and the hook order; writing a number N sets
 * the memory bound to N MiB, writing "nf-hipac-first" or "iptables-first"
 * moves the hooks.  statistics/{input,forward,output} describe the shape
 * of each hook's tree, statistics/shadowed lists the rules that can never
 * match.  Everything is computed on each read, under the namespace's
 * mutex; the packet path keeps no statistics.
 *
 * They tell what the rules let through, so reading them needs
 * CAP_NET_ADMIN in the namespace's user namespace, as listing the rules
 * does (netlink.c), unless root wrote 1 to world_readable; writing any
 * of them always needs it.
 */

#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/seq_file_net.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pernet.h"
#include "proc.h"
#include "stats.h"

#define NFHP_PROC_DIR	"nf-hipac"

/* The memory bound is written in MiB, at most 9 digits as in nf-hipac. */
#define NFHP_MIB_SHIFT		20
#define NFHP_MIB_MAX		999999999ULL

static const char * const nfhp_dim_names[NFHP_DIM_MAX] = {
	[NFHP_DIM_SRC] = "src",
	[NFHP_DIM_DST] = "dst",
	[NFHP_DIM_PROTO] = "proto",
	[NFHP_DIM_SPORT] = "sport",
	[NFHP_DIM_DPORT] = "dport",
	[NFHP_DIM_STATE] = "state",
	[NFHP_DIM_FRAG] = "frag",
	[NFHP_DIM_TCPFLAGS] = "tcpflags",
	[NFHP_DIM_ICMP] = "icmp",
	[NFHP_DIM_TTL] = "ttl",
	[NFHP_DIM_LEN] = "len",
	[NFHP_DIM_MARK] = "mark",
	[NFHP_DIM_IIF] = "iif",
	[NFHP_DIM_OIF] = "oif",
};

static const char * const nfhp_hook_names[NFHP_HOOK_MAX] = {
	[NFHP_HOOK_INPUT] = "INPUT",
	[NFHP_HOOK_FORWARD] = "FORWARD",
	[NFHP_HOOK_OUTPUT] = "OUTPUT",
};

/**
 * nfhp_proc_may_read() - may the opener of a file read nf-hipac's state?
 * @file: the file
 * @net: its namespace
 *
 * The credentials are those of the open, as for the writes, so that a
 * descriptor handed to a privileged program reads no more than its opener
 * could.
 *
 * Return: true if world_readable is set or the opener has CAP_NET_ADMIN
 * in the user namespace of @net.
 */
bool nfhp_proc_may_read(const struct file *file, struct net *net)
{
	return nfhp_net_world_readable(nfhp_net(net)) ||
	       file_ns_capable(file, net->user_ns, CAP_NET_ADMIN);
}

/**
 * nfhp_info_fam() - print the figures of one family's rule set
 * @m: the seq_file
 * @fam: the family, its namespace's lock held
 */
static void nfhp_info_fam(struct seq_file *m, const struct nfhp_fam *fam)
{
	const struct nfhp_ruleset *rs = fam->rs;

	seq_printf(m, "maximum memory bound:     %14llu bytes\n",
		   nfhp_ruleset_mem_limit(rs));
	seq_printf(m, "total memory (used):      %14llu bytes\n",
		   nfhp_ruleset_mem_used(rs));
	seq_printf(m, "total memory (allocated): %14llu bytes\n",
		   nfhp_ruleset_mem_allocated(rs));
	seq_printf(m, "total number of chains:   %14u\n",
		   nfhp_ruleset_nchains(rs));
	seq_printf(m, "total number of rules:    %14u\n",
		   nfhp_ruleset_nrules(rs));
	seq_printf(m, "commits:                  %14llu\n", fam->commits);
	seq_printf(m, "last commit took:         %14llu ns\n", fam->commit_ns);
	seq_printf(m, "commits stopped by signal:%14llu\n",
		   fam->commits_stopped);
	seq_printf(m, "last commit flattened:    %14u entries\n",
		   nfhp_ruleset_flattened(rs));
	seq_printf(m, "splits built by two CPUs: %14llu\n",
		   nfhp_ruleset_shared_splits(rs));
	seq_printf(m, "tree updates given up:    %14llu\n",
		   nfhp_ruleset_updates_given_up(rs));
	seq_printf(m, "tree builds cut short:    %14llu\n",
		   nfhp_ruleset_builds_cut(rs));
	seq_printf(m, "memory of counters:       %14llu bytes\n",
		   nfhp_ruleset_counter_mem(rs));
}

/* Marks the proc data of a file of the IPv6 rule set (info6, forward6). */
#define NFHP_PROC_IPV6	0x100

/* The family whose rule set the proc file @file shows. */
static struct nfhp_fam *nfhp_proc_fam(struct nfhp_net *hn,
				      const struct file *file)
{
	uintptr_t data = (uintptr_t)pde_data(file_inode(file));

	return &hn->fam[data & NFHP_PROC_IPV6 ? NFHP_FAM_IPV6 : NFHP_FAM_IPV4];
}

/**
 * nfhp_info_show() - print /proc/net/nf-hipac/info or info6
 * @m: the seq_file, private the namespace
 * @v: unused
 *
 * The figures of the IPv4 rule set (info) or of the IPv6 one (info6),
 * under the same labels; info ends with the hook order of both.
 *
 * Return: 0, or -EACCES if the reader may not see it.
 */
static int nfhp_info_show(struct seq_file *m, void *v)
{
	struct net *net = seq_file_single_net(m);
	struct nfhp_net *hn = nfhp_net(net);
	struct nfhp_fam *fam = nfhp_proc_fam(hn, m->file);

	if (!nfhp_proc_may_read(m->file, net))
		return -EACCES;
	mutex_lock(&hn->lock);
	nfhp_info_fam(m, fam);
	if (fam->family == NFHP_FAMILY_IPV4)
		seq_printf(m, "nf-hipac is invoked %s iptables\n",
			   hn->iptables_first ? "after" : "before");
	mutex_unlock(&hn->lock);
	return 0;
}

/**
 * nfhp_info_set_limit() - set the memory bound from a number of MiB
 * @hn: the namespace state
 * @fam: the family whose bound it is
 * @mib: the bound in MiB
 *
 * The bound is capped at the size of the RAM.
 *
 * Return: 0, or -EINVAL if the rule set already uses more.
 */
static int nfhp_info_set_limit(struct nfhp_net *hn, struct nfhp_fam *fam,
			       u64 mib)
{
	u64 limit = min(mib << NFHP_MIB_SHIFT, nfhp_ram_bytes());
	int ret;

	mutex_lock(&hn->lock);
	ret = nfhp_ruleset_set_mem_limit(fam->rs, limit);
	mutex_unlock(&hn->lock);
	return ret;
}

/**
 * nfhp_info_write() - handle a write to /proc/net/nf-hipac/info or info6
 * @file: the file, opened by single_open_net()
 * @buf: what was written, NUL-terminated
 * @size: its length
 *
 * A number is the memory bound of the file's family; the hook order is
 * both families'.
 *
 * Return: 0 or -errno.
 */
static int nfhp_info_write(struct file *file, char *buf, size_t size)
{
	struct net *net = seq_file_single_net(file->private_data);
	struct nfhp_net *hn = nfhp_net(net);
	const char *cmd = strim(buf);
	u64 mib;
	int ret;

	if (!file_ns_capable(file, net->user_ns, CAP_NET_ADMIN))
		return -EPERM;

	if (!strcmp(cmd, "nf-hipac-first") || !strcmp(cmd, "iptables-first")) {
		mutex_lock(&hn->lock);
		ret = nfhp_net_set_order(hn, cmd[0] == 'i');
		mutex_unlock(&hn->lock);
		return ret;
	}

	ret = kstrtou64(cmd, 10, &mib);
	if (ret)
		return ret;
	if (mib > NFHP_MIB_MAX)
		return -EINVAL;
	return nfhp_info_set_limit(hn, nfhp_proc_fam(hn, file), mib);
}

/**
 * nfhp_world_readable_show() - print /proc/net/nf-hipac/world_readable
 * @m: the seq_file, private the namespace
 * @v: unused
 *
 * Whether reading is open is no secret: anyone may read this file.
 *
 * Return: 0.
 */
static int nfhp_world_readable_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n",
		   nfhp_net_world_readable(nfhp_net(seq_file_single_net(m))));
	return 0;
}

/**
 * nfhp_world_readable_write() - handle a write to world_readable
 * @file: the file, opened by single_open_net()
 * @buf: what was written, NUL-terminated
 * @size: its length
 *
 * "1" lets users without CAP_NET_ADMIN list the rule set and read the
 * other files of the namespace, "0" (the default) does not.
 *
 * Return: 0, -EPERM without CAP_NET_ADMIN, or -EINVAL.
 */
static int nfhp_world_readable_write(struct file *file, char *buf,
				     size_t size)
{
	struct net *net = seq_file_single_net(file->private_data);
	struct nfhp_net *hn = nfhp_net(net);
	unsigned int on;
	int ret;

	if (!file_ns_capable(file, net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	ret = kstrtouint(strim(buf), 10, &on);
	if (ret)
		return ret;
	if (on > 1)
		return -EINVAL;
	mutex_lock(&hn->lock);
	WRITE_ONCE(hn->world_readable, on);
	mutex_unlock(&hn->lock);
	return 0;
}

/**
 * nfhp_proc_hist() - print the non-empty buckets of a power-of-two histogram
 * @m: the seq_file
 * @hist: %NFHP_HIST_BUCKETS buckets, bucket i counting sizes 2^i..2^(i+1)-1
 */
static void nfhp_proc_hist(struct seq_file *m, const unsigned int *hist)
{
	unsigned int i;

	for (i = 0; i < NFHP_HIST_BUCKETS; i++) {
		if (!hist[i])
			continue;
		seq_printf(m, "  [%9u, %9u]: %9u\n", 1U << i,
			   (u32)((2ULL << i) - 1), hist[i]);
	}
}

/**
 * nfhp_proc_tree_stats() - print the statistics of one tree
 * @m: the seq_file
 * @hook: the hook of the tree
 * @family6: "" for IPv4, " (IPv6)" for IPv6
 * @st: its statistics
 */
static void nfhp_proc_tree_stats(struct seq_file *m, enum nfhp_hook hook,
				 const char *family6,
				 const struct nfhp_tree_stats *st)
{
	unsigned int d;

	seq_printf(m, "root chain: %s%s\n", nfhp_hook_names[hook], family6);
	seq_printf(m, "number of rules:          %14u\n", st->rules);
	seq_printf(m, "number of trees:          %14u\n", st->trees);
	seq_printf(m, "total memory:             %14llu bytes\n", st->mem);
	seq_printf(m, "memory of entries:        %14llu bytes\n",
		   st->entry_mem);
	seq_printf(m, "number of nodes:          %14u\n", st->nodes);
	for (d = 0; d < NFHP_DIM_MAX; d++) {
		if (st->nodes_per_dim[d])
			seq_printf(m, "    %-22s%14u\n", nfhp_dim_names[d],
				   st->nodes_per_dim[d]);
	}
	seq_printf(m, "shared node references:   %14u\n", st->shared);
	seq_printf(m, "number of leaves:         %14u\n", st->leaves);
	seq_printf(m, "    of which lists:       %14u\n", st->lists);
	seq_printf(m, "    of which tested:      %14u\n", st->tested);
	seq_printf(m, "tested entries:           %14u\n",
		   st->tested_entries);
	seq_printf(m, "largest tested leaf:      %14u\n", st->tested_max);
	seq_printf(m, "maximum depth:            %14u\n", st->depth);
	seq_puts(m, "distribution of node sizes (intervals):\n");
	nfhp_proc_hist(m, st->node_size_hist);
	seq_puts(m, "distribution of leaf sizes (rules):\n");
	nfhp_proc_hist(m, st->leaf_size_hist);
	seq_puts(m, "distribution of leaf depths:\n");
	for (d = 0; d < NFHP_HIST_BUCKETS; d++) {
		if (st->depth_hist[d])
			seq_printf(m, "  %2u: %9u\n", d, st->depth_hist[d]);
	}
}

/**
 * nfhp_tree_show() - print /proc/net/nf-hipac/statistics/<hook>[6]
 * @m: the seq_file, private the namespace, the proc entry's data the hook
 * @v: unused
 *
 * The files of the IPv6 rule set end in "6" (forward6); their first line
 * is "root chain: <CHAIN> (IPv6)".
 *
 * Return: 0 or -errno (-EACCES if the reader may not see it).
 */
static int nfhp_tree_show(struct seq_file *m, void *v)
{
	struct net *net = seq_file_single_net(m);
	struct nfhp_net *hn = nfhp_net(net);
	uintptr_t data = (uintptr_t)pde_data(file_inode(m->file));
	enum nfhp_hook hook = data & ~NFHP_PROC_IPV6;
	bool v6 = data & NFHP_PROC_IPV6;
	struct nfhp_tree_stats *st;
	int ret;

	if (!nfhp_proc_may_read(m->file, net))
		return -EACCES;
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	mutex_lock(&hn->lock);
	ret = nfhp_tree_get_stats(nfhp_proc_fam(hn, m->file)->rs, hook, st);
	mutex_unlock(&hn->lock);
	if (!ret)
		nfhp_proc_tree_stats(m, hook, v6 ? " (IPv6)" : "", st);
	kfree(st);
	return ret;
}

/**
 * struct nfhp_shadow_ctx - what nfhp_shadow_print() needs
 * @m: the seq_file
 * @rs: the rule set, for rule positions
 * @family6: "" for IPv4, " ipv6" for IPv6
 */
struct nfhp_shadow_ctx {
	struct seq_file *m;
	struct nfhp_ruleset *rs;
	const char *family6;
};

/**
 * nfhp_shadow_print() - print one shadowed rule as "CHAIN NUM"
 * @ctx: a &struct nfhp_shadow_ctx
 * @rule: the rule
 *
 * An IPv6 rule's line ends in " ipv6".
 */
static void nfhp_shadow_print(void *ctx, const struct nfhp_rule *rule)
{
	struct nfhp_shadow_ctx *sc = ctx;

	seq_printf(sc->m, "%s %u%s\n",
		   nfhp_chain_name(nfhp_rule_chain(sc->rs, rule)),
		   nfhp_rule_position(sc->rs, rule), sc->family6);
}

/**
 * nfhp_shadowed_show() - print /proc/net/nf-hipac/statistics/shadowed
 * @m: the seq_file, private the namespace
 * @v: unused
 *
 * Return: 0 or -errno (-EACCES if the reader may not see it).
 */
static int nfhp_shadowed_show(struct seq_file *m, void *v)
{
	struct net *net = seq_file_single_net(m);
	struct nfhp_net *hn = nfhp_net(net);
	struct nfhp_shadow_ctx sc = { .m = m, .family6 = "" };
	int ret;

	if (!nfhp_proc_may_read(m->file, net))
		return -EACCES;
	mutex_lock(&hn->lock);
	sc.rs = hn->fam[NFHP_FAM_IPV4].rs;
	ret = nfhp_shadowed_rules(sc.rs, nfhp_shadow_print, &sc);
	if (!ret) {
		sc.rs = hn->fam[NFHP_FAM_IPV6].rs;
		sc.family6 = " ipv6";
		ret = nfhp_shadowed_rules(sc.rs, nfhp_shadow_print, &sc);
	}
	mutex_unlock(&hn->lock);
	return ret;
}

/**
 * nfhp_set_type_name() - a set type as /proc/net/nf-hipac/sets names it
 * @type: &enum nfhp_set_type
 *
 * Return: "addr", "num", "flow" or "iface".
 */
static const char *nfhp_set_type_name(u8 type)
{
	switch (type) {
	case NFHP_SET_NUMBER:
		return "num";
	case NFHP_SET_FLOW:
		return "flow";
	case NFHP_SET_IFACE:
		return "iface";
	default:
		return "addr";
	}
}

/**
 * nfhp_sets_show() - print /proc/net/nf-hipac/sets
 * @m: the seq_file, private the namespace
 * @v: unused
 *
 * A header line, then a line per named set: its name, family, type and
 * algorithm ("addr:hash", "addr:lpm", "num:bitmap", "num:range",
 * "flow:hash", "flow:lpm", "iface:hash", "iface:lpm"),
 * entries, limit (0: none), memory in bytes, the rules that refer to it,
 * the lookups of packets and how many found an entry.
 *
 * Return: 0, or -EACCES if the reader may not see it.
 */
static int nfhp_sets_show(struct seq_file *m, void *v)
{
	struct net *net = seq_file_single_net(m);
	struct nfhp_net *hn = nfhp_net(net);
	struct nfhp_set_stats st;
	const struct nfhp_set *set;
	char type[16];

	if (!nfhp_proc_may_read(m->file, net))
		return -EACCES;
	seq_printf(m, "%-31s %-6s %-9s %10s %10s %12s %5s %14s %14s\n",
		   "name", "family", "type", "entries", "limit", "memory",
		   "refs", "lookups", "hits");
	mutex_lock(&hn->lock);
	for (set = hn->sets.first; set; set = set->next) {
		if (set->created)
			continue;
		nfhp_set_stats_sum(set, &st);
		snprintf(type, sizeof(type), "%s:%s",
			 nfhp_set_type_name(set->algo->type),
			 set->algo->name);
		seq_printf(m, "%-31s %-6s %-9s %10u %10u %12llu %5u %14llu %14llu\n",
			   set->name,
			   set->family == NFHP_FAMILY_IPV6 ? "inet6" : "inet",
			   type, nfhp_set_count(&hn->sets, set),
			   set->live.limit, set->live.body->mem.allocated,
			   set->refs,
			   st.lookups, st.hits);
	}
	mutex_unlock(&hn->lock);
	return 0;
}

/**
 * nfhp_proc_net_init() - create /proc/net/nf-hipac in a namespace
 * @hn: the namespace state
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_proc_net_init(struct nfhp_net *hn)
{
	static const char * const files[2][NFHP_HOOK_MAX] = {
		{
			[NFHP_HOOK_INPUT] = "input",
			[NFHP_HOOK_FORWARD] = "forward",
			[NFHP_HOOK_OUTPUT] = "output",
		}, {
			[NFHP_HOOK_INPUT] = "input6",
			[NFHP_HOOK_FORWARD] = "forward6",
			[NFHP_HOOK_OUTPUT] = "output6",
		},
	};
	struct net *net = hn->net;
	struct proc_dir_entry *dir, *stats;
	uintptr_t hook, v6;

	dir = proc_net_mkdir(net, NFHP_PROC_DIR, net->proc_net);
	if (!dir)
		return -ENOMEM;
	if (!proc_create_net_single_write("info", 0644, dir, nfhp_info_show,
					  nfhp_info_write, NULL) ||
	    !proc_create_net_single_write("info6", 0644, dir, nfhp_info_show,
					  nfhp_info_write,
					  (void *)NFHP_PROC_IPV6))
		goto err_remove_dir;
	if (!proc_create_net_single("sets", 0444, dir, nfhp_sets_show, NULL))
		goto err_remove_dir;
	if (nfhp_state_proc_init(dir))
		goto err_remove_dir;
	if (!proc_create_net_single_write("world_readable", 0644, dir,
					  nfhp_world_readable_show,
					  nfhp_world_readable_write, NULL))
		goto err_remove_dir;
	stats = proc_net_mkdir(net, "statistics", dir);
	if (!stats)
		goto err_remove_dir;
	for (v6 = 0; v6 < 2; v6++) {
		for (hook = 0; hook < NFHP_HOOK_MAX; hook++) {
			void *data = (void *)(hook | (v6 ? NFHP_PROC_IPV6 : 0));

			if (!proc_create_net_single(files[v6][hook], 0444, stats,
						    nfhp_tree_show, data))
				goto err_remove_dir;
		}
	}
	if (!proc_create_net_single("shadowed", 0444, stats,
				    nfhp_shadowed_show, NULL))
		goto err_remove_dir;
	hn->proc_dir = dir;
	return 0;

err_remove_dir:
	remove_proc_subtree(NFHP_PROC_DIR, net->proc_net);
	return -ENOMEM;
}

/**
 * nfhp_proc_net_exit() - remove /proc/net/nf-hipac from a namespace
 * @hn: the namespace state
 *
 * Waits for readers and writers still inside the files.
 */
void nfhp_proc_net_exit(struct nfhp_net *hn)
{
	remove_proc_subtree(NFHP_PROC_DIR, hn->net->proc_net);
	hn->proc_dir = NULL;
}
