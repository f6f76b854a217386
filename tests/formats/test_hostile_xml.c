/* test_hostile_xml.c — what the readers refuse of a hostile file, in each
 * format: names longer than WK_NAME_MAX, a DOCTYPE (the door to entity
 * expansion and external entities), nesting deeper than libxml2's limit,
 * and an include or mesh outside the allowed folders; each with a code and
 * a message naming the culprit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worldkit/wk_formats.h"
#include "wk_test.h"

static int read_string(const char *text, wk_status *st)
{
    wk_world_desc *d = NULL;
    int rc = wk_desc_read(&(wk_read_desc){.resource_string = text}, &d, st);
    CHECK((rc == WK_OK) == (d != NULL));
    wk_desc_free(d);
    return rc;
}

/* fmt with its one %s replaced by a name of len bytes; free() it. */
static char *with_name(const char *fmt, size_t len)
{
    char *name = malloc(len + 1);
    char *text = malloc(strlen(fmt) + len + 1);
    if (!name || !text)
        abort();
    memset(name, 'n', len);
    name[len] = '\0';
    sprintf(text, fmt, name);
    free(name);
    return text;
}

static void long_names_refused_in_every_format(void)
{
    static const char *const formats[] = {
        "<sdf version='1.9'><world name='w'><model name='%s'><link name='l'/></model></world></sdf>",
        "<robot name='r'><link name='%s'/></robot>",
        "<mujoco><worldbody><body name='%s'><geom size='1'/></body></worldbody></mujoco>",
    };
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        wk_status st = {0};
        char *longest = with_name(formats[i], WK_NAME_MAX);
        CHECK_INT(read_string(longest, &st), ==, WK_OK);
        free(longest);
        char *too_long = with_name(formats[i], WK_NAME_MAX + 1);
        CHECK_INT(read_string(too_long, &st), ==, WK_PARSE);
        free(too_long);
        CHECK(strstr(st.message, "<string>:1: a name of 256 bytes") != NULL);
        char *huge = with_name(formats[i], 9 << 20);
        CHECK_INT(read_string(huge, &st), ==, WK_PARSE);
        free(huge);
        CHECK(strlen(st.message) < WK_STATUS_MSG_MAX);
    }
}

