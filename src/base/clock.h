/* clock.h — the monotonic clock, for intervals and deadlines. */
#ifndef WK_CLOCK_H
#define WK_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t wk__monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The same in seconds. */
static inline double wk__monotonic_s(void)
{
    return (double)wk__monotonic_ns() * 1e-9;
}

#endif
