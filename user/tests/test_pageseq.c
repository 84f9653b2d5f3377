// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the shared-page sequences (pageseq.c) against plain
 * arrays, as the rule set uses them: a committed sequence, a copy of it
 * that takes random inserts, deletes and replacements, some failed by
 * injected allocation failures, and is then committed (it succeeds the
 * original, which is freed some commits later, as a grace period would)
 * or dropped.  Every sequence alive is compared with its array after
 * every step.  Built with ASan and UBSan: a page freed while a sequence
 * still holds it shows.
 */
#include <stdlib.h>
#include <string.h>

#include "pageseq.h"
#include "tunables.h"
#include "tap.h"

#define MAX_LEN		3000
#define GRACE		3

struct model {
	struct nfhp_pageseq s;
	void *a[MAX_LEN];
	u8 tag[MAX_LEN];
	u32 n;
};

static u64 rnd_state = 0x243F6A8885A308D3ull;
/* Share of the changes that delete, in tenths: phases of growth and decay. */
static u32 deletes = 4;

static u32 rnd(u32 n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return n ? rnd_state % n : 0;
}

/* The sequence holds the array, and its table is consistent. */
static bool same(const struct model *m)
{
	u32 i, k, start = 0;

	if (m->s.n != m->n)
		return false;
	for (k = 0; k < m->s.npages; k++) {
		if (m->s.slot[k].start != start || !m->s.slot[k].page->n ||
		    m->s.slot[k].page->n > nfhp_tunables.page_fill)
			return false;
		start += m->s.slot[k].page->n;
	}
	/* Merges keep pages at a quarter full on average, or more. */
	if (start != m->n ||
	    m->s.npages > 2 + m->n / max(nfhp_tunables.page_fill / 4, 1u))
		return false;
	for (i = 0; i < m->n; i++)
		if (nfhp_pageseq_get(&m->s, i) != m->a[i] ||
		    nfhp_pageseq_tag(&m->s, i) != m->tag[i])
			return false;
	return true;
}

static void *value(void)
{
	return (void *)(unsigned long)(8 * (rnd(1u << 20) + 1));
}

/* One random change of @m; false when an injected failure stopped it. */
static bool change(struct nfhp_mem *mem, struct model *m, bool fail)
{
	u32 i, op = rnd(10);
	void *p = value();
	int err;

	if (fail)
		nfhp_shim_fail_countdown = 1 + rnd(3);
	if (m->n == MAX_LEN || (m->n && op < deletes)) {
		i = rnd(m->n);
		err = nfhp_pageseq_delete(mem, &m->s, i);
		if (!err) {
			memmove(&m->a[i], &m->a[i + 1],
				(m->n - i - 1) * sizeof(*m->a));
			memmove(&m->tag[i], &m->tag[i + 1], m->n - i - 1);
			m->n--;
		}
	} else if (m->n && op < deletes + 1) {
		i = rnd(m->n);
		err = nfhp_pageseq_set(mem, &m->s, i, p);
		if (!err)
			m->a[i] = p;
	} else {
		/* Appends as often as inserts: they fill pages whole. */
		i = op < deletes + 3 ? m->n : rnd(m->n + 1);
		err = nfhp_pageseq_insert(mem, &m->s, i, p);
		if (!err) {
			memmove(&m->a[i + 1], &m->a[i],
				(m->n - i) * sizeof(*m->a));
			memmove(&m->tag[i + 1], &m->tag[i], m->n - i);
			m->a[i] = p;
			m->tag[i] = 0;
			m->n++;
		}
	}
	nfhp_shim_fail_countdown = 0;
	return !err;
}

/* Append @n pointers of @from's run at @i to @to, as far as it got. */
static int keep_run(struct nfhp_mem *mem, struct model *to,
		    const struct model *from, u32 i, u32 n, bool fail)
{
	u32 n0 = to->s.n;
	int err;

	if (fail)
		nfhp_shim_fail_countdown = 1 + rnd(3);
	err = nfhp_pageseq_append_run(mem, &to->s, &from->s, i, n);
	nfhp_shim_fail_countdown = 0;
	memcpy(to->a + to->n, from->a + i, (to->s.n - n0) * sizeof(*to->a));
	memcpy(to->tag + to->n, from->tag + i, to->s.n - n0);
	to->n = to->s.n;
	return err;
}

/*
 * Build @to anew from @from as a walking update builds a hook's entries:
 * runs of @from kept, some left out, new pointers between them, now and
 * then a run again out of order (copied, not shared), and new pointers
 * appended and taken back (nfhp_pageseq_truncate()).  Return: 0 or -ENOMEM.
 */
static int rebuild(struct nfhp_mem *mem, struct model *to,
		   const struct model *from, bool fail)
{
	u32 i = 0, len, k, x, op;
	void *p;
	int err = 0;

	while (i < from->n && !err) {
		op = rnd(20);
		len = 1 + rnd(min(from->n - i, 2u * NFHP_PAGESEQ_PAGE));
		if (to->n + len + 8 > MAX_LEN)
			break;
		if (op < 12) {
			err = keep_run(mem, to, from, i, len, fail && !rnd(8));
			i += len;
		} else if (op < 15) {
			i += 1 + rnd(4);
		} else if (op < 18) {
			p = value();
			x = rnd(256);
			err = nfhp_pageseq_append(mem, &to->s, p, x);
			if (!err) {
				to->tag[to->n] = x;
				to->a[to->n++] = p;
			}
		} else if (op < 19) {
			x = rnd(i + 1);
			err = keep_run(mem, to, from, x, min(len, from->n - x),
				       false);
		} else {
			k = to->n;
			for (x = rnd(600); x && !err; x--)
				err = nfhp_pageseq_append(mem, &to->s, value(), 1);
			if (!err)
				nfhp_pageseq_truncate(mem, &to->s, k);
			to->n = to->s.n;
		}
	}
	return err;
}

