/* sdf_spec.h — which SDFormat versions define each element and attribute:
 * the table scripts/sdf_spec_table.py generates into sdf_spec_table.c from
 * the specification's description files, keyed by the name of the element
 * holding it and its own name ("@name" for an attribute), sorted by key.
 * Private to the SDFormat reader. */
#ifndef WK_FORMATS_SDF_SPEC_H
#define WK_FORMATS_SDF_SPEC_H

#include <stddef.h>
#include <stdint.h>

#define WK_SDF_SPEC_FIRST_MINOR 4 /* bit n of versions is 1.(4 + n) */

typedef struct wk__sdf_spec_entry {
    const char *parent, *child;
    uint8_t versions;
} wk__sdf_spec_entry;

extern const wk__sdf_spec_entry wk__sdf_spec[];
extern const size_t wk__sdf_spec_count;

#endif
