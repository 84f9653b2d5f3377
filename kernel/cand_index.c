// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the index that finds an update's candidates, see cand_index.h.
 *
 * An address hull (struct nfhp_entry_sum, cut to 32 bits) is narrow when
 * it spans fewer than NFHP_CAND_INDEX_SPAN values.  A list sorted by where
 * the narrow hulls of one dimension begin answers a query there by
 * reading only the entries that begin between NFHP_CAND_INDEX_SPAN before
 * the query's hull and its end: no entry beginning earlier reaches into
 * it.  So each entry goes by the dimensions it is narrow in:
 *
 * - narrow in both: into a list by source and a list by destination, and
 *   a query reads the one of its narrower dimension;
 * - narrow in the source only: a list by source;
 * - narrow in the destination only: a list by destination;
 * - wide in both: a list every query reads whole.
 *
 * There are these four kinds of list for each group of entries (each tree
 * of the hook), and a query reads those of the changed entry's group.
 *
 * Example: for the query 10.1.2.0/24 -> any, [0x0a010200, 0x0a0102ff]
 * in the source, the first two lists are read by source from 0x0a000201
 * to 0x0a0102ff (the entries beginning inside 10.0.2.1 .. 10.1.2.255);
 * the third by destination, whole, as a wide query dimension must; the
 * last whole.  The entries found whose hulls meet the query's in both
 * dimensions are reported.  At ClassBench's 100k sets a query reads 5 to
 * 30 entries on average, where the scan read 75,000 to 160,000 of the
 * changed entry's group.
 *
 * The lists are arrays of blocks of up to NFHP_CAND_INDEX_BLOCK items,
 * sorted across blocks: an insert or delete moves items within one block
 * (4 KB on average) and a block pointer at most, where one sorted array of
 * 100,000 entries would move 3 MB.
 */
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "cand_index.h"
#include "match.h"

/**
 * nfhp_entry_sum_fill() - the summary of an entry
 * @sum: filled in
 * @box: the entry's box
 */
void nfhp_entry_sum_fill(struct nfhp_entry_sum *sum,
			 const struct nfhp_box *box)
{
	static const u8 dims[2] = { NFHP_DIM_SRC, NFHP_DIM_DST };
	const struct nfhp_range *r;
	unsigned int i, n, cut;

	for (i = 0; i < ARRAY_SIZE(dims); i++) {
		n = nfhp_box_nranges(box, dims[i]);
		cut = nfhp_dim_bits(box->family, dims[i]) - 32;
		r = nfhp_box_ranges(box, dims[i]);
		sum->lo[i] = n ? r[0].lo >> cut : 0;
		sum->hi[i] = n ? r[n - 1].hi >> cut : U32_MAX;
	}
}

/* Hulls narrower than this (a /16) are kept sorted by their start. */
#define NFHP_CAND_INDEX_SPAN	BIT(16)

/**
 * struct nfhp_cand_index_item - an entry in the index
 * @sum: its summary, so that a query need not read the entry
 * @e: the entry
 */
struct nfhp_cand_index_item {
	struct nfhp_entry_sum sum;
	const struct nfhp_entry *e;
};

/* A block and its header fill one 8 KB allocation. */
#define NFHP_CAND_INDEX_BLOCK						\
	((8192 - sizeof(unsigned long)) / sizeof(struct nfhp_cand_index_item))
/* A built index fills its blocks this far: inserts then rarely split. */
#define NFHP_CAND_INDEX_FILL	(NFHP_CAND_INDEX_BLOCK * 3 / 4)

/**
 * struct nfhp_cand_index_block - consecutive items of a list
 * @n: items in @item
 * @item: the items, by key
 */
struct nfhp_cand_index_block {
	unsigned long n;
	struct nfhp_cand_index_item item[NFHP_CAND_INDEX_BLOCK];
};

/*
 * The lists, see struct nfhp_cand_index: both narrow by source, both narrow
 * by destination, narrow in the source only, in the destination only,
 * wide in both.
 */
