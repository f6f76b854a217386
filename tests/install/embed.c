/* embed.c — a program built outside worldkit's tree against an installed
 * worldkit (tests/install/embed.sh builds it with pkg-config and with
 * CMake's find_package): it reads the world file it is given, instantiates
 * it into a scene, and prints the world pose of the entity it names by its
 * scoped name (`model::link`), which the script compares with what it
 * expects. */
#include <stdio.h>
#include <worldkit/wk_formats.h>
#include <worldkit/wk_scene.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: embed WORLD SCOPED_NAME\n");
        return 2;
    }
    wk_status st = {0};
    wk_world_desc *d = NULL;
    wk_scene *s = NULL;
    wk_entity world, e = WK_NULL_ENTITY;
    int rc = wk_desc_read(&(wk_read_desc){.uri = argv[1]}, &d, &st);
    if (rc == WK_OK)
        rc = (s = wk_scene_new()) ? wk_desc_instantiate(s, d, 0, WK_NULL_ENTITY, NULL, NULL, &world, &st)
                                  : wk_fail(&st, WK_NOMEM, "out of memory");
    if (rc == WK_OK && !(e = wk_scene_scoped(s, world, argv[2])))
        rc = wk_fail(&st, WK_NOT_FOUND, "%s: no entity named %s", argv[1], argv[2]);
    if (rc == WK_OK) {
        wk_pose p = wk_scene_world_pose(s, e);
        printf("%s %g %g %g %g %g %g %g\n", argv[2], p.p.x, p.p.y, p.p.z, p.q.x, p.q.y, p.q.z, p.q.w);
    } else {
        fprintf(stderr, "embed: %s: %s\n", wk_code_name(rc), st.message);
    }
    wk_scene_free(s);
    wk_desc_free(d);
    return rc == WK_OK ? 0 : 1;
}
