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
 * So a sequence keeps its pointers in pages of %NFHP_PAGESEQ_PAGE, each one
 * 4 KB block, and a table of its pages with the index each begins at.
 * Each pointer has a byte beside it, its tag, for the sequence's user: a
 * hook's entries keep their group there, so that it is shared and copied
 * with them.  A
 * copy (nfhp_pageseq_share()) copies the table alone; a change of the copy
 * then copies the one page it writes.  At 100,000 rules a copy and a
 * change cost the table, 3.5 KB, and a page, 4 KB.  Finding an index is a
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
 * - When the copy is committed, nfhp_pageseq_succeed() hands it the pages of
 *   the original that it still holds; the original keeps the pages the
 *   copy replaced, and frees them with itself, a grace period later.
 * - When the copy is dropped instead, nfhp_pageseq_free() frees only its own
 *   pages.
 *
 * Example: a sequence of 600 pointers has two pages, [0, 454) and [454,
 * 600).  Its copy holds both and owns neither.  An insert at 100 into the
 * copy finds the first page full: it is split into two new pages of 227
 * pointers each, which the copy owns, and its table becomes [0, 228),
 * [228, 455), [455, 601); the third page is still the original's.  Once
 * the copy succeeds the original, it owns all three, and the original
 * owns, and will free, its first page alone.
 *
 * A delete that leaves a page and a neighbour fitting in half a page
 * merges them into the page it changed, which it owns: inserts split full
 * pages in halves, and without the merges inserts and deletes at random
 * places piled up nearly empty pages.  Pages stay a quarter full on
 * average, or more.
 *
 * A hook's entries are a sequence too, which an update builds anew rather
 * than changing a copy: it appends runs of the committed entries
 * (nfhp_pageseq_append_run()), sharing the pages a run covers whole and
 * copying the pointers of the pages at its ends, and the entries it
 * flattened afresh (nfhp_pageseq_append()).  At 170,000 entries a single-rule
 * update then copies two pages and a table of 380 slots, where it copied
 * an array of 1.4 MB.  A run shares pages in their order, each once, so
 * that nfhp_pageseq_succeed() still reads the two tables in step; a run that
 * goes back copies instead.
 *
 * Every operation but the appends allocates what it needs before it
 * changes anything, so one that fails with -ENOMEM leaves the sequence as
 * it was; an append of a run that fails leaves a part of the run.
 * Sequences are changed only on the control path, under its lock.
 * Packets read a hook's entries after a target changed the packet
 * (nfhp_classify_linear()), through a copy of the sequence published with
 * the trees: a committed sequence's table and pages do not change but for
 * the @own marks, which packets do not read, and those a commit replaced
 * are freed a grace period later, with the entries.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "pageseq.h"
#include "tunables.h"

static struct nfhp_pageseq_page *nfhp_pageseq_page_new(struct nfhp_mem *mem)
{
	struct nfhp_pageseq_page *pg = nfhp_alloc_uninit(mem, sizeof(*pg));

	if (pg)
		pg->n = 0;
	return pg;
}

/* Move @n pointers and their tags from @src at @j to @dst at @i. */
static void nfhp_pageseq_move(struct nfhp_pageseq_page *dst, u32 i,
			      const struct nfhp_pageseq_page *src, u32 j, u32 n)
{
	memmove(&dst->p[i], &src->p[j], n * sizeof(*dst->p));
	memmove(&dst->tag[i], &src->tag[j], n);
}

/* Drop slot @k's page, freeing it if @s owns it. */
static void nfhp_pageseq_page_drop(struct nfhp_mem *mem, struct nfhp_pageseq *s,
				   u32 k)
{
	if (s->slot[k].own)
		nfhp_free(mem, s->slot[k].page, sizeof(*s->slot[k].page));
}

/**
 * nfhp_pageseq_reserve() - make room in a sequence's table
 * @mem: the account
 * @s: the sequence
 * @need: pages the table is to have room for
 *
 * Appends grow the table as they need; a sequence about to be built to a
 * known size takes its room at once instead.
 *
 * Return: 0, or -ENOMEM with @s unchanged.
 */
