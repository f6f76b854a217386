/* read.c — wk_desc_read: picks the reader for a file or string by its
 * extension and its root element, runs it, and resolves the poses. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/assets.h"
#include "formats/xml.h"

typedef int (*reader_fn)(wk_world_desc *d, const wk_read_desc *opts, const char *path, xmlDocPtr doc, wk_status *st);

static const struct format_entry {
    wk_format format;
    const char *root;       /* root element */
    const char *extensions; /* space separated, with a space at each end */
    reader_fn read;
} formats[] = {
    {WK_FORMAT_SDF, "sdf", " sdf world ", wk__sdf_read},
    {WK_FORMAT_URDF, "robot", " urdf ", wk__urdf_read},
    {WK_FORMAT_MJCF, "mujoco", " mjcf ", wk__mjcf_read},
};

/* Extensions any XML world may carry, whatever its root says. */
static const char *const generic_extensions = " xml ";

/* True when the extension (any case) is in the space-separated list. */
static bool listed(const char *list, const char *ext)
{
    char key[32];
    size_t n = strlen(ext);
    if (n + 3 > sizeof key)
        return false;
    key[0] = ' ';
    for (size_t i = 0; i < n; i++)
        key[i + 1] = (char)tolower((unsigned char)ext[i]);
    key[n + 1] = ' ';
    key[n + 2] = '\0';
    return strstr(list, key) != NULL;
}

/* Refuses a path whose extension no reader claims. */
static int check_extension(const char *path, wk_status *st)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    if (!dot)
        return WK_OK; /* no extension: the root element decides */
    if (listed(generic_extensions, dot + 1))
        return WK_OK;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (listed(formats[i].extensions, dot + 1))
            return WK_OK;
    return wk_fail(st, WK_UNSUPPORTED_FORMAT, "%s: unsupported format '%s' (worldkit reads SDFormat, URDF and MJCF)",
                   path, dot + 1);
}

/* Refuses a name longer than WK_NAME_MAX, naming where it is. */
static int check_names(const wk_world_desc *d, wk_status *st)
{
    for (size_t i = 0; i < d->count; i++) {
        const wk_node *n = &d->nodes[i];
        size_t len = strlen(n->name);
        if (len > WK_NAME_MAX)
            return wk_fail(st, WK_PARSE, "%s:%u: a name of %zu bytes ('%.16s...'); names hold at most %d",
                           n->file ? n->file : "<string>", n->line, len, n->name, WK_NAME_MAX);
    }
    return WK_OK;
}

bool wk_path_under_roots(const char *path, const char *const *roots)
{
    return wk__path_allowed(path, NULL, roots);
}

int wk_desc_read(const wk_read_desc *desc, wk_world_desc **out, wk_status *st)
{
    *out = NULL;
    const char *path = desc->uri && desc->uri[0] ? desc->uri : NULL;
    const char *text = path ? NULL : desc->resource_string;
    if (!path && (!text || !text[0]))
        return wk_fail(st, WK_NO_RESOURCE, "both the uri and the resource string are empty");
    if (path && !strncmp(path, "file://", 7))
        path += 7;
    /* Under roots a file outside them is answered as a missing one, so that
     * a client cannot learn which files exist elsewhere. */
    if (path && desc->roots && !wk__path_allowed(path, NULL, desc->roots))
        return wk_fail(st, WK_NOT_FOUND, "%s: no such file in the folders worlds are read from (the roots and the "
                       "resource path)", path);
    struct stat sb;
    if (path && stat(path, &sb) != 0)
        return wk_fail(st, WK_NOT_FOUND, "%s: no such file", path);
    if (path && !S_ISREG(sb.st_mode))
        return wk_fail(st, WK_NOT_FOUND, "%s: %s", path,
                       S_ISDIR(sb.st_mode) ? "a folder, not a file" : "not a regular file");
    int rc = path ? check_extension(path, st) : WK_OK;
    if (rc)
        return rc;
    /* Made before the parse, which asks its check; its format is known
     * once the root element is. */
    wk_world_desc *d = wk__desc_new(WK_FORMAT_SDF);
    if (!d)
        return wk_fail(st, WK_NOMEM, "out of memory");
    wk_desc_set_over(d, desc->over, desc->over_ctx);
    xmlDocPtr doc = wk__xml_parse(path, text, d, st);
    if (!doc) {
        wk_desc_free(d);
        return st->code;
    }
    const char *root = (const char *)xmlDocGetRootElement(doc)->name;
    const struct format_entry *f = NULL;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (!strcmp(root, formats[i].root))
            f = &formats[i];
    if (!f)
        rc = wk_fail(st, WK_UNSUPPORTED_FORMAT, "%s: unsupported format: root element <%s>", path ? path : "<string>",
                     root);
    else
        d->format = f->format;
    if (rc == WK_OK && (rc = f->read(d, desc, path, doc, st)) == WK_OK && !wk__desc_gives_up(d) &&
        (rc = wk__desc_index(d) ? wk_fail(st, WK_NOMEM, "out of memory indexing names") : WK_OK) == WK_OK &&
        !wk__desc_gives_up(d) && (rc = wk__desc_resolve(d, st)) == WK_OK && !wk__desc_gives_up(d))
        rc = wk__desc_check_joints(d, st);
    if (rc == WK_OK && !wk__desc_gives_up(d))
        rc = check_names(d, st);
    if (d->gave_up) /* whatever failure giving up made the reader report */
        rc = wk_fail(st, WK_DEADLINE, "%s: gave up reading at the call's deadline, after %zu elements",
                     path ? path : "<string>", d->count);
    xmlFreeDoc(doc);
    if (rc) {
        wk_desc_free(d);
        return rc;
    }
    *out = d;
    return WK_OK;
}
