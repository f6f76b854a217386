/* mjcf_include.c — the files an MJCF model reads besides its own: the ones
 * its <include> elements name and the mesh files of its <asset> section.
 *
 * <include> elements are replaced by the children of the included file's
 * root before reading, each copy tagged with its file for error messages.
 * As in MuJoCo, every path (includes, meshdir) is relative to the main file's
 * folder and a file is included once; worldkit also keeps each file to its
 * own folder and the resource path, by the asset rules. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/assets.h"
#include "formats/mjcf.h"

#define MAX_INCLUDE_DEPTH 16

/* ---- includes ---------------------------------------------------------- */

/* The included file el came from, NULL for the main file. */
static const mjcf_file *included_from(xmlNodePtr el)
{
    for (xmlNodePtr n = el; n && n->type == XML_ELEMENT_NODE; n = n->parent)
        if (n->_private)
            return n->_private;
    return NULL;
}

const char *wk__mjcf_file_of(const mjcf_reader *r, xmlNodePtr el)
{
    const mjcf_file *f = included_from(el);
    return f ? f->path : r->file;
}

/* The uri of file as MuJoCo finds it: in dir (may be NULL), both relative
 * to the main file's folder. Elements of the main file keep it relative
 * (the asset rules resolve it from there); included ones get it absolute. */
static const char *main_relative(mjcf_reader *r, xmlNodePtr el, const char *dir, const char *file)
{
    bool absolute = file[0] == '/';
    const char *base = absolute || wk__mjcf_file_of(r, el) == r->file ? "" : r->main_dir;
    const char *sub = dir && dir[0] && !absolute ? dir : "";
    size_t len = strlen(base) + strlen(sub) + strlen(file) + 3;
    char *uri = wk__desc_alloc(r->d, len);
    if (uri)
        snprintf(uri, len, "%s%s%s%s%s", base, base[0] ? "/" : "", sub, sub[0] ? "/" : "", file);
    return uri;
}

/* Refuses a file already on el's chain of includes (a cycle) or already
 * included elsewhere (MuJoCo reads a file once), and deep chains; records
 * the file in *out. */
static int check_include(mjcf_reader *r, xmlNodePtr el, const char *path, const char *real, const mjcf_file **out)
{
    const mjcf_file *from = included_from(el);
    int depth = 0;
    char main_real[PATH_MAX];
    for (const mjcf_file *f = from; f; f = f->from, depth++)
        if (!strcmp(f->real, real))
            return wk__mjcf_fail(r, el, WK_PARSE, "include cycle: %s includes itself", f->path);
    if (r->file && realpath(r->file, main_real) && !strcmp(main_real, real))
        return wk__mjcf_fail(r, el, WK_PARSE, "include cycle: the main file includes itself");
    if (depth >= MAX_INCLUDE_DEPTH)
        return wk__mjcf_fail(r, el, WK_PARSE, "includes nest deeper than %d levels", MAX_INCLUDE_DEPTH);
    for (const mjcf_file *f = r->included; f; f = f->next)
        if (!strcmp(f->real, real))
            return wk__mjcf_fail(r, el, WK_PARSE, "%s is already included (MuJoCo includes a file once)", f->path);
    mjcf_file *f = wk__desc_alloc(r->d, sizeof *f);
    const char *real_copy = wk__desc_strdup(r->d, real);
    if (!f || !real_copy)
        return wk__mjcf_nomem(r);
    *f = (mjcf_file){.path = path, .real = real_copy, .from = from, .next = r->included};
    *out = r->included = f;
    return WK_OK;
}

/* Puts copies of the children of the included file's root before el. */
static int splice(mjcf_reader *r, xmlNodePtr el, const mjcf_file *file)
{
    xmlDocPtr doc = wk__xml_parse(file->path, NULL, r->d, r->st);
    if (!doc)
        return r->st->code;
    int rc = WK_OK;
    for (xmlNodePtr c = wk__xml_first(xmlDocGetRootElement(doc)); rc == WK_OK && c; c = wk__xml_next(c)) {
        xmlNodePtr copy = xmlDocCopyNode(c, r->doc, 1);
        if (!copy) {
            rc = wk__mjcf_nomem(r);
            break;
        }
        copy->_private = (void *)file;
        xmlAddPrevSibling(el, copy);
    }
    xmlFreeDoc(doc);
    return rc;
}

/* Replaces el, an <include>, by the included file's content. */
static int include(mjcf_reader *r, xmlNodePtr el)
{
    const char *file = wk__xml_attr(r->d, el, "file"), *uri = NULL, *path = NULL;
    const char *from = wk__mjcf_file_of(r, el);
    char real[PATH_MAX];
    int rc = !file || !file[0]                          ? wk__mjcf_fail(r, el, WK_PARSE, "needs a file attribute")
             : !(uri = main_relative(r, el, NULL, file)) ? wk__mjcf_nomem(r)
                                                          : wk__asset_resolve(r->d, r->opts, from, uri, false,
                                                                              wk__xml_line(el), &path, r->st);
    if (rc == WK_OK && path && !realpath(path, real))
        rc = wk__mjcf_fail(r, el, WK_MISSING_ASSETS, "cannot resolve %s", path);
    const mjcf_file *included = NULL;
    rc = rc || !path ? rc : check_include(r, el, path, real, &included); /* no path: missing and ignored */
    rc = rc || !path ? rc : splice(r, el, included);
    xmlUnlinkNode(el);
    xmlFreeNode(el);
    return rc;
}