enum {
	NFHP_CAND_INDEX_NN_SRC,
	NFHP_CAND_INDEX_NN_DST,
	NFHP_CAND_INDEX_NW,
	NFHP_CAND_INDEX_WN,
	NFHP_CAND_INDEX_WW,
};

/* The dimension each list is sorted by; the wide list has none. */
static const u8 nfhp_cand_index_dim[NFHP_CAND_LISTS] = { 0, 1, 0, 1, 2 };

static bool nfhp_cand_index_narrow(const struct nfhp_entry_sum *sum,
				   unsigned int dim)
{
	return sum->hi[dim] - sum->lo[dim] < NFHP_CAND_INDEX_SPAN;
}

/* The lists that hold an entry with summary @sum, as bits. */
static unsigned int nfhp_cand_index_lists(const struct nfhp_entry_sum *sum)
{
	bool src = nfhp_cand_index_narrow(sum, 0);
	bool dst = nfhp_cand_index_narrow(sum, 1);

	if (src && dst)
		return BIT(NFHP_CAND_INDEX_NN_SRC) |
		       BIT(NFHP_CAND_INDEX_NN_DST);
	if (src)
		return 1u << NFHP_CAND_INDEX_NW;
	return 1u << (dst ? NFHP_CAND_INDEX_WN : NFHP_CAND_INDEX_WW);
}

/* The key of @sum in list @l: 0 in the wide list, whose items have no order. */
static u32 nfhp_cand_index_key(unsigned int l, const struct nfhp_entry_sum *sum)
{
	unsigned int dim = nfhp_cand_index_dim[l];

	return dim < 2 ? sum->lo[dim] : 0;
}

/*
 * The first item of list @l whose key is at least @key: block *@bi, item
 * *@ii; *@bi is the number of blocks when there is none.
 */
