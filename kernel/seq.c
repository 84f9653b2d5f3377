// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: a sequence of pointers in pages shared between its copies.
 *
 * DOC: Sequences
 *
 * A chain's rules are a sequence of pointers that a transaction copies
 * the first time it changes the chain, so that the committed chain stays
 * as it was until the commit.  As one array, a chain of 100,000 rules was
 * 800 KB to copy for every single-rule change.
 *
 * So a sequence keeps its pointers in pages of %NFHP_SEQ_PAGE, each one
 * 4 KB block, and a table of its pages with the index each begins at.  A
 * copy (nfhp_seq_share()) copies the table alone; a change of the copy
 * then copies the one page it writes.  At 100,000 rules a copy and a
 * change cost the table, 3 KB, and a page, 4 KB.  Finding an index is a
 * binary search of the table, a dozen steps at the most.
 *
 * Pages have no reference counts, which a copy and a free would have to
 * change in every page, each a cache miss (at 100,000 rules the two took
 * 8 % of a commit).  Each page has one owner instead, the sequence that
 * frees it, marked in its slot (@own); others that hold it do not change
 * it.  The copies follow the rule set's transactions, which is what makes
 * that enough:
 *
 * - Only a copy is changed, never the sequence it was made from, and the
 *   copy owns only the pages it made itself.
 * - When the copy is committed, nfhp_seq_succeed() hands it the pages of
 *   the original that it still holds; the original keeps the pages the
 *   copy replaced, and frees them with itself, a grace period later.
 * - When the copy is dropped instead, nfhp_seq_free() frees only its own
 *   pages.
 *
 * Example: a sequence of 600 pointers has two pages, [0, 511) and [511,
 * 600).  Its copy holds both and owns neither.  An insert at 100 into the
 * copy finds the first page full: it is split into two new pages of 255
 * and 256 pointers, which the copy owns, and its table becomes [0, 256),
 * [256, 512), [512, 601); the third page is still the original's.  Once
 * the copy succeeds the original, it owns all three, and the original
 * owns, and will free, its first page alone.
 *
 * A delete that leaves a page and a neighbour fitting in half a page
 * merges them into the page it changed, which it owns: inserts split full
 * pages in halves, and without the merges inserts and deletes at random
 * places piled up nearly empty pages.  Pages stay a quarter full on
 * average, or more.
 *
 * Every operation allocates what it needs before it changes anything, so
 * one that fails with -ENOMEM leaves the sequence as it was.  Pages are
 * never read by packets: sequences belong to the control path, under its
 * lock.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "seq.h"

static struct nfhp_seq_page *nfhp_seq_page_new(struct nfhp_mem *mem)
{
	struct nfhp_seq_page *pg = nfhp_alloc_uninit(mem, sizeof(*pg));

	if (pg)
		pg->n = 0;
	return pg;
}

/* Drop slot @k's page, freeing it if @s owns it. */
static void nfhp_seq_page_drop(struct nfhp_mem *mem, struct nfhp_seq *s, u32 k)
{
	if (s->slot[k].own)
		nfhp_free(mem, s->slot[k].page, sizeof(*s->slot[k].page));
}

