/* find_node.h — the formats tests' lookup of a description node by its
 * scoped name (`model::nested::link`), as `worldkit poses` prints it. */
#ifndef WK_TESTS_FORMATS_FIND_NODE_H
#define WK_TESTS_FORMATS_FIND_NODE_H

#include <stdio.h>
#include <string.h>

#include "worldkit/wk_formats.h"

/* The node with the given scoped name, or NULL (said on stderr). */
static inline const wk_node *find(const wk_world_desc *d, const char *scoped)
{
    char name[256];
    for (uint32_t i = 0; d && i < wk_desc_node_count(d); i++) {
        wk_desc_scoped_name(d, i, name, sizeof name);
        if (!strcmp(name, scoped))
            return wk_desc_node(d, i);
    }
    fprintf(stderr, "    no node named %s\n", scoped);
    return NULL;
}

#endif
