// SPDX-License-Identifier: GPL-2.0
/*
 * The shim's deferred frees for the threaded tests (NFHP_SHIM_THREADS):
 * a grace period ends when the test has joined its threads.
 */
#include <pthread.h>

#include "shim.h"

static pthread_mutex_t nfhp_shim_rcu_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rcu_head *nfhp_shim_rcu_list;

void nfhp_shim_rcu_defer(struct rcu_head *head, void *p)
{
	pthread_mutex_lock(&nfhp_shim_rcu_lock);
	/* @func is unused: the block's start goes in its place. */
	head->func = (void (*)(struct rcu_head *))p;
	head->next = nfhp_shim_rcu_list;
	nfhp_shim_rcu_list = head;
	pthread_mutex_unlock(&nfhp_shim_rcu_lock);
}

void nfhp_shim_rcu_drain(void)
{
	struct rcu_head *h;

	pthread_mutex_lock(&nfhp_shim_rcu_lock);
	while ((h = nfhp_shim_rcu_list)) {
		nfhp_shim_rcu_list = h->next;
		free((void *)h->func);
	}
	pthread_mutex_unlock(&nfhp_shim_rcu_lock);
}