/* Room in @s's table for @need pages. */
static int nfhp_seq_room(struct nfhp_mem *mem, struct nfhp_seq *s, u32 need)
{
	struct nfhp_seq_slot *slot;
	u32 cap = max(need, max(2 * s->cap, 4u));

	if (need <= s->cap)
		return 0;
	slot = nfhp_alloc_uninit(mem, cap * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	if (s->npages)
		memcpy(slot, s->slot, s->npages * sizeof(*slot));
	nfhp_free(mem, s->slot, s->cap * sizeof(*s->slot));
	s->slot = slot;
	s->cap = cap;
	return 0;
}

/* Make page @k of @s its own, copying it if it is another's. */
static int nfhp_seq_own(struct nfhp_mem *mem, struct nfhp_seq *s, u32 k)
{
	struct nfhp_seq_page *pg = s->slot[k].page, *copy;

	if (s->slot[k].own)
		return 0;
	copy = nfhp_seq_page_new(mem);
	if (!copy)
		return -ENOMEM;
	copy->n = pg->n;
	memcpy(copy->p, pg->p, pg->n * sizeof(*pg->p));
	s->slot[k].page = copy;
	s->slot[k].own = 1;
	return 0;
}

/* Pages from @k on begin @delta later. */
static void nfhp_seq_starts(struct nfhp_seq *s, u32 k, int delta)
{
	for (; k < s->npages; k++)
		s->slot[k].start += delta;
}

/**
 * nfhp_seq_share() - make a copy of a sequence that shares its pages
 * @mem: the account
 * @to: the copy, overwritten
 * @from: the sequence; it must not change while the copy lives, and it
 *	must outlive the copy unless the copy succeeds it
 *
 * Return: 0, or -ENOMEM with @to empty.
 */
int nfhp_seq_share(struct nfhp_mem *mem, struct nfhp_seq *to,
		   const struct nfhp_seq *from)
{
	u32 k;

	memset(to, 0, sizeof(*to));
	if (!from->npages)
		return 0;
	/* One more, for an insert that splits a page. */
	to->slot = nfhp_alloc_uninit(mem, (from->npages + 1) *
					  sizeof(*to->slot));
	if (!to->slot)
		return -ENOMEM;
	memcpy(to->slot, from->slot, from->npages * sizeof(*to->slot));
	for (k = 0; k < from->npages; k++)
		to->slot[k].own = 0;
	to->n = from->n;
	to->npages = from->npages;
	to->cap = from->npages + 1;
	return 0;
}

/**
 * nfhp_seq_succeed() - a copy takes over from its original
 * @to: the copy, made by nfhp_seq_share() of @from and changed since
 * @from: the original, to be freed after it
 *
 * @to takes over the pages of @from that it still holds, which it holds
 * in their order: it now owns every page it holds, and @from only those
 * @to replaced.  Only the two tables are read.
 */
void nfhp_seq_succeed(struct nfhp_seq *to, struct nfhp_seq *from)
{
	u32 j = 0, k;

	for (k = 0; k < to->npages; k++) {
		if (to->slot[k].own)
			continue;
		while (j < from->npages &&
		       from->slot[j].page != to->slot[k].page)
			j++;
		if (WARN_ON_ONCE(j == from->npages))
			return;
		to->slot[k].own = from->slot[j].own;
		from->slot[j].own = 0;
		j++;
	}
}

/**
 * nfhp_seq_free() - drop a sequence and free the pages it owns
 * @mem: the account
 * @s: the sequence, empty afterwards
 */
void nfhp_seq_free(struct nfhp_mem *mem, struct nfhp_seq *s)
{
	u32 k;

	for (k = 0; k < s->npages; k++)
		nfhp_seq_page_drop(mem, s, k);
	nfhp_free(mem, s->slot, s->cap * sizeof(*s->slot));
	memset(s, 0, sizeof(*s));
}

/* Append @p on a page of its own: appends fill pages whole. */
static int nfhp_seq_append_page(struct nfhp_mem *mem, struct nfhp_seq *s,
				void *p)
{
	struct nfhp_seq_page *pg;

	if (nfhp_seq_room(mem, s, s->npages + 1))
		return -ENOMEM;
	pg = nfhp_seq_page_new(mem);
	if (!pg)
		return -ENOMEM;
	pg->p[0] = p;
	pg->n = 1;
	s->slot[s->npages].page = pg;
	s->slot[s->npages].start = s->n;
	s->slot[s->npages].own = 1;
	s->npages++;
	s->n++;
	return 0;
}

/*
 * Split the full page @k of @s into two new halves; the old page is freed
 * if @s owned it, else it stays its owner's.
 */
static int nfhp_seq_split(struct nfhp_mem *mem, struct nfhp_seq *s, u32 k)
{
	struct nfhp_seq_page *pg = s->slot[k].page, *left, *right;
	u32 half = pg->n / 2;

	if (nfhp_seq_room(mem, s, s->npages + 1))
		return -ENOMEM;
	left = nfhp_seq_page_new(mem);
	right = nfhp_seq_page_new(mem);
	if (!left || !right) {
		nfhp_free(mem, left, sizeof(*left));
		nfhp_free(mem, right, sizeof(*right));
		return -ENOMEM;
	}
	left->n = half;
	memcpy(left->p, pg->p, half * sizeof(*pg->p));
	right->n = pg->n - half;
	memcpy(right->p, pg->p + half, right->n * sizeof(*pg->p));
	nfhp_seq_page_drop(mem, s, k);
	memmove(&s->slot[k + 2], &s->slot[k + 1],
		(s->npages - k - 1) * sizeof(*s->slot));
	s->slot[k].page = left;
	s->slot[k].own = 1;
	s->slot[k + 1].page = right;
	s->slot[k + 1].start = s->slot[k].start + half;
	s->slot[k + 1].own = 1;
	s->npages++;
	return 0;
}

/**
 * nfhp_seq_insert() - insert a pointer
 * @mem: the account
 * @s: the sequence
 * @i: its index once inserted, at most @s->n
 * @p: the pointer
 *
 * Return: 0, or -ENOMEM with @s unchanged.
 */
int nfhp_seq_insert(struct nfhp_mem *mem, struct nfhp_seq *s, u32 i, void *p)
{
	struct nfhp_seq_page *pg;
	u32 k, at;

	if (!s->npages || (i == s->n &&
			   s->slot[s->npages - 1].page->n == NFHP_SEQ_PAGE))
		return nfhp_seq_append_page(mem, s, p);
	k = nfhp_seq_find(s, i);
	if (s->slot[k].page->n == NFHP_SEQ_PAGE) {
		if (nfhp_seq_split(mem, s, k))
			return -ENOMEM;
		if (i > s->slot[k + 1].start)
			k++;
	} else if (nfhp_seq_own(mem, s, k)) {
		return -ENOMEM;
	}
	pg = s->slot[k].page;
	at = i - s->slot[k].start;
	memmove(&pg->p[at + 1], &pg->p[at], (pg->n - at) * sizeof(*pg->p));
	pg->p[at] = p;
	pg->n++;
	nfhp_seq_starts(s, k + 1, 1);
	s->n++;
	return 0;
}

/* Take slot @k out of @s's table, freeing its page if @s owns it. */
static void nfhp_seq_slot_drop(struct nfhp_mem *mem, struct nfhp_seq *s, u32 k)
{
	nfhp_seq_page_drop(mem, s, k);
	memmove(&s->slot[k], &s->slot[k + 1],
		(s->npages - k - 1) * sizeof(*s->slot));
	s->npages--;
}

/*
 * After a delete, the page @k, which @s owns, takes in a neighbour when
 * both fit in half a page.  So deletes leave no run of nearly empty
 * pages, which inserts that split pages and deletes that shrink them
 * would otherwise pile up, and a merge never needs an allocation.
 */
static void nfhp_seq_merge(struct nfhp_mem *mem, struct nfhp_seq *s, u32 k)
{
	struct nfhp_seq_page *pg = s->slot[k].page, *nb;
	u32 j;

	if (k + 1 < s->npages &&
	    pg->n + s->slot[k + 1].page->n <= NFHP_SEQ_PAGE / 2)
		j = k + 1;
	else if (k && pg->n + s->slot[k - 1].page->n <= NFHP_SEQ_PAGE / 2)
		j = k - 1;
	else
		return;
	nb = s->slot[j].page;
	if (j > k) {
		memcpy(pg->p + pg->n, nb->p, nb->n * sizeof(*pg->p));
	} else {
		memmove(pg->p + nb->n, pg->p, pg->n * sizeof(*pg->p));
		memcpy(pg->p, nb->p, nb->n * sizeof(*pg->p));
		s->slot[k].start = s->slot[j].start;
	}
	pg->n += nb->n;
	nfhp_seq_slot_drop(mem, s, j);
}

/**
 * nfhp_seq_delete() - take out a pointer
 * @mem: the account
 * @s: the sequence
 * @i: its index, below @s->n
 *
 * Return: 0, or -ENOMEM with @s unchanged.
 */
int nfhp_seq_delete(struct nfhp_mem *mem, struct nfhp_seq *s, u32 i)
{
	u32 k = nfhp_seq_find(s, i), at = i - s->slot[k].start;
	struct nfhp_seq_page *pg = s->slot[k].page;

	if (pg->n == 1) {
		nfhp_seq_slot_drop(mem, s, k);
		nfhp_seq_starts(s, k, -1);
		s->n--;
		return 0;
	}
	if (nfhp_seq_own(mem, s, k))
		return -ENOMEM;
	pg = s->slot[k].page;
	memmove(&pg->p[at], &pg->p[at + 1], (pg->n - at - 1) * sizeof(*pg->p));
	pg->n--;
	nfhp_seq_starts(s, k + 1, -1);
	s->n--;
	nfhp_seq_merge(mem, s, k);
	return 0;
}

/**
 * nfhp_seq_set() - replace a pointer
 * @mem: the account
 * @s: the sequence
 * @i: its index, below @s->n
 * @p: the new pointer
 *
 * Return: 0, or -ENOMEM with @s unchanged.
 */
int nfhp_seq_set(struct nfhp_mem *mem, struct nfhp_seq *s, u32 i, void *p)
{
	u32 k = nfhp_seq_find(s, i);

	if (nfhp_seq_own(mem, s, k))
		return -ENOMEM;
	s->slot[k].page->p[i - s->slot[k].start] = p;
	return 0;
}

/**
 * nfhp_seq_same_len() - how many pointers two runs have in common
 * @a: a sequence
 * @i: where its run begins
 * @b: another sequence
 * @j: where its run begins
 * @most: the longest the runs may be, both sequences at least as long
 *
 * A page both share at the same place is equal without reading it.
 *
 * Return: the length of the longest common prefix of the runs.
 */
u32 nfhp_seq_same_len(const struct nfhp_seq *a, u32 i,
		      const struct nfhp_seq *b, u32 j, u32 most)
{
	const struct nfhp_seq_slot *sa, *sb;
	u32 len = 0, oa, ob, run, x;

	while (len < most) {
		sa = &a->slot[nfhp_seq_find(a, i + len)];
		sb = &b->slot[nfhp_seq_find(b, j + len)];
		oa = i + len - sa->start;
		ob = j + len - sb->start;
		run = min(min(sa->page->n - oa, sb->page->n - ob), most - len);
		if (sa->page == sb->page && oa == ob) {
			len += run;
			continue;
		}
		for (x = 0; x < run; x++)
			if (sa->page->p[oa + x] != sb->page->p[ob + x])
				break;
		len += x;
		if (x < run)
			break;
	}
	return len;
}