static void doctype_refused(void)
{
    static const struct {
        const char *text, *needle;
    } cases[] = {
        {"<?xml version='1.0'?><!DOCTYPE l [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>"
         "<!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;'>]><sdf version='1.9'><world name='&c;'/></sdf>",
         "DOCTYPE"},
        {"<?xml version='1.0'?><!DOCTYPE r [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><robot name='r'>&x;</robot>",
         "DOCTYPE"},
        /* In an attribute, libxml2 itself refuses it while parsing. */
        {"<?xml version='1.0'?><!DOCTYPE r [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><robot name='&x;'/>",
         "external entity 'x'"},
        {"<!DOCTYPE mujoco SYSTEM 'file:///etc/passwd'><mujoco/>", "DOCTYPE"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wk_status st = {0};
        CHECK_INT(read_string(cases[i].text, &st), ==, WK_PARSE);
        if (!CHECK(strstr(st.message, cases[i].needle) != NULL))
            fprintf(stderr, "    %s\n", st.message);
    }
}

static void deep_nesting_refused(void)
{
    size_t depth = 100000;
    char *text = malloc(depth * 16 + 64);
    if (!text)
        abort();
    char *p = text + sprintf(text, "<sdf version='1.9'><world name='w'>");
    for (size_t i = 0; i < depth; i++)
        p += sprintf(p, "<model name='m'>");
    sprintf(p, "</world></sdf>");
    wk_status st = {0};
    CHECK_INT(read_string(text, &st), ==, WK_PARSE);
    CHECK(strstr(st.message, "<string>:1:") != NULL);
    free(text);
}

static void files_outside_the_allowed_folders_refused(void)
{
    static const char *const texts[] = {
        "<sdf version='1.9'><world name='w'><include><uri>file:///etc/passwd</uri></include></world></sdf>",
        "<sdf version='1.9'><model name='m'><link name='l'><visual name='v'><geometry><mesh>"
        "<uri>../../../../../../../../etc/passwd</uri></mesh></geometry></visual></link></model></sdf>",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        wk_status st = {0};
        CHECK_INT(read_string(texts[i], &st), ==, WK_MISSING_ASSETS);
        /* In the words of a missing file: nothing tells that it exists. */
        CHECK(strstr(st.message, "etc/passwd: not found in the file's folder, the roots or the resource path") != NULL);
    }
}

/* Under roots, a read reaches only files inside them or the resource path:
 * a world outside is answered as a missing one (whether it exists or not),
 * its includes resolve only inside them, and a string's relative mesh is
 * not looked up in the working folder. */
static void roots_bound_what_a_read_reaches(void)
{
    unsetenv("WORLDKIT_RESOURCE_PATH");
    unsetenv("GZ_SIM_RESOURCE_PATH");
    unsetenv("SDF_PATH");
    const char *const worlds[] = {WK_TEST_WORLDS, NULL};
    const char *const elsewhere[] = {WK_TEST_WORLDS "/mjcf", NULL};
    wk_world_desc *d = NULL;
    wk_status st = {0};
    CHECK_INT(wk_desc_read(&(wk_read_desc){.uri = WK_TEST_WORLDS "/frames.sdf", .roots = worlds}, &d, &st), ==, WK_OK);
    wk_desc_free(d);

    wk_status there = {0}, absent = {0};
    CHECK_INT(wk_desc_read(&(wk_read_desc){.uri = WK_TEST_WORLDS "/frames.sdf", .roots = elsewhere}, &d, &there), ==,
              WK_NOT_FOUND);
    CHECK_INT(wk_desc_read(&(wk_read_desc){.uri = WK_TEST_WORLDS "/frames.sdx", .roots = elsewhere}, &d, &absent), ==,
              WK_NOT_FOUND);
    CHECK(d == NULL);
    /* The same words after the path. */
    size_t path_len = strlen(WK_TEST_WORLDS "/frames.sdf");
    CHECK_STR(there.message + path_len, absent.message + path_len);

    /* includes.sdf includes models of models/ through the resource path:
     * with the resource path set to that folder they resolve, and a root
     * does not stand in for it. */
    setenv("WORLDKIT_RESOURCE_PATH", WK_TEST_WORLDS "/models", 1);
    CHECK_INT(wk_desc_read(&(wk_read_desc){.uri = WK_TEST_WORLDS "/includes.sdf", .roots = worlds}, &d, &st), ==,
              WK_OK);
    wk_desc_free(d);
    unsetenv("WORLDKIT_RESOURCE_PATH");

    FILE *probe = fopen("roots_probe.stl", "w");
    REQUIRE(probe);
    fclose(probe);
    const char *mesh = "<sdf version='1.9'><model name='m'><link name='l'><visual name='v'><geometry><mesh>"
                       "<uri>roots_probe.stl</uri></mesh></geometry></visual></link></model></sdf>";
    CHECK_INT(wk_desc_read(&(wk_read_desc){.resource_string = mesh}, &d, &st), ==, WK_OK);
    wk_desc_free(d);
    CHECK_INT(wk_desc_read(&(wk_read_desc){.resource_string = mesh, .roots = worlds}, &d, &st), ==,
              WK_MISSING_ASSETS);
    CHECK(strstr(st.message, "roots_probe.stl: not found in the file's folder, the roots or the resource path"));
    remove("roots_probe.stl");
}

static const wk_test_case cases[] = {
    {"long_names_refused_in_every_format", long_names_refused_in_every_format},
    {"doctype_refused", doctype_refused},
    {"deep_nesting_refused", deep_nesting_refused},
    {"files_outside_the_allowed_folders_refused", files_outside_the_allowed_folders_refused},
    {"roots_bound_what_a_read_reaches", roots_bound_what_a_read_reaches},
};
WK_TEST_MAIN(cases)
