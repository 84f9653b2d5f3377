/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: a sequence of pointers in pages shared between its copies.
 * See DOC: Sequences in seq.c.
 */
#ifndef _NFHP_SEQ_H
#define _NFHP_SEQ_H

#include <linux/types.h>

#include "mem.h"

/* Pointers a page holds: the page is one 4 KB block with its header. */
#define NFHP_SEQ_PAGE		511

/**
 * struct nfhp_seq_page - a run of a sequence's pointers
 * @n: pointers in @p
 * @p: the pointers
 */
struct nfhp_seq_page {
	u64 n;
	void *p[NFHP_SEQ_PAGE];
};

/**
 * struct nfhp_seq_slot - a page of a sequence and where it begins
 * @page: the page
 * @start: the index in the sequence of the page's first pointer
 * @own: the sequence frees the page, and may change it
 */
struct nfhp_seq_slot {
	struct nfhp_seq_page *page;
	u32 start;
	u32 own;
};

/**
 * struct nfhp_seq - a sequence of pointers
 * @slot: its pages in order, none empty
 * @n: pointers
 * @npages: pages in @slot
 * @cap: room in @slot
 *
 * All zero is the empty sequence.
 */
struct nfhp_seq {
	struct nfhp_seq_slot *slot;
	u32 n;
	u32 npages;
	u32 cap;
};

/* The slot of the page that holds index @i, the last page for @i == @n. */
static inline u32 nfhp_seq_find(const struct nfhp_seq *s, u32 i)
{
	u32 lo = 0, n = s->npages, half;

	while (n > 1) {
		half = n / 2;
		if (s->slot[lo + half].start <= i)
			lo += half;
		n -= half;
	}
	return lo;
}

/**
 * nfhp_seq_get() - the pointer at an index
 * @s: the sequence
 * @i: the index, below @s->n
 *
 * Return: the pointer.
 */
static inline void *nfhp_seq_get(const struct nfhp_seq *s, u32 i)
{
	const struct nfhp_seq_slot *slot = &s->slot[nfhp_seq_find(s, i)];

	return slot->page->p[i - slot->start];
}

int nfhp_seq_share(struct nfhp_mem *mem, struct nfhp_seq *to,
		   const struct nfhp_seq *from);
void nfhp_seq_succeed(struct nfhp_seq *to, struct nfhp_seq *from);
void nfhp_seq_free(struct nfhp_mem *mem, struct nfhp_seq *s);
int nfhp_seq_insert(struct nfhp_mem *mem, struct nfhp_seq *s, u32 i,
		    void *p);
int nfhp_seq_delete(struct nfhp_mem *mem, struct nfhp_seq *s, u32 i);
int nfhp_seq_set(struct nfhp_mem *mem, struct nfhp_seq *s, u32 i, void *p);
u32 nfhp_seq_same_len(const struct nfhp_seq *a, u32 i,
		      const struct nfhp_seq *b, u32 j, u32 most);

#endif /* _NFHP_SEQ_H */
