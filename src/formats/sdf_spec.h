/* sdf_spec.h — which SDFormat versions define each element and attribute:
 * the table scripts/sdf_spec_table.py generates into sdf_spec_table.c from
 * the specification's description files, keyed by the name of the element
 * holding it and its own name ("@name" for an attribute), sorted by key,
 * with a hash index over it. Private to the SDFormat reader. */
#ifndef WK_FORMATS_SDF_SPEC_H
#define WK_FORMATS_SDF_SPEC_H

#include <stddef.h>
#include <stdint.h>

#define WK_SDF_SPEC_FIRST_MINOR 4 /* bit n of versions is 1.(4 + n) */
#define WK_SDF_SPEC_SLOTS 2048    /* scripts/sdf_spec_table.py's SLOTS */

typedef struct wk__sdf_spec_entry {
    const char *parent, *child;
    uint8_t versions;
} wk__sdf_spec_entry;

extern const wk__sdf_spec_entry wk__sdf_spec[];
/* An entry's index + 1 at the slot its key hashes to (FNV-1a, 32 bits, of
 * parent, a 0 byte and child, modulo WK_SDF_SPEC_SLOTS) or in the slots
 * after it, up to an empty one (0). */
extern const uint16_t wk__sdf_spec_slots[WK_SDF_SPEC_SLOTS];

#endif