int nfhp_pageseq_reserve(struct nfhp_mem *mem, struct nfhp_pageseq *s, u32 need)
{
	struct nfhp_pageseq_slot *slot;
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
static int nfhp_pageseq_own(struct nfhp_mem *mem, struct nfhp_pageseq *s, u32 k)
{
	struct nfhp_pageseq_page *pg = s->slot[k].page, *copy;

	if (s->slot[k].own)
		return 0;
	copy = nfhp_pageseq_page_new(mem);
	if (!copy)
		return -ENOMEM;
	copy->n = pg->n;
	nfhp_pageseq_move(copy, 0, pg, 0, pg->n);
	s->slot[k].page = copy;
	s->slot[k].own = 1;
	return 0;
}

/* Pages from @k on begin @delta later. */
static void nfhp_pageseq_starts(struct nfhp_pageseq *s, u32 k, int delta)
{
	for (; k < s->npages; k++)
		s->slot[k].start += delta;
}

/**
 * nfhp_pageseq_share() - make a copy of a sequence that shares its pages
 * @mem: the account
 * @to: the copy, overwritten
 * @from: the sequence; it must not change while the copy lives, and it
 *	must outlive the copy unless the copy succeeds it
 *
 * Return: 0, or -ENOMEM with @to empty.
 */
int nfhp_pageseq_share(struct nfhp_mem *mem, struct nfhp_pageseq *to,
		       const struct nfhp_pageseq *from)
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
 * nfhp_pageseq_succeed() - a copy takes over from its original
 * @to: the copy, made by nfhp_pageseq_share() of @from and changed since
 * @from: the original, to be freed after it
 *
 * @to takes over the pages of @from that it still holds, which it holds
 * in their order: it now owns every page it holds, and @from only those
 * @to replaced.  Only the two tables are read.
 */
void nfhp_pageseq_succeed(struct nfhp_pageseq *to, struct nfhp_pageseq *from)
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
 * nfhp_pageseq_free() - drop a sequence and free the pages it owns
 * @mem: the account
 * @s: the sequence, empty afterwards
 */
void nfhp_pageseq_free(struct nfhp_mem *mem, struct nfhp_pageseq *s)
{
	u32 k;

	for (k = 0; k < s->npages; k++)
		nfhp_pageseq_page_drop(mem, s, k);
	nfhp_free(mem, s->slot, s->cap * sizeof(*s->slot));
	memset(s, 0, sizeof(*s));
}

/* Append @p on a page of its own: appends fill pages whole. */
static int nfhp_pageseq_append_page(struct nfhp_mem *mem,
				    struct nfhp_pageseq *s,
				    void *p, u8 tag)
{
	struct nfhp_pageseq_page *pg;

	if (nfhp_pageseq_reserve(mem, s, s->npages + 1))
		return -ENOMEM;
	pg = nfhp_pageseq_page_new(mem);
	if (!pg)
		return -ENOMEM;
	pg->p[0] = p;
	pg->tag[0] = tag;
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
static int nfhp_pageseq_split(struct nfhp_mem *mem, struct nfhp_pageseq *s,
			      u32 k)
{
	struct nfhp_pageseq_page *pg = s->slot[k].page, *left, *right;
	u32 half = pg->n / 2;

	if (nfhp_pageseq_reserve(mem, s, s->npages + 1))
		return -ENOMEM;
	left = nfhp_pageseq_page_new(mem);
	right = nfhp_pageseq_page_new(mem);
	if (!left || !right) {
		nfhp_free(mem, left, sizeof(*left));
		nfhp_free(mem, right, sizeof(*right));
		return -ENOMEM;
	}
	left->n = half;
	nfhp_pageseq_move(left, 0, pg, 0, half);
	right->n = pg->n - half;
	nfhp_pageseq_move(right, 0, pg, half, right->n);
	nfhp_pageseq_page_drop(mem, s, k);
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
 * nfhp_pageseq_insert() - insert a pointer
 * @mem: the account
 * @s: the sequence
 * @i: its index once inserted, at most @s->n
 * @p: the pointer, tagged 0
 *
 * Return: 0, or -ENOMEM with @s unchanged.
 */
int nfhp_pageseq_insert(struct nfhp_mem *mem, struct nfhp_pageseq *s, u32 i,
			void *p)
{
	struct nfhp_pageseq_page *pg;
	u32 k, at;

	if (!s->npages ||
	    (i == s->n && s->slot[s->npages - 1].page->n >=
			  nfhp_tunables.page_fill))
		return nfhp_pageseq_append_page(mem, s, p, 0);
	k = nfhp_pageseq_find(s, i);
	if (s->slot[k].page->n >= nfhp_tunables.page_fill) {
		if (nfhp_pageseq_split(mem, s, k))
			return -ENOMEM;
		if (i > s->slot[k + 1].start)
			k++;
	} else if (nfhp_pageseq_own(mem, s, k)) {
		return -ENOMEM;
	}
	pg = s->slot[k].page;
	at = i - s->slot[k].start;
	nfhp_pageseq_move(pg, at + 1, pg, at, pg->n - at);
	pg->p[at] = p;
	pg->tag[at] = 0;
	pg->n++;
	nfhp_pageseq_starts(s, k + 1, 1);
	s->n++;
	return 0;
}

/**
 * nfhp_pageseq_append() - append a pointer
 * @mem: the account
 * @s: the sequence
 * @p: the pointer
 * @tag: its tag
 *
 * The last page takes it if @s owns it and it has room; a page @s shares
 * stays as it is, and a new one begins.
 *
 * Return: 0, or -ENOMEM with @s unchanged.
 */
int nfhp_pageseq_append(struct nfhp_mem *mem, struct nfhp_pageseq *s, void *p,
			u8 tag)
{
	struct nfhp_pageseq_slot *last = NULL;

	if (s->npages)
		last = &s->slot[s->npages - 1];
	if (!last || !last->own || last->page->n >= nfhp_tunables.page_fill)
		return nfhp_pageseq_append_page(mem, s, p, tag);
	last->page->p[last->page->n] = p;
	last->page->tag[last->page->n++] = tag;
	s->n++;
	return 0;
}

/*
 * May @s share the page of @from's slot @k, appending it whole?  Only in
 * the order of @from's pages, each once, for nfhp_pageseq_succeed(); and not
 * behind a page of its own that the page would fit in, so that a run of
 * small pieces does not leave as many small pages.
 */
static bool nfhp_pageseq_may_share(const struct nfhp_pageseq *s,
				   const struct nfhp_pageseq *from, u32 k)
{
	const struct nfhp_pageseq_slot *last = NULL;

	if (s->npages)
		last = &s->slot[s->npages - 1];
	if (k < s->shared)
		return false;
	return !last || !last->own ||
	       last->page->n + from->slot[k].page->n >
	       nfhp_tunables.page_fill;
}

/* Share @from's page @k at the end of @s. */
static int nfhp_pageseq_append_shared(struct nfhp_mem *mem,
				      struct nfhp_pageseq *s,
				      const struct nfhp_pageseq *from, u32 k)
{
	struct nfhp_pageseq_slot *slot;

	if (nfhp_pageseq_reserve(mem, s, s->npages + 1))
		return -ENOMEM;
	slot = &s->slot[s->npages++];
	slot->page = from->slot[k].page;
	slot->start = s->n;
	slot->own = 0;
	s->n += slot->page->n;
	s->shared = k + 1;
	return 0;
}

/**
 * nfhp_pageseq_append_run() - append a run of another sequence's pointers
 * @mem: the account
 * @s: the sequence
 * @from: the other sequence; it must outlive @s unless @s succeeds it
 *	(nfhp_pageseq_succeed())
 * @i: where the run begins in @from
 * @n: its length, @i + @n at most @from->n
 *
 * The pages of @from that the run covers whole are shared, not copied,
 * where nfhp_pageseq_may_share() allows; the pointers of the others are
 * appended one by one, with their tags.
 *
 * Return: 0, or -ENOMEM with @s holding a part of the run.
 */
int nfhp_pageseq_append_run(struct nfhp_mem *mem, struct nfhp_pageseq *s,
			    const struct nfhp_pageseq *from, u32 i, u32 n)
{
	const struct nfhp_pageseq_page *pg;
	u32 end = i + n, k, at, take, x;
	int err;

	if (!n)
		return 0;
	for (k = nfhp_pageseq_find(from, i); i < end; k++) {
		pg = from->slot[k].page;
		at = i - from->slot[k].start;
		take = min_t(u32, pg->n - at, end - i);
		if (!at && take == pg->n &&
		    nfhp_pageseq_may_share(s, from, k)) {
			err = nfhp_pageseq_append_shared(mem, s, from, k);
			if (err)
				return err;
		} else {
			for (x = at; x < at + take; x++) {
				err = nfhp_pageseq_append(mem, s, pg->p[x],
							  pg->tag[x]);
				if (err)
					return err;
			}
		}
		i += take;
	}
	return 0;
}

/**
 * nfhp_pageseq_truncate() - keep only the first pointers
 * @mem: the account
 * @s: the sequence
 * @n: how many to keep, at most @s->n; the page that holds index @n must
 *	be @s's own unless it begins there
 */
void nfhp_pageseq_truncate(struct nfhp_mem *mem, struct nfhp_pageseq *s, u32 n)
{
	u32 k;

	while (s->npages && s->slot[s->npages - 1].start >= n) {
		nfhp_pageseq_page_drop(mem, s, s->npages - 1);
		s->npages--;
	}
	s->n = n;
	if (!s->npages)
		return;
	k = s->npages - 1;
	if (s->slot[k].start + s->slot[k].page->n != n &&
	    !WARN_ON_ONCE(!s->slot[k].own))
		s->slot[k].page->n = n - s->slot[k].start;
}

/* Take slot @k out of @s's table, freeing its page if @s owns it. */
static void nfhp_pageseq_slot_drop(struct nfhp_mem *mem, struct nfhp_pageseq *s,
				   u32 k)
{
	nfhp_pageseq_page_drop(mem, s, k);
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
static void nfhp_pageseq_merge(struct nfhp_mem *mem, struct nfhp_pageseq *s,
			       u32 k)
{
	struct nfhp_pageseq_page *pg = s->slot[k].page, *nb;
	u32 j;

	if (k + 1 < s->npages &&
	    pg->n + s->slot[k + 1].page->n <= nfhp_tunables.page_fill / 2)
		j = k + 1;
	else if (k &&
		 pg->n + s->slot[k - 1].page->n <= nfhp_tunables.page_fill / 2)
		j = k - 1;
	else
		return;
	nb = s->slot[j].page;
	if (j > k) {
		nfhp_pageseq_move(pg, pg->n, nb, 0, nb->n);
	} else {
		nfhp_pageseq_move(pg, nb->n, pg, 0, pg->n);
		nfhp_pageseq_move(pg, 0, nb, 0, nb->n);
		s->slot[k].start = s->slot[j].start;
	}
	pg->n += nb->n;
	nfhp_pageseq_slot_drop(mem, s, j);
}

/**
 * nfhp_pageseq_delete() - take out a pointer
 * @mem: the account
 * @s: the sequence
 * @i: its index, below @s->n
 *
 * Return: 0, or -ENOMEM with @s unchanged.
 */
int nfhp_pageseq_delete(struct nfhp_mem *mem, struct nfhp_pageseq *s, u32 i)
{
	u32 k = nfhp_pageseq_find(s, i), at = i - s->slot[k].start;
	struct nfhp_pageseq_page *pg = s->slot[k].page;

	if (pg->n == 1) {
		nfhp_pageseq_slot_drop(mem, s, k);
		nfhp_pageseq_starts(s, k, -1);
		s->n--;
		return 0;
	}
	if (nfhp_pageseq_own(mem, s, k))
		return -ENOMEM;
	pg = s->slot[k].page;
	nfhp_pageseq_move(pg, at, pg, at + 1, pg->n - at - 1);
	pg->n--;
	nfhp_pageseq_starts(s, k + 1, -1);
	s->n--;
	nfhp_pageseq_merge(mem, s, k);
	return 0;
}

/**
 * nfhp_pageseq_set() - replace a pointer
 * @mem: the account
 * @s: the sequence
 * @i: its index, below @s->n
 * @p: the new pointer, which keeps the old one's tag
 *
 * Return: 0, or -ENOMEM with @s unchanged.
 */
int nfhp_pageseq_set(struct nfhp_mem *mem, struct nfhp_pageseq *s, u32 i,
		     void *p)
{
	u32 k = nfhp_pageseq_find(s, i);

	if (nfhp_pageseq_own(mem, s, k))
		return -ENOMEM;
	s->slot[k].page->p[i - s->slot[k].start] = p;
	return 0;
}

/**
 * nfhp_pageseq_same_len() - how many pointers two runs have in common
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
u32 nfhp_pageseq_same_len(const struct nfhp_pageseq *a, u32 i,
			  const struct nfhp_pageseq *b, u32 j, u32 most)
{
	const struct nfhp_pageseq_slot *sa, *sb;
	u32 len = 0, oa, ob, run, x;

	while (len < most) {
		sa = &a->slot[nfhp_pageseq_find(a, i + len)];
		sb = &b->slot[nfhp_pageseq_find(b, j + len)];
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
