/* json_test_types.h — the types of tests/api/json_test.proto as libprotobuf
 * reads them, for the JSON mapping's test and fuzz target: a
 * FileDescriptorSet the build embeds (wk_descriptor_set in CMakeLists.txt). */
#ifndef WK_JSON_TEST_TYPES_H
#define WK_JSON_TEST_TYPES_H

#include <stddef.h>

#include "worldkit/wk_api.h"

extern const unsigned char wk_json_test_descriptor_set[];
extern const size_t wk_json_test_descriptor_set_size;

/* Options that add these types to proto/'s, for JSON on one line. */
#define WK_JSON_TEST_TYPES                                                                                             \
    (&(wk_json_desc){.descriptor_set = wk_json_test_descriptor_set,                                                   \
                     .descriptor_set_size = wk_json_test_descriptor_set_size})

#endif
