/* assets.c — resolving asset and model URIs to files; see assets.h.
 *
 * A resolved file must lie inside the referring file's folder, a root or a
 * folder of the resource path: a world file cannot make worldkit read
 * anything else on the machine, nor learn what is there. A path outside is
 * answered in the very words of a missing one, and its real path is
 * checked before anything under it is opened (an outside folder's
 * model.config was parsed, and /etc/shadow was "outside" where a missing
 * file was "not found"). */
#include "formats/assets.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "formats/xml.h"

#define MISSING "not found in the file's folder, the roots or the resource path"

static const char *const path_vars[] = {"WORLDKIT_RESOURCE_PATH", "GZ_SIM_RESOURCE_PATH", "SDF_PATH"};

static bool is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static bool exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* The folder of file (or "." for a string) into buf. */
static void folder_of(const char *file, char *buf, size_t cap)
{
    const char *slash = file ? strrchr(file, '/') : NULL;
    if (!slash)
        snprintf(buf, cap, ".");
    else
        snprintf(buf, cap, "%.*s", (int)(slash == file ? 1 : slash - file), file);
}

/* True when real path p is inside real folder root. */
static bool inside(const char *p, const char *root)
{
    char real_root[PATH_MAX];
    if (!realpath(root, real_root))
        return false;
    size_t n = strlen(real_root);
    return strncmp(p, real_root, n) == 0 && (p[n] == '/' || p[n] == '\0' || (n == 1 && real_root[0] == '/'));
}

bool wk__path_allowed(const char *candidate, const char *from_folder, const char *const *roots)
{
    char real[PATH_MAX];
    if (!realpath(candidate, real))
        return false;
    if (from_folder && inside(real, from_folder))
        return true;
    for (const char *const *r = roots; r && *r; r++)
        if (inside(real, *r))
            return true;
    for (size_t v = 0; v < sizeof path_vars / sizeof path_vars[0]; v++) {
        const char *list = getenv(path_vars[v]);
        for (const char *s = list; s && *s;) {
            const char *colon = strchr(s, ':');
            size_t len = colon ? (size_t)(colon - s) : strlen(s);
            char dir[PATH_MAX];
            if (len && len < sizeof dir) {
                snprintf(dir, sizeof dir, "%.*s", (int)len, s);
                if (inside(real, dir))
                    return true;
            }
            s = colon ? colon + 1 : s + len;
        }
    }
    return false;
}

/* Looks rest up in every folder of the resource path and in from_folder. */
static bool search(const char *rest, const char *from_folder, char *out, size_t cap)
{
    for (size_t v = 0; v < sizeof path_vars / sizeof path_vars[0]; v++) {
        const char *list = getenv(path_vars[v]);
        for (const char *s = list; s && *s;) {
            const char *colon = strchr(s, ':');
            size_t len = colon ? (size_t)(colon - s) : strlen(s);
            if (len && snprintf(out, cap, "%.*s/%s", (int)len, s, rest) < (int)cap && exists(out))
                return true;
            s = colon ? colon + 1 : s + len;
        }
    }
    return snprintf(out, cap, "%s/%s", from_folder, rest) < (int)cap && exists(out);
}

/* Why a model:// or package:// uri was not found, into why: the folders
 * searched (those of the resource path that are set, then the file's own,
 * as search looks in them), and WORLDKIT_RESOURCE_PATH when it is not set,
 * as where to add the folder holding the model or package. The same
 * whether a file exists outside those folders or not. Short: it follows
 * the file, line and uri in a message of WK_STATUS_MSG_MAX bytes. */
static const char *searched(char *why, size_t cap)
{
    int n = snprintf(why, cap, "not found in");
    for (size_t v = 0; v < sizeof path_vars / sizeof path_vars[0]; v++) {
        const char *list = getenv(path_vars[v]);
        if (list && *list && n >= 0 && (size_t)n < cap)
            n += snprintf(why + n, cap - (size_t)n, " %s (%s),", list, path_vars[v]);
    }
    const char *ours = getenv(path_vars[0]);
    if (n >= 0 && (size_t)n < cap)
        snprintf(why + n, cap - (size_t)n, " the file's folder%s",
                 ours && *ours ? "" : "; WORLDKIT_RESOURCE_PATH is not set");
    return why;
}

/* The words for a uri not found (or found where it may not be read). */
static const char *missing(const char *uri, char *why, size_t cap)
{
    bool searches = !strncmp(uri, "model://", 8) || !strncmp(uri, "package://", 10);
    return searches ? searched(why, cap) : MISSING;
}

/* Maps a uri to a candidate file; false when the scheme is not local. */
static bool locate(const char *uri, const char *from_folder, char *out, size_t cap, bool *remote)
{
    *remote = false;
    if (!strncmp(uri, "model://", 8) || !strncmp(uri, "package://", 10))
        return search(strchr(uri, ':') + 3, from_folder, out, cap);
    if (!strncmp(uri, "file://", 7))
        uri += 7;
    else if (strstr(uri, "://")) {
        *remote = true;
        return false;
    }
    if (uri[0] == '/')
        return snprintf(out, cap, "%s", uri) < (int)cap && exists(out);
    return snprintf(out, cap, "%s/%s", from_folder, uri) < (int)cap && exists(out);
}