/* Reading goes on at the first spliced element, so that the included
 * content's own includes are expanded too. */
int wk__mjcf_expand_includes(mjcf_reader *r, xmlNodePtr el)
{
    int rc = WK_OK;
    for (xmlNodePtr c = wk__xml_first(el); rc == WK_OK && c;) {
        if (!wk__xml_is(c, "include")) {
            rc = wk__mjcf_expand_includes(r, c);
            c = wk__xml_next(c);
            continue;
        }
        xmlNodePtr before = c->prev;
        rc = include(r, c);
        c = before ? wk__xml_next(before) : wk__xml_first(el);
    }
    return rc;
}

/* ---- mesh assets ------------------------------------------------------- */

/* An asset's attributes over its class (its own, else the root's). */
static int asset_attrs(mjcf_reader *r, xmlNodePtr el, attrs *a)
{
    const mjcf_class *cls;
    int rc = wk__mjcf_class_of(r, el, "class", r->root, &cls);
    return rc ? rc : wk__mjcf_read_attrs(r, el, cls, a);
}

/* A mesh asset: its name defaults to its file's name without folder and
 * extension; its file is found in meshdir. */
static int read_mesh(mjcf_reader *r, xmlNodePtr el)
{
    attrs a;
    mjcf_mesh *m = wk__desc_alloc(r->d, sizeof *m);
    if (!m)
        return wk__mjcf_nomem(r);
    int rc = asset_attrs(r, el, &a);
    if (rc)
        return rc;
    const char *file = wk__xml_attr(r->d, el, "file"), *name = wk__xml_attr(r->d, el, "name");
    *m = (mjcf_mesh){.name = name, .scale = wk__mjcf_vec3(a.scale), .next = r->meshes};
    if (file && r->strippath && strrchr(file, '/'))
        file = strrchr(file, '/') + 1;
    if (!name && file) {
        const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
        const char *dot = strrchr(base, '.');
        char *stem = wk__desc_alloc(r->d, strlen(base) + 1);
        if (!stem)
            return wk__mjcf_nomem(r);
        snprintf(stem, strlen(base) + 1, "%.*s", (int)(dot ? (size_t)(dot - base) : strlen(base)), base);
        m->name = stem;
    }
    if (!m->name)
        return wk__mjcf_fail(r, el, WK_PARSE, "needs a name or a file");
    /* A mesh given by its vertices stays a mesh without a uri. */
    const char *uri = file ? main_relative(r, el, r->meshdir, file) : NULL;
    if (file && !uri)
        return wk__mjcf_nomem(r);
    m->uri = file;
    rc = file ? wk__asset_resolve(r->d, r->opts, wk__mjcf_file_of(r, el), uri, true, wk__xml_line(el), &m->path,
                                  r->st)
              : wk__mjcf_unsupported(r, el, "mesh without a file");
    if (rc == WK_OK)
        r->meshes = m;
    return rc;
}

/* A material asset's colour: its rgba, its class's, or MuJoCo's white. */
static int read_material(mjcf_reader *r, xmlNodePtr el)
{
    attrs a;
    mjcf_material *m = wk__desc_alloc(r->d, sizeof *m);
    if (!m)
        return wk__mjcf_nomem(r);
    int rc = asset_attrs(r, el, &a);
    if (rc)
        return rc;
    *m = (mjcf_material){.name = wk__xml_attr(r->d, el, "name"), .rgba = {1, 1, 1, 1}, .next = r->materials};
    if (!m->name)
        return wk__mjcf_fail(r, el, WK_PARSE, "needs a name");
    if (GIVEN(&a, rgba))
        memcpy(m->rgba, a.rgba, sizeof m->rgba);
    r->materials = m;
    return WK_OK;
}

/* Textures, height fields and skins change no pose: known, and not kept. */
int wk__mjcf_read_assets(mjcf_reader *r, xmlNodePtr el)
{
    static const char *const known[] = {"texture", "hfield", "skin", NULL};
    for (xmlNodePtr c = wk__xml_first(el); c; c = wk__xml_next(c)) {
        const char *const *k = known;
        while (*k && !wk__xml_is(c, *k))
            k++;
        int rc = wk__xml_is(c, "mesh")       ? read_mesh(r, c)
                 : wk__xml_is(c, "material") ? read_material(r, c)
                 : *k                        ? WK_OK
                                             : wk__mjcf_unsupported_element(r, c);
        if (rc)
            return rc;
    }
    return WK_OK;
}
