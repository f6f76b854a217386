/* assets.h — finding the files a world refers to: meshes, heightmaps and
 * included models, by model://, package://, file://, relative or absolute
 * URI, through the resource path (WORLDKIT_RESOURCE_PATH, and for users of
 * Gazebo GZ_SIM_RESOURCE_PATH and SDF_PATH) and the referring file's folder. */
#ifndef WK_FORMATS_ASSETS_H
#define WK_FORMATS_ASSETS_H

#include "formats/desc_internal.h"

/* Whether candidate (an existing file) may be read: whether its real path
 * lies inside from_folder (unless NULL), a folder of roots (a NULL-
 * terminated list, or NULL) or a folder of the resource path. */
bool wk__path_allowed(const char *candidate, const char *from_folder, const char *const *roots);

/* Resolves an asset uri met at from_file:line. On success *path is the file
 * (in the arena). A missing file fails with WK_MISSING_ASSETS, a mesh of an
 * unknown format (is_mesh) with WK_UNSUPPORTED_ASSETS, unless the options
 * ignore assets: then a warning is recorded and *path is NULL. */
int wk__asset_resolve(wk_world_desc *d, const wk_read_desc *opts, const char *from_file, const char *uri,
                      bool is_mesh, uint32_t line, const char **path, wk_status *st);
/* Resolves an included model's uri to its SDFormat file: a model folder is
 * read through its model.config. Same failures and ignoring as above. */
int wk__model_resolve(wk_world_desc *d, const wk_read_desc *opts, const char *from_file, const char *uri,
                      uint32_t line, const char **path, wk_status *st);

#endif