/* The folder a file's references may read from besides the roots and the
 * resource path: its own, except for a string read under roots, whose
 * folder would be the server's working directory. */
static const char *own_folder(const wk_read_desc *opts, const char *from_file, const char *folder)
{
    return from_file || !opts->roots ? folder : NULL;
}

static bool known_mesh(const char *path)
{
    static const char *const exts[] = {"dae", "stl", "obj", "gltf", "glb", "fbx"};
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof exts / sizeof exts[0]; i++)
        if (!strcasecmp(dot + 1, exts[i]))
            return true;
    return false;
}

/* Fails with code, or records a warning when assets are ignored. */
static int problem(wk_world_desc *d, const wk_read_desc *opts, int code, wk_status *st, const char *file,
                   uint32_t line, const char *uri, const char *why)
{
    if (opts->ignore_missing_or_unsupported_assets)
        return wk__desc_warn(d, "%s:%u: ignored asset %s: %s", file ? file : "<string>", line, uri, why)
                   ? wk_fail(st, WK_NOMEM, "out of memory")
                   : WK_OK;
    return wk_fail(st, code, "%s:%u: asset %s: %s", file ? file : "<string>", line, uri, why);
}

int wk__asset_resolve(wk_world_desc *d, const wk_read_desc *opts, const char *from_file, const char *uri,
                      bool is_mesh, uint32_t line, const char **path, wk_status *st)
{
    char folder[PATH_MAX], candidate[PATH_MAX], why[WK_STATUS_MSG_MAX];
    bool remote;
    *path = NULL;
    folder_of(from_file, folder, sizeof folder);
    bool found = locate(uri, folder, candidate, sizeof candidate, &remote);
    if (remote)
        return problem(d, opts, WK_UNSUPPORTED_ASSETS, st, from_file, line, uri, "remote URIs are not fetched");
    if (!found || !wk__path_allowed(candidate, own_folder(opts, from_file, folder), opts->roots))
        return problem(d, opts, WK_MISSING_ASSETS, st, from_file, line, uri, missing(uri, why, sizeof why));
    if (is_mesh && !known_mesh(candidate))
        return problem(d, opts, WK_UNSUPPORTED_ASSETS, st, from_file, line, uri,
                       "not a mesh format worldkit knows (dae, stl, obj, gltf, glb, fbx)");
    *path = wk__desc_strdup(d, candidate);
    return *path ? WK_OK : wk_fail(st, WK_NOMEM, "out of memory");
}

/* The SDFormat file the model.config of dir names (the highest version
 * worldkit reads) into out, unchecked; false when there is no config that
 * may be read or it names none. */
static bool config_sdf(wk_world_desc *d, const char *dir, const char *from, const wk_read_desc *opts, char *out,
                       size_t cap)
{
    char config[PATH_MAX];
    snprintf(config, sizeof config, "%s/model.config", dir);
    wk_status ignored;
    /* The config may be a link out of the folders too. */
    xmlDocPtr doc = wk__path_allowed(config, from, opts->roots) ? wk__xml_parse(config, NULL, NULL, &ignored) : NULL;
    if (!doc)
        return false;
    const char *best = NULL;
    int best_minor = -1;
    for (xmlNodePtr c = wk__xml_first(xmlDocGetRootElement(doc)); c; c = wk__xml_next(c)) {
        const char *v = wk__xml_is(c, "sdf") ? wk__xml_attr(d, c, "version") : NULL;
        int major, minor;
        if (v && sscanf(v, "%d.%d", &major, &minor) == 2 && major == 1 && minor <= 11 && minor > best_minor) {
            best_minor = minor;
            best = wk__xml_text(d, c);
        }
    }
    bool found = best && best[0] && snprintf(out, cap, "%s/%s", dir, best) < (int)cap;
    xmlFreeDoc(doc);
    return found;
}

int wk__model_resolve(wk_world_desc *d, const wk_read_desc *opts, const char *from_file, const char *uri,
                      uint32_t line, const char **path, wk_status *st)
{
    char folder[PATH_MAX], candidate[PATH_MAX], file[PATH_MAX], why[WK_STATUS_MSG_MAX];
    bool remote;
    *path = NULL;
    folder_of(from_file, folder, sizeof folder);
    const char *from = own_folder(opts, from_file, folder);
    bool found = locate(uri, folder, candidate, sizeof candidate, &remote);
    if (remote)
        return problem(d, opts, WK_UNSUPPORTED_ASSETS, st, from_file, line, uri, "remote URIs are not fetched");
    if (!found || !wk__path_allowed(candidate, from, opts->roots))
        return problem(d, opts, WK_MISSING_ASSETS, st, from_file, line, uri, missing(uri, why, sizeof why));
    if (is_dir(candidate)) {
        if (!config_sdf(d, candidate, from, opts, file, sizeof file))
            return problem(d, opts, WK_MISSING_ASSETS, st, from_file, line, uri,
                           "the model folder has no model.config naming an SDFormat file");
    } else {
        snprintf(file, sizeof file, "%s", candidate);
    }
    /* The file a config names may be missing, or lie outside. */
    if (!wk__path_allowed(file, from, opts->roots))
        return problem(d, opts, WK_MISSING_ASSETS, st, from_file, line, uri, MISSING);
    *path = wk__desc_strdup(d, file);
    return *path ? WK_OK : wk_fail(st, WK_NOMEM, "out of memory");
}
