/* SPDX-License-Identifier: GPL-2.0 */
/* The few bitmap helpers of <linux/bitmap.h> the core uses. */
#ifndef _NFHP_SHIM_BITMAP_H
#define _NFHP_SHIM_BITMAP_H

#include "../shim.h"

static inline unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t gfp)
{
	return kcalloc(BITS_TO_LONGS(nbits) ?: 1, sizeof(long), gfp);
}

static inline void bitmap_free(const unsigned long *map)
{
	free((void *)map);
}

static inline void bitmap_fill(unsigned long *map, unsigned int nbits)
{
	memset(map, 0xff, BITS_TO_LONGS(nbits) * sizeof(long));
}

static inline void __set_bit(unsigned int nr, unsigned long *map)
{
	map[nr / BITS_PER_LONG] |= 1ul << (nr % BITS_PER_LONG);
}

static inline void __clear_bit(unsigned int nr, unsigned long *map)
{
	map[nr / BITS_PER_LONG] &= ~(1ul << (nr % BITS_PER_LONG));
}

static inline bool test_bit(unsigned int nr, const unsigned long *map)
{
	return map[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG) & 1;
}

/* The first set bit at @start or later, or @size. */
static inline unsigned long find_next_bit(const unsigned long *map,
					  unsigned long size,
					  unsigned long start)
{
	unsigned long w;

	while (start < size) {
		w = map[start / BITS_PER_LONG] >> (start % BITS_PER_LONG);
		if (w) {
			start += __builtin_ctzl(w);
			return start < size ? start : size;
		}
		start = (start / BITS_PER_LONG + 1) * BITS_PER_LONG;
	}
	return size;
}

static inline unsigned long find_first_bit(const unsigned long *map,
					   unsigned long size)
{
	return find_next_bit(map, size, 0);
}

#endif /* _NFHP_SHIM_BITMAP_H */
