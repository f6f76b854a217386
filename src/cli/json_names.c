/* json_names.c — simulation_interfaces' numbers named in the JSON the
 * command line prints: after a Result's code comes "resultName", after a
 * SimulationState's "stateName", after SimulatorFeatures' list
 * "featureNames". `"result": 1` alone means nothing to a reader without
 * wk_api.h at hand. The names are members the messages do not have, so the
 * output stays JSON for jq and the like, but is no longer a request that
 * `call` would take back.
 *
 * The text is libprotobuf's (MessageToJsonString), so a member's key and
 * the start of its value share a line; a name goes on a line of its own
 * with the key's indentation. Keys are told from string values by the ':'
 * after them, and string values are skipped whole, so a message text that
 * holds `"result": 1` is left as it is. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "worldkit/wk_api.h"

static bool is_key(const char *key, size_t len, const char *want)
{
    return strlen(want) == len && !memcmp(key, want, len);
}

/* Appends the strings of the NULL-terminated list. */
static int append(wk_buf *out, const char *const *parts)
{
    int rc = WK_OK;
    for (; *parts && rc == WK_OK; parts++)
        rc = wk_buf_append(out, *parts, strlen(*parts));
    return rc;
}

/* Appends ",\n", the indentation of the line at line, and "key": value. */
static int add_member(wk_buf *out, const char *line, const char *key, const char *value)
{
    size_t indent = strspn(line, " ");
    int rc = wk_buf_append(out, ",\n", 2);
    for (size_t i = 0; rc == WK_OK && i < indent; i++)
        rc = wk_buf_append(out, " ", 1);
    return rc ? rc : append(out, (const char *[]){"\"", key, "\": ", value, NULL});
}

/* The names of the features in the array text [start, end), as a JSON
 * array; a number no constant has is named by itself. */
static int feature_names(const char *start, const char *end, wk_buf *names)
{
    int rc = wk_buf_append(names, "[", 1);
    for (const char *p = start; rc == WK_OK && p < end; p++) {
        if (!isdigit((unsigned char)*p))
            continue;
        char *after;
        unsigned long f = strtoul(p, &after, 10);
        const char *name = f <= UINT32_MAX ? wk_api_feature_name((uint32_t)f) : NULL;
        char number[24];
        snprintf(number, sizeof number, "%lu", f);
        rc = append(names, (const char *[]){names->len > 1 ? ", \"" : "\"", name ? name : number, "\"", NULL});
        p = after - 1;
    }
    if (rc == WK_OK)
        rc = wk_buf_append(names, "]", 2); /* with the NUL, for printing */
    return rc;
}

/* Names the value that follows a key at v (after its ':'), when the key is
 * one whose numbers have names: appends the text up to the value's end and
 * the name to out, and returns where the text goes on; NULL when there is
 * nothing to name (or no memory: *rc says). */
static const char *name_value(const char *method, const char *key, size_t key_len, const char *line, const char *v,
                              wk_buf *out, const char **copied, int *rc)
{
    bool result = is_key(key, key_len, "result"), state = is_key(key, key_len, "state");
    const char *end = NULL, *member = NULL, *name = NULL;
    char quoted[96];
    wk_buf names = {0};
    if ((result || state) && isdigit((unsigned char)*v)) {
        char *after;
        unsigned long n = strtoul(v, &after, 10);
        end = after;
        name = n > UINT32_MAX ? NULL : result ? wk_api_result_name(method, (uint32_t)n) : wk_api_state_name((uint32_t)n);
        member = result ? "resultName" : "stateName";
        if (name)
            snprintf(quoted, sizeof quoted, "\"%s\"", name);
    } else if (is_key(key, key_len, "features") && *v == '[' && (end = strchr(v, ']')) != NULL) {
        end++;
        member = "featureNames";
        *rc = feature_names(v, end, &names);
        name = names.data ? (const char *)names.data : NULL;
    }
    if (!end || !name || *rc) {
        wk_buf_free(&names);
        return NULL;
    }
    *rc = wk_buf_append(out, *copied, (size_t)(end - *copied));
    if (*rc == WK_OK)
        *rc = add_member(out, line, member, names.data ? (const char *)names.data : quoted);
    wk_buf_free(&names);
    *copied = end;
    return end;
}

int wk_cli_json_names(const char *method, const char *json, wk_buf *out)
{
    const char *copied = json, *line = json, *key = NULL;
    size_t key_len = 0;
    int rc = WK_OK;
    for (const char *p = json; *p && rc == WK_OK; p++) {
        if (*p == '\n') {
            line = p + 1;
        } else if (*p == '"') {
            const char *start = p + 1;
            for (p = start; *p && *p != '"'; p += p[0] == '\\' && p[1] ? 2 : 1)
                ;
            if (!*p)
                break;
            const char *after = p + 1 + strspn(p + 1, " ");
            key = *after == ':' ? start : NULL;
            key_len = (size_t)(p - start);
        } else if (*p == ':' && key) {
            const char *v = p + 1 + strspn(p + 1, " \n");
            const char *next = name_value(method, key, key_len, line, v, out, &copied, &rc);
            if (next)
                p = next - 1;
            key = NULL;
        }
    }
    if (rc == WK_OK)
        rc = wk_buf_append(out, copied, strlen(copied) + 1);
    if (rc == WK_OK)
        out->len--; /* the NUL is there for printing, not counted */
    return rc;
}
