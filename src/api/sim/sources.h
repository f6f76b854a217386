/* sources.h — where GetAvailableWorlds and GetSpawnables look (sources.c):
 * the folders of the resource path, sources a request names, and a bounded
 * walk through a folder. */
#ifndef WK_API_SOURCES_H
#define WK_API_SOURCES_H

#include <libxml/parser.h>

#include "api/api_internal.h"

/* Calls fn for each folder of WORLDKIT_RESOURCE_PATH, GZ_SIM_RESOURCE_PATH
 * and SDF_PATH (the path formats/assets.c resolves model:// through), in
 * that order, empty entries skipped; stops at fn's first nonzero answer and
 * returns it. */
int wk__resource_dirs(int (*fn)(const char *dir, void *ctx), void *ctx);

/* The local path a source names (a path, or a file:// URI) into out, or
 * why it cannot be searched: the source names a remote place (worldkit
 * fetches nothing), is no path (or too long), or is outside the endpoint's
 * roots. wk__source_refusal gives the message, with one %s for the uri. */
typedef enum wk__source { WK__SOURCE_PATH, WK__SOURCE_REMOTE, WK__SOURCE_NO_PATH, WK__SOURCE_OUTSIDE } wk__source;
wk__source wk__source_path(const wk_api *api, const char *uri, char *out, size_t cap);
const char *wk__source_refusal(wk__source why);

/* What the walks of one call share: the entries they may still visit
 * (WK__WALK_MAX in all, however many sources the request names), the
 * call, whose deadline they check at each entry (over says they stopped
 * for it), and the api's roots (NULL for none): an entry whose real path
 * lies outside them and the resource path, a link out, is skipped, as if
 * it were not there. */
#define WK__WALK_MAX 20000
typedef struct wk__walks {
    wk__call *call;
    const char *const *roots;
    size_t left;
    bool over;
} wk__walks;

/* Whether the call should give up (wk__call_over), noted in walks. */
bool wk__walks_over(wk__walks *walks);

/* Calls fn for every file and folder below root (not root itself), folders
 * before what they hold, names starting with '.' and links out of the
 * roots skipped, at most
 * WK__WALK_DEPTH levels down, within the walks' budget; stops at fn's first
 * nonzero answer and returns it, or returns 1 when the call should give up
 * (walks->over). 0 when root is not a folder. */
#define WK__WALK_DEPTH 4
int wk__walk(wk__walks *walks, const char *root, int (*fn)(const char *path, bool is_dir, void *ctx), void *ctx);

/* Whether path is a folder. */
bool wk__is_dir(const char *path);

/* The parsed file, with no network access, no DTD and no entities
 * substituted; NULL when it is not XML. Free with xmlFreeDoc. */
xmlDocPtr wk__read_xml(const char *path);

/* The text of root's first child element called name, or NULL; free with
 * xmlFree. */
char *wk__xml_child_text(xmlNodePtr root, const char *name);

#endif
