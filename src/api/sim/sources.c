/* sources.c — the folders GetAvailableWorlds and GetSpawnables search:
 * the resource path, the sources of a request, and a walk through a folder
 * that cannot run away (depth and entry limits, hidden entries skipped)
 * nor out of the roots (links out skipped: one exposed an outside world's
 * name and an outside model.config's description). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/sim/sources.h"

static const char *const path_vars[] = {"WORLDKIT_RESOURCE_PATH", "GZ_SIM_RESOURCE_PATH", "SDF_PATH"};

int wk__resource_dirs(int (*fn)(const char *dir, void *ctx), void *ctx)
{
    for (size_t v = 0; v < sizeof path_vars / sizeof path_vars[0]; v++) {
        const char *list = getenv(path_vars[v]);
        for (const char *s = list; s && *s;) {
            const char *colon = strchr(s, ':');
            size_t len = colon ? (size_t)(colon - s) : strlen(s);
            char dir[4096];
            if (len && len < sizeof dir) {
                snprintf(dir, sizeof dir, "%.*s", (int)len, s);
                int rc = fn(dir, ctx);
                if (rc)
                    return rc;
            }
            s = colon ? colon + 1 : s + len;
        }
    }
    return 0;
}

wk__source wk__source_path(const wk_api *api, const char *uri, char *out, size_t cap)
{
    if (!strncmp(uri, "file://", 7))
        uri += 7;
    else if (strstr(uri, "://"))
        return WK__SOURCE_REMOTE;
    if (!uri[0] || snprintf(out, cap, "%s", uri) >= (int)cap)
        return WK__SOURCE_NO_PATH;
    /* Missing and outside look alike, as for LoadWorld's files. */
    return api->roots && !wk_path_under_roots(out, api->roots) ? WK__SOURCE_OUTSIDE : WK__SOURCE_PATH;
}

const char *wk__source_refusal(wk__source why)
{
    switch (why) {
    case WK__SOURCE_REMOTE:
        return "source '%s' is remote, and worldkit fetches nothing";
    case WK__SOURCE_OUTSIDE:
        return "source '%s' is no folder or file in the folders worlds are read from (the roots and the resource "
               "path)";
    default:
        return "source '%s' is not a path";
    }
}

bool wk__is_dir(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

typedef struct walk {
    wk__walks *walks;
    int (*fn)(const char *path, bool is_dir, void *ctx);
    void *ctx;
} walk;

bool wk__walks_over(wk__walks *walks)
{
    return walks->over = walks->over || wk__call_over(walks->call);
}

/* Entries in name order, so that answers do not depend on the file
 * system's order. */
static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int walk_dir(walk *w, const char *dir, int depth)
{
    struct dirent **entries = NULL;
    int n = scandir(dir, &entries, NULL, by_name);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *name = entries[i]->d_name;
        char path[4096];
        if (rc == 0 && name[0] != '.' && w->walks->left && !(rc = wk__walks_over(w->walks)) &&
            snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path &&
            (!w->walks->roots || wk_path_under_roots(path, w->walks->roots))) {
            w->walks->left--;
            bool is_dir = wk__is_dir(path);
            rc = w->fn(path, is_dir, w->ctx);
            if (rc == 0 && is_dir && depth + 1 < WK__WALK_DEPTH)
                rc = walk_dir(w, path, depth + 1);
        }
        free(entries[i]);
    }
    free(entries);
    return rc;
}

int wk__walk(wk__walks *walks, const char *root, int (*fn)(const char *path, bool is_dir, void *ctx), void *ctx)
{
    walk w = {walks, fn, ctx};
    return wk__is_dir(root) ? walk_dir(&w, root, 0) : 0;
}

xmlDocPtr wk__read_xml(const char *path)
{
    return xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
}

char *wk__xml_child_text(xmlNodePtr root, const char *name)
{
    for (xmlNodePtr c = root ? root->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name))
            return (char *)xmlNodeGetContent(c);
    return NULL;
}
