/* xml.c — libxml2 helpers shared by the SDFormat, URDF and MJCF readers. */
#include "formats/xml.h"

#include <libxml/parser.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No network, no entity substitution (so no external entities and no entity
 * expansion bombs), no DTD loading; libxml2's default depth and size limits
 * stay on because XML_PARSE_HUGE is not given. */
#define PARSE_OPTIONS \
    (XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_NOERROR | XML_PARSE_NOCDATA | XML_PARSE_COMPACT | XML_PARSE_NOBLANKS)

/* The whole of the file at path, NUL-terminated, into *text (free() it) and
 * its length into *len; at most 1 GiB. The file is read here rather than
 * by libxml2 so that its comments can be read as tinyxml2 reads them
 * (xml_comments.c), and so that a compressed file is not inflated, which
 * tinyxml2 would not do either. */
#define MAX_FILE ((size_t)1 << 30)

static int read_file(const char *path, char **text, size_t *len, wk_status *st)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return wk_fail(st, WK_NOT_FOUND, "%s: cannot be opened", path);
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    int rc = buf ? WK_OK : wk_fail(st, WK_NOMEM, "out of memory reading %s", path);
    while (rc == WK_OK && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 < cap)
            continue;
        char *grown = cap < MAX_FILE ? realloc(buf, cap * 2) : NULL;
        if (grown)
            buf = grown, cap *= 2;
        else
            rc = cap < MAX_FILE ? wk_fail(st, WK_NOMEM, "out of memory reading %s", path)
                                : wk_fail(st, WK_PARSE, "%s: larger than 1 GiB", path);
    }
    if (rc == WK_OK && ferror(f))
        rc = wk_fail(st, WK_PARSE, "%s: read error", path);
    fclose(f);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return WK_OK;
}

/* Feeds libxml2 this much at a time, asking the description's check in
 * between: a world of 16 MiB takes it a fraction of a second, one of 1 GiB
 * seconds. */
#define PARSE_CHUNK ((size_t)1 << 20)

/* The document of the len bytes of text, parsed chunk after chunk; NULL
 * when it is not well formed or when d (not NULL) gives up between chunks,
 * which *parsed then tells (bytes fed so far). */
static xmlDocPtr parse_chunks(xmlParserCtxtPtr ctx, const char *text, size_t len, wk_world_desc *d, size_t *parsed)
{
    for (*parsed = 0; *parsed < len && ctx->wellFormed; *parsed += PARSE_CHUNK) {
        if (d && wk__desc_gives_up(d))
            break;
        size_t n = len - *parsed < PARSE_CHUNK ? len - *parsed : PARSE_CHUNK;
        xmlParseChunk(ctx, text + *parsed, (int)n, 0);
    }
    if (!(d && d->gave_up))
        xmlParseChunk(ctx, NULL, 0, 1);
    xmlDocPtr doc = ctx->myDoc;
    ctx->myDoc = NULL;
    if (doc && (!ctx->wellFormed || (d && d->gave_up))) {
        xmlFreeDoc(doc);
        doc = NULL;
    }
    return doc;
}

xmlDocPtr wk__xml_parse(const char *path, const char *text, wk_world_desc *d, wk_status *st)
{
    char *copy = NULL;
    size_t len = 0;
    if (!text) {
        if (read_file(path, &copy, &len, st))
            return NULL;
        wk__xml_blank_comment_hyphens(copy, len);
    } else if ((len = strlen(text)) > INT_MAX) {
        wk_fail(st, WK_PARSE, "<string>: larger than 2 GiB");
        return NULL;
    } else if (strstr(text, "<!--")) {
        /* The caller's string is not ours to change: comments are blanked
         * in a copy, kept only when something was blanked. */
        if (!(copy = strdup(text))) {
            wk_fail(st, WK_NOMEM, "out of memory parsing XML");
            return NULL;
        }
        if (!wk__xml_blank_comment_hyphens(copy, len))
            free(copy), copy = NULL;
    }
    const char *name = path ? path : "<string>";
    xmlParserCtxtPtr ctx = xmlCreatePushParserCtxt(NULL, NULL, NULL, 0, name);
    if (!ctx || xmlCtxtUseOptions(ctx, PARSE_OPTIONS)) {
        free(copy);
        xmlFreeParserCtxt(ctx);
        wk_fail(st, WK_NOMEM, "out of memory parsing XML");
        return NULL;
    }
    size_t parsed;
    xmlDocPtr doc = parse_chunks(ctx, copy ? copy : text, len, d, &parsed);
    free(copy);
    if (d && d->gave_up) {
        wk_fail(st, WK_DEADLINE, "%s: gave up parsing at the call's deadline, after %zu of %zu bytes", name, parsed,
                len);
    } else if (doc && (doc->intSubset || doc->extSubset)) {
        /* World files need no DTD, and a DTD's entities are the door to
         * external-entity reads and expansion bombs: refuse them all. */
        wk_fail(st, WK_PARSE, "%s: a DOCTYPE is not allowed in a world file", path ? path : "<string>");
        xmlFreeDoc(doc);
        doc = NULL;
    } else if (!doc || !xmlDocGetRootElement(doc)) {
        const xmlError *e = xmlCtxtGetLastError(ctx);
        if (e && e->message) {
            size_t len = strlen(e->message);
            while (len && (e->message[len - 1] == '\n'))
                len--;
            wk_fail(st, WK_PARSE, "%s:%d: %.*s", path ? path : "<string>", e->line, (int)len, e->message);
        } else {
            wk_fail(st, WK_PARSE, "%s: not an XML document", path ? path : "<string>");
        }
        xmlFreeDoc(doc);
        doc = NULL;
    }
    xmlFreeParserCtxt(ctx);
    return doc;
}

