/* name_regex.h — the regular expressions clients select entities with by
 * name (EntityFilters.filter), on RE2 (internal to the library).
 *
 * The standard asks for POSIX extended syntax, which glibc's regcomp reads;
 * but glibc builds automata that grow with the product of nested counts and
 * backtracks on back-references, so one short filter could take gigabytes or
 * minutes of the server. RE2 matches in time linear in the name and compiles
 * within a memory budget. What it cannot do (back-references) is refused,
 * and so is what would cost more than the budget before RE2 checks it. The
 * semantics are regexec's: a match anywhere in the name, ^ and $ anchoring
 * at its ends, the longest match, `.` matching any character. */
#ifndef WK_BASE_NAME_REGEX_H
#define WK_BASE_NAME_REGEX_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest pattern taken, in bytes: RE2 parses before its budget
 * applies, about 12 bytes of memory per byte of a long alternation. */
#define WK__NAME_REGEX_LEN_MAX 4096
/* The most all counted repetitions ({n}, {n,}, {n,m}) of a pattern may add
 * up to. RE2 bounds each to 1000 (nested ones multiplied), but writes each
 * out in full before its budget applies: a kilobyte of a{1,1000} repeated
 * took 29 MB to refuse (and 16 s to compile under a budget of 4 MB). */
#define WK__NAME_REGEX_REPEATS_MAX 1000
/* RE2's memory budget for one compiled pattern and its matching automaton:
 * 56,000 instructions fit, 70,000 do not (`.{1000}` takes 7,000). A pattern
 * near it makes the process grow by about 7 MB while it lives. */
#define WK__NAME_REGEX_MEM (1 << 20)

typedef struct wk__name_regex wk__name_regex;

/* Compiles pattern (POSIX extended syntax). Returns the regular expression
 * (owned: wk__name_regex_free), or NULL with why written: the reason, to
 * follow the pattern's name and a colon ("back-reference \1 is not
 * supported"). */
wk__name_regex *wk__name_regex_new(const char *pattern, char *why, size_t cap);
/* Whether name matches re anywhere. */
bool wk__name_regex_match(const wk__name_regex *re, const char *name);
void wk__name_regex_free(wk__name_regex *re);

#ifdef __cplusplus
}
#endif

#endif