/* The models the test keeps: committed, staged, and those awaiting free. */
struct family {
	struct model *live;
	struct model *staged;
	struct model *old[GRACE];
	unsigned int nold;
};

static struct model *model_new(void)
{
	return calloc(1, sizeof(struct model));
}

static void model_free(struct nfhp_mem *mem, struct model *m)
{
	nfhp_pageseq_free(mem, &m->s);
	free(m);
}

/* The oldest original a commit left is freed. */
static void release(struct nfhp_mem *mem, struct family *f)
{
	model_free(mem, f->old[0]);
	memmove(&f->old[0], &f->old[1], --f->nold * sizeof(*f->old));
}

/* One step of the transactions; false when it found a difference. */
static bool step(struct nfhp_mem *mem, struct family *f, int *failed,
		 int *commits, int *rebuilds)
{
	unsigned int i;

	if (!f->staged && !rnd(3)) {
		f->staged = model_new();
		*rebuilds += !rebuild(mem, f->staged, f->live, !rnd(4));
	} else if (!f->staged) {
		f->staged = model_new();
		if (nfhp_pageseq_share(mem, &f->staged->s, &f->live->s)) {
			free(f->staged);
			f->staged = NULL;
			return true;
		}
		memcpy(f->staged->a, f->live->a, f->live->n * sizeof(void *));
		memcpy(f->staged->tag, f->live->tag, f->live->n);
		f->staged->n = f->live->n;
	} else if (!rnd(40)) {
		model_free(mem, f->staged);
		f->staged = NULL;
	} else if (!rnd(20)) {
		nfhp_pageseq_succeed(&f->staged->s, &f->live->s);
		if (f->nold == GRACE)
			release(mem, f);
		f->old[f->nold++] = f->live;
		f->live = f->staged;
		f->staged = NULL;
		(*commits)++;
	} else if (!change(mem, f->staged, !rnd(4))) {
		(*failed)++;
	}
	if (!rnd(10) && f->nold)
		release(mem, f);
	for (i = 0; i < f->nold; i++)
		if (!same(f->old[i]))
			return false;
	return same(f->live) && (!f->staged || same(f->staged));
}

static void test_random(u32 page)
{
	struct nfhp_mem mem = { .limit = ~0ull };
	struct family f = { .live = model_new() };
	int i, wrong = 0, failed = 0, commits = 0, rebuilds = 0;
	u32 lens = 0;

	nfhp_tunables.page_fill = page;
	for (i = 0; i < 100000 && !wrong; i++) {
		if (!(i % 5000))
			deletes = deletes == 2 ? 6 : 2;
		wrong += !step(&mem, &f, &failed, &commits, &rebuilds);
		lens = max(lens, f.live->n);
	}
	check(!wrong && failed > 100 && commits > 500 && rebuilds > 200 &&
	      lens > 2 * NFHP_PAGESEQ_PAGE,
	      "pages of %u: 100,000 steps, %d commits, %d copies built of "
	      "runs, %d changes failed by ENOMEM, up to %u pointers: %d wrong",
	      page, commits, rebuilds, failed, lens, wrong);
	while (f.nold)
		release(&mem, &f);
	if (f.staged)
		model_free(&mem, f.staged);
	model_free(&mem, f.live);
	check(!mem.used, "every page and table returned");
}

/* The worked example of DOC: Sequences in pageseq.c. */
static void test_example(void)
{
	struct nfhp_mem mem = { .limit = ~0ull };
	struct nfhp_pageseq a = {}, b;
	u32 i;

	for (i = 0; i < 600; i++)
		nfhp_pageseq_insert(&mem, &a, i, (void *)(8ul * i + 8));
	check(a.npages == 2 && a.slot[1].start == 454,
	      "600 pointers: two pages");
	nfhp_pageseq_share(&mem, &b, &a);
	nfhp_pageseq_insert(&mem, &b, 100, (void *)8);
	check(b.npages == 3 && b.slot[1].start == 228 &&
	      b.slot[2].start == 455 && b.slot[2].page == a.slot[1].page &&
	      b.slot[0].own &&
	      b.slot[1].own && !b.slot[2].own,
	      "an insert splits the first page, the second stays shared");
	check(nfhp_pageseq_get(&b, 100) == (void *)8 &&
	      nfhp_pageseq_get(&b, 101) == nfhp_pageseq_get(&a, 100) &&
	      nfhp_pageseq_get(&b, 600) == nfhp_pageseq_get(&a, 599),
	      "the copy reads as the original with one more");
	check(nfhp_pageseq_same_len(&a, 0, &b, 0, 600) == 100 &&
	      nfhp_pageseq_same_len(&a, 100, &b, 101, 500) == 500,
	      "common runs: 100 before the insert, 500 after it");
	nfhp_pageseq_succeed(&b, &a);
	check(b.slot[2].own && a.slot[0].own && !a.slot[1].own,
	      "the copy takes over the page it holds, the original keeps one");
	nfhp_pageseq_free(&mem, &a);
	check(mem.used == sizeof(*b.slot) * b.cap +
			  3 * sizeof(struct nfhp_pageseq_page),
	      "freeing the original leaves the copy's three pages");
	nfhp_pageseq_free(&mem, &b);
	check(!mem.used, "both freed");
}

int main(void)
{
	test_example();
	test_random(NFHP_PAGESEQ_PAGE);
	/* Pages of a few pointers: many pages, splits and merges. */
	test_random(7);
	nfhp_tunables.page_fill = NFHP_PAGESEQ_PAGE;
	printf("%d passed, %d failed\n", tests - failures, failures);
	return failures ? 1 : 0;
}
