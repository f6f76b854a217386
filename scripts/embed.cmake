# embed.cmake — writes a file's bytes as a C array, so that a program
# carries the data in itself rather than finding it at run time (the JSON
# mapping's FileDescriptorSets, src/api/json.cc). Run by the build as
#   cmake -DINPUT=in.pb -DOUTPUT=out.c -DNAME=symbol -P embed.cmake
# which defines `const unsigned char symbol[]` and `const size_t symbol_size`.
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" digits)
if(digits EQUAL 0)
  message(FATAL_ERROR "${INPUT} is empty: C has no empty array to embed it in")
endif()
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
# Sixteen bytes a line, so that the file stays readable in a diff or an editor.
string(REGEX REPLACE "((0x..,){16})" "\\1\n    " bytes "${bytes}")
get_filename_component(input_name ${INPUT} NAME)
file(WRITE ${OUTPUT} "/* Generated from ${input_name} by scripts/embed.cmake: do not edit. */
#include <stddef.h>

const unsigned char ${NAME}[] = {
    ${bytes}
};
const size_t ${NAME}_size = sizeof ${NAME};
")
