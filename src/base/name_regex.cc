// name_regex.cc — name_regex.h on RE2: the options that give regexec's
// semantics, the checks RE2 does not make in time, and its errors worded
// for the client. C++ only at the edge: nothing thrown leaves this file.
#include "base/name_regex.h"

#include <re2/re2.h>

#include <cstdio>
#include <cstring>
#include <new>

struct wk__name_regex {
    re2::RE2 re;
    wk__name_regex(const char *pattern, const re2::RE2::Options &options) : re(pattern, options) {}
};

// The end of the bracket expression p opens, as early as RE2 could end it:
// at the first ']' not escaped and not its first member. Ending early only
// makes the caller count more intervals, never fewer.
static const char *skip_bracket(const char *p)
{
    p++;
    if (*p == '^')
        p++;
    if (*p == ']')
        p++;
    while (*p && *p != ']')
        p += p[0] == '\\' && p[1] ? 2 : 1;
    return *p ? p + 1 : p;
}

// Reads the interval p opens into *count (its upper count, or its lower
// one for {n,}); returns its end, or p + 1 when it is no interval (RE2 then
// reads '{' as itself). Counts stop growing past the limit.
static const char *read_interval(const char *p, unsigned long *count)
{
    unsigned long n[2] = {0, 0};
    int i = 0;
    const char *q = p + 1;
    for (;; q++) {
        if (*q >= '0' && *q <= '9') {
            if (n[i] <= WK__NAME_REGEX_REPEATS_MAX)
                n[i] = n[i] * 10 + (unsigned long)(*q - '0');
        } else if (*q == ',' && i == 0 && q > p + 1) {
            i = 1;
        } else {
            break;
        }
    }
    if (*q != '}' || q == p + 1)
        return p + 1;
    *count = i == 1 && q[-1] != ',' ? n[1] : n[0];
    return q + 1;
}

// The sum of the counts of pattern's intervals outside bracket expressions
// and escapes, stopping once past the limit.
static unsigned long interval_total(const char *p)
{
    unsigned long total = 0;
    while (*p && total <= WK__NAME_REGEX_REPEATS_MAX) {
        unsigned long count = 0;
        if (*p == '\\')
            p += p[1] ? 2 : 1;
        else if (*p == '[')
            p = skip_bracket(p);
        else if (*p == '{')
            p = read_interval(p, &count);
        else
            p++;
        total += count;
    }
    return total;
}

// Why RE2 refused a pattern, in the client's terms.
static void explain(const re2::RE2 &re, char *why, size_t cap)
{
    const std::string &arg = re.error_arg();
    switch (re.error_code()) {
    case re2::RE2::ErrorBadEscape:
        if (arg.size() == 2 && arg[1] >= '1' && arg[1] <= '9') {
            std::snprintf(why, cap, "back-reference %s is not supported", arg.c_str());
            return;
        }
        break;
    case re2::RE2::ErrorRepeatSize:
        std::snprintf(why, cap, "repetition %s is too large (at most %d, nested counts multiplied)", arg.c_str(),
                      WK__NAME_REGEX_REPEATS_MAX);
        return;
    case re2::RE2::ErrorPatternTooLarge:
        std::snprintf(why, cap, "too large: compiled, it would pass the budget of %d MB",
                      WK__NAME_REGEX_MEM >> 20);
        return;
    default:
        break;
    }
    std::snprintf(why, cap, "not a POSIX extended regular expression (%s)", re.error().c_str());
}

extern "C" wk__name_regex *wk__name_regex_new(const char *pattern, char *why, size_t cap)
{
    size_t len = std::strlen(pattern);
    if (len > WK__NAME_REGEX_LEN_MAX) {
        std::snprintf(why, cap, "%zu bytes long, past the %d a filter may have", len, WK__NAME_REGEX_LEN_MAX);
        return nullptr;
    }
    unsigned long total = interval_total(pattern);
    if (total > WK__NAME_REGEX_REPEATS_MAX) {
        std::snprintf(why, cap, "counted repetitions add up to more than %d", WK__NAME_REGEX_REPEATS_MAX);
        return nullptr;
    }
    re2::RE2::Options options;
    options.set_posix_syntax(true);
    options.set_longest_match(true);
    // regexec without REG_NEWLINE: ^ and $ at the ends of the name only, and
    // `.` matching a newline too.
    options.set_one_line(true);
    options.set_dot_nl(true);
    options.set_never_capture(true);
    options.set_log_errors(false);
    options.set_max_mem(WK__NAME_REGEX_MEM);
    try {
        wk__name_regex *re = new wk__name_regex(pattern, options);
        if (re->re.ok())
            return re;
        explain(re->re, why, cap);
        delete re;
    } catch (const std::bad_alloc &) {
        std::snprintf(why, cap, "out of memory compiling it");
    }
    return nullptr;
}

extern "C" bool wk__name_regex_match(const wk__name_regex *re, const char *name)
{
    try {
        return re2::RE2::PartialMatch(name, re->re);
    } catch (const std::bad_alloc &) {
        // Kept, as the other filters keep what they cannot check.
        return true;
    }
}

extern "C" void wk__name_regex_free(wk__name_regex *re)
{
    delete re;
}
