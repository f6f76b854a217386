/* fuzz_world.c — libFuzzer target for the world readers: any bytes given as
 * a resource string must be read or refused with a code, never crash, hang
 * or leak, with and without failing on unsupported elements. */
#include <stdlib.h>
#include <string.h>

#include "worldkit/wk_formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    for (int strict = 0; strict < 2; strict++) {
        wk_world_desc *d = NULL;
        wk_status st = {0};
        int rc = wk_desc_read(&(wk_read_desc){.resource_string = text,
                                              .fail_on_unsupported_element = strict,
                                              .ignore_missing_or_unsupported_assets = !strict},
                              &d, &st);
        if ((rc == WK_OK) != (d != NULL) || (rc != WK_OK && st.message[0] == '\0'))
            abort(); /* a result must come with a description or a message */
        wk_desc_free(d);
    }
    free(text);
    return 0;
}
