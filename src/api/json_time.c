/* json_time.c — the JSON text of google.protobuf.Timestamp (RFC 3339, UTC,
 * "Z" out; any offset in) and google.protobuf.Duration ("-1.5s"), with the
 * ranges those types allow. Civil dates are computed here rather than with
 * timegm/gmtime, which POSIX does not have and whose time_t range varies. */
#include <stdio.h>
#include <string.h>

#include "json_internal.h"

/* 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z. */
#define TS_MIN (-62135596800LL)
#define TS_MAX 253402300799LL
/* 10,000 years of seconds, the limit Duration's documentation gives. */
#define DUR_MAX 315576000000LL

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/* ".5" style fractions: none, or 3, 6 or 9 digits, as the mapping writes. */
static void fraction(int32_t nanos, char *out)
{
    if (nanos == 0)
        *out = '\0';
    else if (nanos % 1000000 == 0)
        sprintf(out, ".%03d", (int)(nanos / 1000000));
    else if (nanos % 1000 == 0)
        sprintf(out, ".%06d", (int)(nanos / 1000));
    else
        sprintf(out, ".%09d", (int)nanos);
}

int wk__timestamp_format(int64_t seconds, int32_t nanos, char *buf)
{
    if (seconds < TS_MIN || seconds > TS_MAX || nanos < 0 || nanos > 999999999)
        return WK_RANGE;
    int64_t days = seconds / 86400, rem = seconds % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    int64_t y;
    int m, d;
    civil_from_days(days, &y, &m, &d);
    char frac[16];
    fraction(nanos, frac);
    sprintf(buf, "%04d-%02d-%02dT%02d:%02d:%02d%sZ", (int)y, m, d, (int)(rem / 3600), (int)(rem / 60 % 60),
            (int)(rem % 60), frac);
    return WK_OK;
}

/* Reads exactly n digits. */
static bool digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9')
            return false;
        v = v * 10 + (**p - '0');
    }
    *out = v;
    return true;
}

/* Reads "." and 1 to 9 digits, if there, as nanoseconds. */
static bool nanos_part(const char **p, int32_t *nanos)
{
    *nanos = 0;
    if (**p != '.')
        return true;
    (*p)++;
    int n = 0;
    int32_t v = 0;
    while (**p >= '0' && **p <= '9' && n < 9) {
        v = v * 10 + (**p - '0');
        (*p)++;
        n++;
    }
    if (n == 0)
        return false;
    for (; n < 9; n++)
        v *= 10;
    *nanos = v;
    return true;
}

int wk__timestamp_parse(const char *t, int64_t *seconds, int32_t *nanos)
{
    int y, mo, d, h, mi, s;
    if (!digits(&t, 4, &y) || *t++ != '-' || !digits(&t, 2, &mo) || *t++ != '-' || !digits(&t, 2, &d) ||
        (*t != 'T' && *t != 't'))
        return WK_PARSE;
    t++;
    if (!digits(&t, 2, &h) || *t++ != ':' || !digits(&t, 2, &mi) || *t++ != ':' || !digits(&t, 2, &s) ||
        !nanos_part(&t, nanos))
        return WK_PARSE;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap) || h > 23 ||
        mi > 59 || s > 59)
        return WK_PARSE;
    int64_t offset = 0;
    if (*t == 'Z' || *t == 'z') {
        t++;
    } else if (*t == '+' || *t == '-') {
        int sign = *t++ == '-' ? -1 : 1, oh, om;
        if (!digits(&t, 2, &oh) || *t++ != ':' || !digits(&t, 2, &om) || oh > 23 || om > 59)
            return WK_PARSE;
        offset = sign * (oh * 3600 + om * 60);
    } else {
        return WK_PARSE;
    }
    if (*t)
        return WK_PARSE;
    *seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset;
    return *seconds < TS_MIN || *seconds > TS_MAX ? WK_RANGE : WK_OK;
}

int wk__duration_format(int64_t seconds, int32_t nanos, char *buf)
{
    if (seconds < -DUR_MAX || seconds > DUR_MAX || nanos < -999999999 || nanos > 999999999 ||
        (seconds > 0 && nanos < 0) || (seconds < 0 && nanos > 0))
        return WK_RANGE;
    char frac[16];
    fraction(nanos < 0 ? -nanos : nanos, frac);
    bool negative = seconds < 0 || nanos < 0;
    sprintf(buf, "%s%lld%ss", negative ? "-" : "", (long long)(seconds < 0 ? -seconds : seconds), frac);
    return WK_OK;
}

int wk__duration_parse(const char *t, int64_t *seconds, int32_t *nanos)
{
    bool negative = *t == '-';
    if (negative)
        t++;
    if (*t < '0' || *t > '9')
        return WK_PARSE;
    int64_t s = 0;
    for (; *t >= '0' && *t <= '9'; t++) {
        s = s * 10 + (*t - '0');
        if (s > DUR_MAX)
            return WK_RANGE;
    }
    if (!nanos_part(&t, nanos) || strcmp(t, "s"))
        return WK_PARSE;
    *seconds = negative ? -s : s;
    if (negative)
        *nanos = -*nanos;
    return WK_OK;
}
