/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: a sequence of pointers in pages shared between its copies.
 * See DOC: Sequences in pageseq.c.
 */
#ifndef _NFHP_PAGESEQ_H
#define _NFHP_PAGESEQ_H

#include <linux/types.h>

#include "mem.h"

/*
 * Pointers a page holds with their tags: one 4 KB block with its header.
 * Pages are filled up to nfhp_tunables.page_fill pointers, which is
 * this, or fewer in tests: so they reach the code of many pages with few
 * rules.
 */
#define NFHP_PAGESEQ_PAGE		454

/**
 * struct nfhp_pageseq_page - a run of a sequence's pointers
 * @n: pointers in @p
 * @p: the pointers
 * @tag: a byte with each pointer, which goes where it goes
 */
struct nfhp_pageseq_page {
	u64 n;
	void *p[NFHP_PAGESEQ_PAGE];
	u8 tag[NFHP_PAGESEQ_PAGE];
};

/**
 * struct nfhp_pageseq_slot - a page of a sequence and where it begins
 * @page: the page
 * @start: the index in the sequence of the page's first pointer
 * @own: the sequence frees the page, and may change it
 */
struct nfhp_pageseq_slot {
	struct nfhp_pageseq_page *page;
	u32 start;
	u32 own;
};

/**
 * struct nfhp_pageseq - a sequence of pointers
 * @slot: its pages in order, none empty
 * @n: pointers
 * @npages: pages in @slot
 * @cap: room in @slot
 * @shared: the first slot of the source of nfhp_pageseq_append_run() that it
 *	may still share: it shares pages in their order, each once
 *
 * All zero is the empty sequence.
 */
struct nfhp_pageseq {
	struct nfhp_pageseq_slot *slot;
	u32 n;
	u32 npages;
	u32 cap;
	u32 shared;
};

/* The slot of the page that holds index @i, the last page for @i == @n. */
static inline u32 nfhp_pageseq_find(const struct nfhp_pageseq *s, u32 i)
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
 * nfhp_pageseq_get() - the pointer at an index
 * @s: the sequence
 * @i: the index, below @s->n
 *
 * Return: the pointer.
 */
static inline void *nfhp_pageseq_get(const struct nfhp_pageseq *s, u32 i)
{
	const struct nfhp_pageseq_slot *slot;

	slot = &s->slot[nfhp_pageseq_find(s, i)];
	return slot->page->p[i - slot->start];
}

/* The tag of the pointer at index @i, below @s->n. */
static inline u8 nfhp_pageseq_tag(const struct nfhp_pageseq *s, u32 i)
{
	const struct nfhp_pageseq_slot *slot;

	slot = &s->slot[nfhp_pageseq_find(s, i)];
	return slot->page->tag[i - slot->start];
}

/**
 * struct nfhp_pageseq_iter - a walk over a sequence's pointers in order
 * @s: the sequence
 * @k: the slot of the next pointer, @s->npages at the end
 * @at: the next pointer's place in its page
 * @tag: the tag of the pointer nfhp_pageseq_iter_next() returned last
 */
struct nfhp_pageseq_iter {
	const struct nfhp_pageseq *s;
	u32 k;
	u32 at;
	u8 tag;
};

/* Start @it at index @i of @s, at most @s->n. */
static inline void nfhp_pageseq_iter_init(struct nfhp_pageseq_iter *it,
					  const struct nfhp_pageseq *s, u32 i)
{
	it->s = s;
	it->k = s->npages;
	it->at = 0;
	it->tag = 0;
	if (i < s->n) {
		it->k = nfhp_pageseq_find(s, i);
		it->at = i - s->slot[it->k].start;
	}
}

/* The next pointer of @it's walk, NULL at the end: none is NULL. */
static inline void *nfhp_pageseq_iter_next(struct nfhp_pageseq_iter *it)
{
	const struct nfhp_pageseq_page *pg;
	void *p;

	if (it->k >= it->s->npages)
		return NULL;
	pg = it->s->slot[it->k].page;
	p = pg->p[it->at];
	it->tag = pg->tag[it->at];
	if (++it->at == pg->n) {
		it->k++;
		it->at = 0;
	}
	return p;
}

int nfhp_pageseq_share(struct nfhp_mem *mem, struct nfhp_pageseq *to,
		       const struct nfhp_pageseq *from);
void nfhp_pageseq_succeed(struct nfhp_pageseq *to, struct nfhp_pageseq *from);
void nfhp_pageseq_free(struct nfhp_mem *mem, struct nfhp_pageseq *s);
int nfhp_pageseq_insert(struct nfhp_mem *mem, struct nfhp_pageseq *s, u32 i,
			void *p);
int nfhp_pageseq_reserve(struct nfhp_mem *mem, struct nfhp_pageseq *s,
			 u32 need);
int nfhp_pageseq_append(struct nfhp_mem *mem, struct nfhp_pageseq *s, void *p,
			u8 tag);
int nfhp_pageseq_append_run(struct nfhp_mem *mem, struct nfhp_pageseq *s,
			    const struct nfhp_pageseq *from, u32 i, u32 n);
void nfhp_pageseq_truncate(struct nfhp_mem *mem, struct nfhp_pageseq *s, u32 n);
int nfhp_pageseq_delete(struct nfhp_mem *mem, struct nfhp_pageseq *s, u32 i);
int nfhp_pageseq_set(struct nfhp_mem *mem, struct nfhp_pageseq *s, u32 i,
		     void *p);
u32 nfhp_pageseq_same_len(const struct nfhp_pageseq *a, u32 i,
			  const struct nfhp_pageseq *b, u32 j, u32 most);

#endif /* _NFHP_PAGESEQ_H */
