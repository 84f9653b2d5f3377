// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: /proc/net/nf-hipac/states.
 *
 * Reading shows the states of the namespace: how many, the buckets, what
 * was made, expired and refused, and the lifetimes in seconds.  Writing
 * "NAME VALUE" sets one of the lifetimes (syn_lifetime, ack_lifetime,
 * fin_lifetime, rst_lifetime, udp_lifetime, short_lifetime; 1 to
 * %NFHP_STATE_LIFETIME_MAX seconds), which states take when they are
 * next renewed, or max_states, the most states the table holds, or
 * max_parents, the most parents of limits (1 to INT_MAX each, as their
 * memory can be reserved).
 * Reading needs what the other files need (proc.c); writing needs
 * CAP_NET_ADMIN.
 */
#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/seq_file_net.h>
#include <linux/string.h>

#include "pernet.h"
#include "proc.h"

/* A month: the longest lifetime /proc takes. */
#define NFHP_STATE_LIFETIME_MAX	(30 * 24 * 3600)

/**
 * struct nfhp_state_tunable - a setting of the states that /proc shows
 * @name: its name, as read and written
 * @off: its offset in &struct nfhp_state_tunables
 */
struct nfhp_state_tunable {
	const char *name;
	size_t off;
};

#define NFHP_TUNABLE(f) { #f, offsetof(struct nfhp_state_tunables, f) }

/* The lifetimes, in the order they are shown. */
static const struct nfhp_state_tunable nfhp_state_lifetimes[] = {
	NFHP_TUNABLE(syn_lifetime),
	NFHP_TUNABLE(ack_lifetime),
	NFHP_TUNABLE(fin_lifetime),
	NFHP_TUNABLE(rst_lifetime),
	NFHP_TUNABLE(udp_lifetime),
	NFHP_TUNABLE(short_lifetime),
};

/**
 * nfhp_state_tunable_ptr() - where a table keeps one of its settings
 * @t: the table
 * @tn: the setting
 *
 * Return: the setting's word.
 */
static u32 *nfhp_state_tunable_ptr(struct nfhp_state_table *t,
				   const struct nfhp_state_tunable *tn)
{
	return (u32 *)((char *)&t->tun + tn->off);
}

/**
 * nfhp_states_show() - print /proc/net/nf-hipac/states
 * @m: the seq_file, private the namespace
 * @v: unused
 *
 * Return: 0, or -EACCES if the reader may not see it.
 */
static int nfhp_states_show(struct seq_file *m, void *v)
{
	struct net *net = seq_file_single_net(m);
	struct nfhp_states *st = &nfhp_net(net)->states;
	struct nfhp_state_table *t = &st->table;
	const struct nfhp_state_tunable *tn;
	unsigned int i;

	if (!nfhp_proc_may_read(m->file, net))
		return -EACCES;
	mutex_lock(&st->lock);
	if (!st->ready) {
		mutex_unlock(&st->lock);
		return -ENOENT;
	}
	seq_printf(m, "states:            %14d\n", atomic_read(&t->count));
	seq_printf(m, "max_states:        %14u\n", READ_ONCE(t->tun.max_states));
	seq_printf(m, "parents:           %14d\n",
		   atomic_read(&t->parent_count));
	seq_printf(m, "max_parents:       %14u\n",
		   READ_ONCE(t->tun.max_parents));
	seq_printf(m, "buckets:           %14u\n", nfhp_state_buckets(t));
	seq_printf(m, "growing:           %14u\n",
		   nfhp_state_growth_left(t));
	seq_printf(m, "created:           %14ld\n",
		   atomic_long_read(&t->stats.created));
	seq_printf(m, "expired:           %14ld\n",
		   atomic_long_read(&t->stats.expired));
	seq_printf(m, "refused (max):     %14ld\n",
		   atomic_long_read(&t->stats.refused_max));
	seq_printf(m, "refused (limit):   %14ld\n",
		   atomic_long_read(&t->stats.refused_limit));
	seq_printf(m, "refused (parents): %14ld\n",
		   atomic_long_read(&t->stats.refused_parents));
	seq_printf(m, "refused (memory):  %14ld\n",
		   atomic_long_read(&t->stats.refused_nomem));
	for (i = 0; i < ARRAY_SIZE(nfhp_state_lifetimes); i++) {
		tn = &nfhp_state_lifetimes[i];
		/* "name:", the value ending in the column of the others. */
		seq_printf(m, "%s:%*u s\n", tn->name,
			   32 - (int)strlen(tn->name),
			   READ_ONCE(*nfhp_state_tunable_ptr(t, tn)));
	}
	mutex_unlock(&st->lock);
	return 0;
}

/**
 * nfhp_states_write() - handle a write to /proc/net/nf-hipac/states
 * @file: the file, opened by single_open_net()
 * @buf: what was written, NUL-terminated: "NAME VALUE"
 * @size: its length
 *
 * Return: 0, -EPERM without CAP_NET_ADMIN, -EINVAL for an unknown name
 * or a value out of range, or -ENOMEM when max_states' memory cannot
 * be reserved.
 */
static int nfhp_states_write(struct file *file, char *buf, size_t size)
{
	struct net *net = seq_file_single_net(file->private_data);
	struct nfhp_states *st = &nfhp_net(net)->states;
	char *value, *name = strim(buf);
	unsigned int i;
	int ret;
	u32 n;

	if (!file_ns_capable(file, net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	value = strpbrk(name, " \t");
	if (!value)
		return -EINVAL;
	*value++ = '\0';
	ret = kstrtou32(skip_spaces(value), 10, &n);
	if (ret)
		return ret;
	mutex_lock(&st->lock);
	ret = -ENOENT;
	if (!st->ready)
		goto out;
	ret = -EINVAL;
	/* The table counts its states and parents in ints. */
	if (!strcmp(name, "max_states")) {
		if (n && n <= INT_MAX)
			ret = nfhp_state_set_bounds(&st->table, n,
						    st->table.tun.max_parents);
		goto out;
	}
	if (!strcmp(name, "max_parents")) {
		if (n && n <= INT_MAX)
			ret = nfhp_state_set_bounds(&st->table,
						    st->table.tun.max_states, n);
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(nfhp_state_lifetimes); i++) {
		if (strcmp(name, nfhp_state_lifetimes[i].name))
			continue;
		if (n && n <= NFHP_STATE_LIFETIME_MAX) {
			WRITE_ONCE(*nfhp_state_tunable_ptr(&st->table,
						&nfhp_state_lifetimes[i]), n);
			ret = 0;
		}
		break;
	}
out:
	mutex_unlock(&st->lock);
	return ret;
}

/**
 * nfhp_state_proc_init() - create /proc/net/nf-hipac/states
 * @dir: the namespace's /proc/net/nf-hipac
 *
 * It goes with the directory (nfhp_proc_net_exit()).
 *
 * Return: 0 or -ENOMEM.
 */
int nfhp_state_proc_init(struct proc_dir_entry *dir)
{
	if (!proc_create_net_single_write("states", 0644, dir,
					  nfhp_states_show, nfhp_states_write,
					  NULL))
		return -ENOMEM;
	return 0;
}
