/* wk_test.h — the small assert layer every test program uses.
 *
 * A test program lists its cases in a table and ends with WK_TEST_MAIN(table).
 * Run without arguments it runs every case; with a case name, only that one.
 * CHECK_* macros report the failing expression with both sides and let the
 * case go on; REQUIRE_* macros also return from the case. The exit status is
 * non-zero when any check failed, which is what CTest reads. */
#ifndef WK_TEST_H
#define WK_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct wk_test_case {
    const char *name;
    void (*run)(void);
} wk_test_case;

static int wk_test_failed_checks;

static inline int wk_test_report(int ok, const char *file, int line, const char *expr, const char *detail)
{
    if (!ok) {
        wk_test_failed_checks++;
        fprintf(stderr, "%s:%d: check failed: %s%s%s\n", file, line, expr, detail[0] ? "\n    " : "", detail);
    }
    return ok;
}

#define WK__CHECK_FMT(ok, expr, fmt, ...)                                                  \
    __extension__({                                                                                     \
        char wk__detail[512];                                                              \
        snprintf(wk__detail, sizeof wk__detail, fmt, __VA_ARGS__);                         \
        wk_test_report((ok), __FILE__, __LINE__, expr, wk__detail);                        \
    })

#define CHECK(cond) wk_test_report(!!(cond), __FILE__, __LINE__, #cond, "")

#define CHECK_INT(a, op, b)                                                                \
    __extension__({                                                                                     \
        long long wk__a = (long long)(a), wk__b = (long long)(b);                          \
        WK__CHECK_FMT(wk__a op wk__b, #a " " #op " " #b, "left: %lld, right: %lld", wk__a, \
                      wk__b);                                                              \
    })

#define CHECK_U64(a, op, b)                                                                  \
    __extension__({                                                                                       \
        unsigned long long wk__a = (unsigned long long)(a), wk__b = (unsigned long long)(b); \
        WK__CHECK_FMT(wk__a op wk__b, #a " " #op " " #b, "left: %llu (0x%llx), right: %llu (0x%llx)", \
                      wk__a, wk__a, wk__b, wk__b);                                           \
    })

#define CHECK_NEAR(a, b, eps)                                                                   \
    __extension__({                                                                                          \
        double wk__a = (double)(a), wk__b = (double)(b);                                        \
        WK__CHECK_FMT(fabs(wk__a - wk__b) <= (eps), #a " ~= " #b, "left: %.17g, right: %.17g (tolerance %g)", \
                      wk__a, wk__b, (double)(eps));                                             \
    })

#define CHECK_STR(a, b)                                                                              \
    __extension__({                                                                                               \
        const char *wk__a = (a), *wk__b = (b);                                                       \
        WK__CHECK_FMT(wk__a && wk__b && strcmp(wk__a, wk__b) == 0, #a " == " #b,                     \
                      "left: \"%s\", right: \"%s\"", wk__a ? wk__a : "(null)", wk__b ? wk__b : "(null)"); \
    })

#define REQUIRE(cond)      \
    do {                   \
        if (!CHECK(cond))  \
            return;        \
    } while (0)

#define REQUIRE_INT(a, op, b)      \
    do {                           \
        if (!CHECK_INT(a, op, b))  \
            return;                \
    } while (0)

static inline int wk_test_main(const wk_test_case *cases, size_t n, int argc, char **argv)
{
    int ran = 0;
    for (size_t i = 0; i < n; i++) {
        if (argc > 1 && strcmp(argv[1], cases[i].name) != 0)
            continue;
        int before = wk_test_failed_checks;
        cases[i].run();
        ran++;
        printf("%-4s %s\n", wk_test_failed_checks == before ? "ok" : "FAIL", cases[i].name);
    }
    if (ran == 0) {
        fprintf(stderr, "no test case named %s\n", argc > 1 ? argv[1] : "(any)");
        return 2;
    }
    if (wk_test_failed_checks)
        fprintf(stderr, "%d check(s) failed\n", wk_test_failed_checks);
    return wk_test_failed_checks ? 1 : 0;
}

#define WK_TEST_MAIN(cases) \
    int main(int argc, char **argv) { return wk_test_main(cases, sizeof cases / sizeof cases[0], argc, argv); }

#endif