static void nfhp_cand_index_lower(const struct nfhp_cand_index_list *list,
				  unsigned int l, u32 key, unsigned int *bi,
			       unsigned int *ii)
{
	unsigned int lo = 0, hi = list->nblocks, mid;
	const struct nfhp_cand_index_block *b;

	/* The first block whose last key is at least @key. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		b = list->block[mid];
		if (nfhp_cand_index_key(l, &b->item[b->n - 1].sum) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	*bi = lo;
	*ii = 0;
	if (lo == list->nblocks)
		return;
	b = list->block[lo];
	hi = b->n;
	lo = 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (nfhp_cand_index_key(l, &b->item[mid].sum) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	*ii = lo;
}

/* Put a new empty block at position @bi of @list. */
static struct nfhp_cand_index_block *
nfhp_cand_index_insert_block(struct nfhp_mem *mem,
			     struct nfhp_cand_index_list *list, unsigned int bi)
{
	struct nfhp_cand_index_block *b, **dir;
	unsigned int cap;

	if (list->nblocks == list->cap) {
		cap = list->cap ? 2 * list->cap : 8;
		dir = nfhp_alloc_uninit(mem, cap * sizeof(*dir));
		if (!dir)
			return NULL;
		if (list->nblocks)
			memcpy(dir, list->block, list->nblocks * sizeof(*dir));
		nfhp_free(mem, list->block, list->cap * sizeof(*dir));
		list->block = dir;
		list->cap = cap;
	}
	b = nfhp_alloc_uninit(mem, sizeof(*b));
	if (!b)
		return NULL;
	b->n = 0;
	memmove(list->block + bi + 1, list->block + bi,
		(list->nblocks - bi) * sizeof(*list->block));
	list->block[bi] = b;
	list->nblocks++;
	return b;
}

static void nfhp_cand_index_remove_block(struct nfhp_mem *mem,
					 struct nfhp_cand_index_list *list,
				      unsigned int bi)
{
	nfhp_free(mem, list->block[bi], sizeof(*list->block[bi]));
	list->nblocks--;
	memmove(list->block + bi, list->block + bi + 1,
		(list->nblocks - bi) * sizeof(*list->block));
}

/* List @i of all the lists of @x, group by group. */
static struct nfhp_cand_index_list *
nfhp_cand_index_list_at(struct nfhp_cand_index *x, unsigned int i)
{
	return &x->list[i / NFHP_CAND_LISTS][i % NFHP_CAND_LISTS];
}

/**
 * nfhp_cand_index_clear() - empty an index and mark it invalid
 * @mem: the account its memory is on
 * @x: the index
 */
void nfhp_cand_index_clear(struct nfhp_mem *mem, struct nfhp_cand_index *x)
{
	struct nfhp_cand_index_list *list;
	unsigned int i;

	for (i = 0; i < NFHP_HOOK_TREES * NFHP_CAND_LISTS; i++) {
		list = nfhp_cand_index_list_at(x, i);
		while (list->nblocks)
			nfhp_cand_index_remove_block(mem, list,
						     list->nblocks - 1);
		nfhp_free(mem, list->block, list->cap * sizeof(*list->block));
		memset(list, 0, sizeof(*list));
	}
	x->valid = false;
}

/* Add an entry to @list, list @l of its group. */
static int nfhp_cand_index_list_add(struct nfhp_mem *mem,
				    struct nfhp_cand_index_list *list,
				    unsigned int l,
				 const struct nfhp_entry *e,
				 const struct nfhp_entry_sum *sum)
{
	struct nfhp_cand_index_block *b, *next;
	unsigned int bi, ii, half;

	nfhp_cand_index_lower(list, l, nfhp_cand_index_key(l, sum), &bi, &ii);
	if (bi == list->nblocks) {
		/* After every key: the end of the last block. */
		if (!bi || list->block[bi - 1]->n == NFHP_CAND_INDEX_BLOCK) {
			if (!nfhp_cand_index_insert_block(mem, list, bi))
				return -ENOMEM;
			ii = 0;
		} else {
			bi--;
			ii = list->block[bi]->n;
		}
	}
	b = list->block[bi];
	if (b->n == NFHP_CAND_INDEX_BLOCK) {
		next = nfhp_cand_index_insert_block(mem, list, bi + 1);
		if (!next)
			return -ENOMEM;
		half = b->n / 2;
		memcpy(next->item, b->item + half,
		       (b->n - half) * sizeof(*b->item));
		next->n = b->n - half;
		b->n = half;
		if (ii > half) {
			b = next;
			ii -= half;
		}
	}
	memmove(b->item + ii + 1, b->item + ii,
		(b->n - ii) * sizeof(*b->item));
	b->item[ii].sum = *sum;
	b->item[ii].e = e;
	b->n++;
	return 0;
}

/* Take an entry out of @list, list @l of its group; false: not there. */
static bool nfhp_cand_index_list_del(struct nfhp_mem *mem,
				     struct nfhp_cand_index_list *list,
				  unsigned int l, const struct nfhp_entry *e,
				  const struct nfhp_entry_sum *sum)
{
	unsigned int bi, ii;
	u32 key = nfhp_cand_index_key(l, sum);
	struct nfhp_cand_index_block *b;

	nfhp_cand_index_lower(list, l, key, &bi, &ii);
	for (; bi < list->nblocks; bi++, ii = 0) {
		b = list->block[bi];
		for (; ii < b->n; ii++) {
			if (nfhp_cand_index_key(l, &b->item[ii].sum) != key)
				return false;
			if (b->item[ii].e != e)
				continue;
			b->n--;
			memmove(b->item + ii, b->item + ii + 1,
				(b->n - ii) * sizeof(*b->item));
			if (!b->n)
				nfhp_cand_index_remove_block(mem, list, bi);
			return true;
		}
	}
	return false;
}

/**
 * nfhp_cand_index_add() - add an entry to an index
 * @mem: the account of the index
 * @x: the index
 * @g: the entry's group (its tree)
 * @e: the entry
 * @sum: its summary
 *
 * Return: 0 or -ENOMEM.  On failure the index is in no state to use: the
 * caller clears it.
 */
int nfhp_cand_index_add(struct nfhp_mem *mem, struct nfhp_cand_index *x,
			unsigned int g, const struct nfhp_entry *e,
		     const struct nfhp_entry_sum *sum)
{
	unsigned int lists = nfhp_cand_index_lists(sum), l;
	int err = 0;

	for (l = 0; l < NFHP_CAND_LISTS && !err; l++)
		if (lists & (1u << l))
			err = nfhp_cand_index_list_add(mem, &x->list[g][l], l,
						       e, sum);
	return err;
}

/**
 * nfhp_cand_index_del() - take an entry out of an index
 * @mem: the account of the index
 * @x: the index
 * @g: the entry's group
 * @e: the entry
 * @sum: its summary, as it was added
 *
 * Return: whether the entry was there.
 */
bool nfhp_cand_index_del(struct nfhp_mem *mem, struct nfhp_cand_index *x,
			 unsigned int g, const struct nfhp_entry *e,
		      const struct nfhp_entry_sum *sum)
{
	unsigned int lists = nfhp_cand_index_lists(sum), l;
	bool found = true;

	for (l = 0; l < NFHP_CAND_LISTS; l++)
		if (lists & (1u << l))
			found &= nfhp_cand_index_list_del(mem, &x->list[g][l],
							  l, e, sum);
	return found;
}

static int nfhp_cand_index_cmp_src(const void *a, const void *b)
{
	const struct nfhp_cand_index_item *x = a, *y = b;

	return x->sum.lo[0] < y->sum.lo[0] ? -1 : x->sum.lo[0] > y->sum.lo[0];
}

static int nfhp_cand_index_cmp_dst(const void *a, const void *b)
{
	const struct nfhp_cand_index_item *x = a, *y = b;

	return x->sum.lo[1] < y->sum.lo[1] ? -1 : x->sum.lo[1] > y->sum.lo[1];
}

/* Fill list @l from @n items sorted by its key, blocks filled partly. */
static int nfhp_cand_index_fill(struct nfhp_mem *mem,
				struct nfhp_cand_index_list *list,
			     const struct nfhp_cand_index_item *item,
			     unsigned int n)
{
	struct nfhp_cand_index_block *b;
	unsigned int i, take;

	for (i = 0; i < n; i += take) {
		b = nfhp_cand_index_insert_block(mem, list, list->nblocks);
		if (!b)
			return -ENOMEM;
		take = min_t(unsigned int, n - i, NFHP_CAND_INDEX_FILL);
		memcpy(b->item, item + i, take * sizeof(*item));
		b->n = take;
	}
	return 0;
}

/**
 * nfhp_cand_index_build() - fill an empty index with a hook's entries
 * @mem: the account of the index
 * @x: the index, empty
 * @e: the entries, each tagged with its group
 * @n: how many of them to index, from the first
 *
 * The summaries come from the entries' boxes: one read of each.
 *
 * Return: 0, the index then valid, or -ENOMEM, the index then empty.
 */
int nfhp_cand_index_build(struct nfhp_mem *mem, struct nfhp_cand_index *x,
			  const struct nfhp_pageseq *e, unsigned int n)
{
	static int (*const cmp[2])(const void *, const void *) = {
		nfhp_cand_index_cmp_src, nfhp_cand_index_cmp_dst,
	};
	/* Items of list l of group g start at @at[g * LISTS + l]. */
	unsigned int at[NFHP_HOOK_TREES * NFHP_CAND_LISTS + 1] = {};
	unsigned int i, l, lists, dim, end, start = 0;
	struct nfhp_cand_index_item *item;
	const struct nfhp_entry *item_e;
	struct nfhp_entry_sum *sum;
	struct nfhp_pageseq_iter it;
	int err = 0;

	sum = kvmalloc_array(n, sizeof(*sum), GFP_KERNEL);
	if (!sum && n)
		return -ENOMEM;
	nfhp_pageseq_iter_init(&it, e, 0);
	for (i = 0; i < n; i++) {
		item_e = nfhp_pageseq_iter_next(&it);
		nfhp_entry_sum_fill(&sum[i], item_e->box);
		lists = nfhp_cand_index_lists(&sum[i]);
		for (l = 0; l < NFHP_CAND_LISTS; l++)
			at[it.tag * NFHP_CAND_LISTS + l] +=
				!!(lists & (1u << l));
	}
	for (i = 0; i < ARRAY_SIZE(at); i++) {
		end = start + at[i];
		at[i] = start;
		start = end;
	}
	item = kvmalloc_array(start, sizeof(*item), GFP_KERNEL);
	if (!item && start) {
		kvfree(sum);
		return -ENOMEM;
	}
	nfhp_pageseq_iter_init(&it, e, 0);
	for (i = 0; i < n; i++) {
		lists = nfhp_cand_index_lists(&sum[i]);
		item_e = nfhp_pageseq_iter_next(&it);
		for (l = 0; l < NFHP_CAND_LISTS; l++) {
			if (!(lists & (1u << l)))
				continue;
			end = at[it.tag * NFHP_CAND_LISTS + l]++;
			item[end].sum = sum[i];
			item[end].e = item_e;
		}
	}
	/* Each @at now holds where the next list starts. */
	for (i = 0, start = 0; i + 1 < ARRAY_SIZE(at) && !err; i++) {
		dim = nfhp_cand_index_dim[i % NFHP_CAND_LISTS];
		/* The wide list has no key: it stays in the entries' order. */
		if (dim < 2)
			sort(item + start, at[i] - start, sizeof(*item),
			     cmp[dim], NULL);
		err = nfhp_cand_index_fill(mem, nfhp_cand_index_list_at(x, i),
					   item + start, at[i] - start);
		start = at[i];
	}
	kvfree(item);
	kvfree(sum);
	if (err)
		nfhp_cand_index_clear(mem, x);
	else
		x->valid = true;
	return err;
}

/* Report the items of list @l from key @from to key @to meeting @q. */
static void nfhp_cand_index_range(const struct nfhp_cand_index_list *list,
				  unsigned int l, u32 from, u32 to,
			       const struct nfhp_entry_sum *q,
			       nfhp_cand_index_fn fn, void *arg)
{
	const struct nfhp_cand_index_block *b;
	unsigned int bi, ii;

	nfhp_cand_index_lower(list, l, from, &bi, &ii);
	for (; bi < list->nblocks; bi++, ii = 0) {
		b = list->block[bi];
		for (; ii < b->n; ii++) {
			if (nfhp_cand_index_key(l, &b->item[ii].sum) > to)
				return;
			if (nfhp_entry_sum_meet(&b->item[ii].sum, q))
				fn(arg, b->item[ii].e, &b->item[ii].sum);
		}
	}
}

/* Report the items of list @l that may meet @q and do, see the top. */
static void nfhp_cand_index_window(const struct nfhp_cand_index_list *list,
				   unsigned int l,
				   const struct nfhp_entry_sum *q,
				nfhp_cand_index_fn fn, void *arg)
{
	unsigned int dim = nfhp_cand_index_dim[l];
	u32 from;

	if (dim == 2) {
		nfhp_cand_index_range(list, l, 0, 0, q, fn, arg);
		return;
	}
	from = q->lo[dim] >= NFHP_CAND_INDEX_SPAN ?
	       q->lo[dim] - NFHP_CAND_INDEX_SPAN + 1 : 0;
	nfhp_cand_index_range(list, l, from, q->hi[dim], q, fn, arg);
}

/**
 * nfhp_cand_index_query() - the entries of a group whose hulls meet a summary's
 * @x: a valid index
 * @g: the group
 * @q: the summary of the changed box
 * @fn: called for each entry found, once, in no particular order
 * @arg: its first argument
 */
void nfhp_cand_index_query(const struct nfhp_cand_index *x, unsigned int g,
			   const struct nfhp_entry_sum *q,
			   nfhp_cand_index_fn fn,
			void *arg)
{
	const struct nfhp_cand_index_list *list = x->list[g];
	unsigned int l;

	/* The entries narrow in both: by the query's narrower dimension. */
	if (q->hi[0] - q->lo[0] <= q->hi[1] - q->lo[1])
		l = NFHP_CAND_INDEX_NN_SRC;
	else
		l = NFHP_CAND_INDEX_NN_DST;
	nfhp_cand_index_window(&list[l], l, q, fn, arg);
	for (l = NFHP_CAND_INDEX_NW; l < NFHP_CAND_LISTS; l++)
		nfhp_cand_index_window(&list[l], l, q, fn, arg);
}