static xmlNodePtr skip_to_element(xmlNodePtr n)
{
    while (n && n->type != XML_ELEMENT_NODE)
        n = n->next;
    return n;
}

xmlNodePtr wk__xml_first(xmlNodePtr n)
{
    return n ? skip_to_element(n->children) : NULL;
}

xmlNodePtr wk__xml_next(xmlNodePtr n)
{
    return n ? skip_to_element(n->next) : NULL;
}

bool wk__xml_is(xmlNodePtr n, const char *name)
{
    return n && xmlStrcmp(n->name, (const xmlChar *)name) == 0;
}

xmlNodePtr wk__xml_child(xmlNodePtr n, const char *name)
{
    for (xmlNodePtr c = wk__xml_first(n); c; c = wk__xml_next(c))
        if (wk__xml_is(c, name))
            return c;
    return NULL;
}

uint32_t wk__xml_line(xmlNodePtr n)
{
    long line = xmlGetLineNo(n);
    return line > 0 ? (uint32_t)line : 0;
}

/* The text of a node holding one plain text child, read in place; NULL for
 * anything else (several children, entity references), which takes the
 * general, allocating path. Most world files are all the simple case. */
static const char *direct_text(xmlNodePtr n)
{
    xmlNodePtr c = n->children;
    if (!c)
        return "";
    return !c->next && c->type == XML_TEXT_NODE ? (const char *)c->content : NULL;
}

const char *wk__xml_attr(wk_world_desc *d, xmlNodePtr n, const char *name)
{
    xmlAttrPtr a = n ? xmlHasProp(n, (const xmlChar *)name) : NULL;
    if (!a)
        return NULL;
    const char *direct = direct_text((xmlNodePtr)a);
    if (direct)
        return wk__desc_strdup(d, direct);
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    const char *copy = v ? wk__desc_strdup(d, (const char *)v) : NULL;
    xmlFree(v);
    return copy;
}

/* Text with surrounding whitespace trimmed. */
const char *wk__xml_text(wk_world_desc *d, xmlNodePtr n)
{
    if (!n)
        return NULL;
    const char *direct = direct_text(n);
    xmlChar *v = direct ? NULL : xmlNodeGetContent(n);
    if (!direct && !v)
        return NULL;
    const char *s = direct ? direct : (const char *)v, *e = s + strlen(s);
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
        e--;
    char *copy = wk__desc_alloc(d, (size_t)(e - s) + 1);
    if (copy) {
        memcpy(copy, s, (size_t)(e - s));
        copy[e - s] = '\0';
    }
    xmlFree(v);
    return copy;
}

/* Up to max numbers of n's text; infinities only when infinite_ok, NaN never. */
static int numbers(xmlNodePtr n, double *out, int max, bool infinite_ok)
{
    const char *direct = direct_text(n);
    xmlChar *v = direct ? NULL : xmlNodeGetContent(n);
    if (!direct && !v)
        return 0;
    const char *s = direct ? direct : (const char *)v;
    int count = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            s++;
        if (!*s)
            break;
        char *end;
        double x = strtod(s, &end);
        /* An infinity written as one (inf, -Infinity), not a number too
         * large for a double, which libsdformat refuses as out of range. */
        const char *digits = s + (*s == '-' || *s == '+');
        bool infinite_as_written = isinf(x) && infinite_ok && (*digits == 'i' || *digits == 'I');
        if (end == s || isnan(x) || (isinf(x) && !infinite_as_written) || count == max) {
            count = -1;
            break;
        }
        out[count++] = x;
        s = end;
    }
    xmlFree(v);
    return count;
}

int wk__xml_numbers(xmlNodePtr n, double *out, int max)
{
    return numbers(n, out, max, false);
}

bool wk__xml_bound(xmlNodePtr n, double *out)
{
    return numbers(n, out, 1, true) == 1;
}

/* Writes el's element path (/robot/link/visual) into buf. */
static size_t element_path(xmlNodePtr el, char *buf, size_t cap)
{
    size_t len = 0;
    if (el->parent && el->parent->type == XML_ELEMENT_NODE)
        len = element_path(el->parent, buf, cap);
    if (len < cap)
        len += (size_t)snprintf(buf + len, cap - len, "/%s", (const char *)el->name);
    return len;
}

int wk__xml_unsupported(wk_world_desc *d, const wk_read_desc *opts, const char *file, xmlNodePtr el,
                        const char *attr, wk_status *st)
{
    char path[256];
    element_path(el, path, sizeof path);
    const char *what = attr ? "attribute" : "element";
    if (opts->fail_on_unsupported_element)
        return wk_fail(st, WK_UNSUPPORTED_ELEMENTS, "%s:%u: unsupported %s %s%s%s", file ? file : "<string>",
                       wk__xml_line(el), what, path, attr ? "@" : "", attr ? attr : "");
    if (wk__desc_warn(d, "%s:%u: ignored unsupported %s %s%s%s", file ? file : "<string>", wk__xml_line(el), what,
                      path, attr ? "@" : "", attr ? attr : ""))
        return wk_fail(st, WK_NOMEM, "out of memory");
    return WK_OK;
}

const char *wk__xml_dump(wk_world_desc *d, xmlNodePtr el)
{
    xmlBufferPtr buf = xmlBufferCreate();
    if (!buf)
        return NULL;
    const char *copy = xmlNodeDump(buf, el->doc, el, 0, 0) < 0 ? NULL : wk__desc_strdup(d, (const char *)xmlBufferContent(buf));
    xmlBufferFree(buf);
    return copy;
}
