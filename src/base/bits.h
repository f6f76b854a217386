/* bits.h — bit scans for the segmented arrays that index slots by
 * floor(log2 index). */
#ifndef WK_BITS_H
#define WK_BITS_H

#include <stdint.h>

/* floor(log2 x) for x >= 1. On x86 the compiler's bsr leaves its output
 * register alone for a zero input, so the CPU makes it wait for whatever
 * last wrote that register: after a read that missed the cache, the next
 * lookup would wait for that miss instead of overlapping it. Starting from
 * a zeroed register breaks the chain. */
static inline unsigned wk__log2(uint32_t x)
{
#if defined(__x86_64__) || defined(__i386__)
    uint32_t bit = 0;
    __asm__("bsr %1, %0" : "+r"(bit) : "rm"(x));
    return bit;
#else
    return 31u - (unsigned)__builtin_clz(x);
#endif
}

#endif
