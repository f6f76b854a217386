/* test_shared.c — two stores on one PostgreSQL database, as two servers
 * sharing it see each other: the listing names each world's holder, ids
 * picked for worlds created without one never clash (numbered by the
 * database, not by a listing), a world's own metadata names its holder too,
 * a world whose lease
 * another server took leaves the old holder's memory at its next renewal,
 * a world another server holds is named from memory until that server's
 * lease may have run out (the database asked only then), a world that
 * does not load lets its lease go, a server whose lease went
 * to another never writes again, a mere look (the live view's) never
 * takes a world, the schema is plain SQL, and a
 * transaction whose session PostgreSQL ended runs again on a new one.
 *
 * Runs beside a PostgreSQL server of its own (tests/store/with_postgres.sh
 * names it in WK_TEST_PG_URL); without one it is skipped (exit 77). Each
 * case works in a schema of its own. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/pg_server.h"
#include "store/store_internal.h"
#include "wk_test.h"
#include "worldkit/wk_store.h"

#define PLACE_MAX 1024
/* Short, so that a renewal (every third of it) comes soon. */
#define LEASE_MS 600

/* A store at place, as a server reached at address would open it. */
static wk_store *open_as(const char *place, const char *address)
{
    wk_store *store = NULL;
    wk_status st;
    if (wk_store_open_desc(&(wk_store_desc){.url = place, .address = address, .lease_ms = LEASE_MS}, &store, &st))
        fprintf(stderr, "open %s: %s\n", address, st.message);
    return store;
}

static void sleep_ms(long ms)
{
    nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000}, NULL);
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* How many worlds store holds in memory. */
static size_t held(wk_store *store)
{
    pthread_rwlock_rdlock(&store->lock);
    size_t n = store->count;
    pthread_rwlock_unlock(&store->lock);
    return n;
}

/* A store on a new schema (its URL in place) as a server reached at
 * a.example:1 opens it, holding one world, w; NULL when that fails. */
static wk_store *one_world(char *place)
{
    char id[WK_WORLD_ID_MAX];
    wk_status st;
    if (!CHECK(pg_new_schema(place, PLACE_MAX)))
        return NULL;
    wk_store *a = open_as(place, "a.example:1");
    if (CHECK(a) && !CHECK_INT(wk_store_create(a, &(wk_world_create_desc){.id = "w"}, id, &st), ==, WK_OK)) {
        wk_store_free(a);
        a = NULL;
    }
    return a;
}

/* Two stores on a new schema, as two servers open it. */
typedef struct two_servers {
    char place[PLACE_MAX];
    wk_store *a, *b;
} two_servers;

static bool two_open(two_servers *t)
{
    *t = (two_servers){0};
    if (!CHECK(pg_new_schema(t->place, sizeof t->place)))
        return false;
    t->a = open_as(t->place, "a.example:1");
    t->b = open_as(t->place, "b.example:2");
    return CHECK(t->a && t->b);
}

static void two_close(two_servers *t)
{
    wk_store_free(t->a);
    wk_store_free(t->b);
    pg_drop_schema(t->place);
}

/* Checks that store's listing holds, in order, the n worlds ids, held by
 * the servers owners name. */
static void check_listing(wk_store *store, size_t n, const char *const *ids, const char *const *owners)
{
    wk_world_meta *metas = NULL;
    size_t count = 0;
    CHECK_INT(wk_store_list(store, &metas, &count), ==, WK_OK);
    if (CHECK_INT(count, ==, n))
        for (size_t i = 0; i < n; i++) {
            CHECK_STR(metas[i].id, ids[i]);
            CHECK_STR(metas[i].owner, owners[i]);
        }
    free(metas);
}

static void listing_names_holders(void)
{
    char id[WK_WORLD_ID_MAX];
    two_servers t;
    wk_status st;
    if (two_open(&t)) {
        CHECK_INT(wk_store_create(t.a, &(wk_world_create_desc){.id = "wa"}, id, &st), ==, WK_OK);
        CHECK_INT(wk_store_create(t.b, &(wk_world_create_desc){.id = "wb"}, id, &st), ==, WK_OK);
        check_listing(t.b, 2, (const char *[]){"wa", "wb"}, (const char *[]){"a.example:1", "b.example:2"});
        /* A world's own metadata (GetWorld, CloneWorld's answer) names its
         * holder too: the server that opened it. */
        wk_world_meta meta;
        CHECK_INT(wk_store_meta(t.a, "wa", &meta, &st), ==, WK_OK);
        CHECK_STR(meta.owner, "a.example:1");
        CHECK_INT(wk_store_clone(t.b, "wb", "wb_copy", false, NULL, id, &st), ==, WK_OK);
        CHECK_INT(wk_store_meta(t.b, id, &meta, &st), ==, WK_OK);
        CHECK_STR(meta.owner, "b.example:2");
    }
    two_close(&t);
}

/* Creates count worlds without an id in store; how many were refused. */
typedef struct creator {
    wk_store *store;
    int count, refused;
} creator;

static void *create_many(void *arg)
{
    creator *c = arg;
    for (int i = 0; i < c->count; i++) {
        char id[WK_WORLD_ID_MAX];
        wk_status st;
        if (wk_store_create(c->store, &(wk_world_create_desc){0}, id, &st)) {
            fprintf(stderr, "create: %s\n", st.message);
            c->refused++;
        }
    }
    return NULL;
}

static void ids_never_clash(void)
{
    char id[WK_WORLD_ID_MAX];
    two_servers t;
    wk_status st;
    if (two_open(&t)) {
        /* One after the other: each picks past the other's. */
        CHECK_INT(wk_store_create(t.a, &(wk_world_create_desc){0}, id, &st), ==, WK_OK);
        CHECK_STR(id, "World_1");
        CHECK_INT(wk_store_create(t.b, &(wk_world_create_desc){0}, id, &st), ==, WK_OK);
        CHECK_STR(id, "World_2");
        CHECK_INT(wk_store_clone(t.b, "World_2", NULL, false, NULL, id, &st), ==, WK_OK);
        CHECK_STR(id, "World_2_1");
        /* At the same time: a clash at the database is picked again. */
        creator ca = {t.a, 15, 0}, cb = {t.b, 15, 0};
        pthread_t ta, tb;
        pthread_create(&ta, NULL, create_many, &ca);
        pthread_create(&tb, NULL, create_many, &cb);
        pthread_join(ta, NULL);
        pthread_join(tb, NULL);
        CHECK_INT(ca.refused + cb.refused, ==, 0);
        CHECK_INT(pg_value(t.place, "SELECT count(DISTINCT id) FROM worlds"), ==, 33);
        /* The numbers come from the database's sequence, one per world,
         * not from a listing of the worlds: 32 worlds, 32 numbers. */
        CHECK_INT(pg_value(t.place, "SELECT last_value FROM world_numbers"), ==, 32);
        /* A number whose id a client gave a world already (here on the
         * other server, so this one does not know it) clashes at the
         * database and the next number is taken. */
        CHECK_INT(wk_store_create(t.b, &(wk_world_create_desc){.id = "World_33"}, id, &st), ==, WK_OK);
        CHECK_INT(wk_store_create(t.a, &(wk_world_create_desc){0}, id, &st), ==, WK_OK);
        CHECK_STR(id, "World_34");
        /* A taken id's suffix comes from a counter of the database, so
         * the other server counts on from it; an id a client gave on the
         * other server clashes at the database and the next is taken. */
        CHECK_INT(wk_store_create(t.a, &(wk_world_create_desc){.id = "World_2_2"}, id, &st), ==, WK_OK);
        CHECK_INT(wk_store_clone(t.b, "World_2", NULL, false, NULL, id, &st), ==, WK_OK);
        CHECK_STR(id, "World_2_3");
        CHECK_INT(pg_value(t.place, "SELECT last FROM id_suffixes WHERE base = 'World_2'"), ==, 3);
    }
    two_close(&t);
}

static void lost_world_leaves_memory(void)
{
    char place[PLACE_MAX], id[WK_WORLD_ID_MAX];
    REQUIRE(pg_new_schema(place, sizeof place));
    wk_store *a = open_as(place, "a.example:1");
    wk_status st;
    if (CHECK(a)) {
        CHECK_INT(wk_store_create(a, &(wk_world_create_desc){.id = "w"}, id, &st), ==, WK_OK);
        CHECK_INT(wk_store_create(a, &(wk_world_create_desc){.id = "kept"}, id, &st), ==, WK_OK);
        CHECK_INT(held(a), ==, 2);
        /* Another server takes w's lease, as one does from a holder that
         * was paused past it. */
        CHECK_INT(pg_value(place, "UPDATE leases SET owner = 'other', address = 'o.example:3', epoch = epoch + 1, "
                                  "expires = CURRENT_TIMESTAMP + interval '1 minute' "
                                  "FROM worlds WHERE worlds.wid = leases.wid AND worlds.id = 'w'"),
                  ==, 0);
        /* Within two renewals, a's memory holds kept only; nobody called
         * for w. */
        for (int i = 0; i < 2 * LEASE_MS / 10 && held(a) != 1; i++)
            sleep_ms(10);
        CHECK_INT(held(a), ==, 1);
        wk_world *w;
        if (CHECK_INT(wk_store_open(a, "kept", false, &w, &st), ==, WK_OK))
            wk_store_close(w, false, false);
        CHECK_INT(wk_store_open(a, "w", false, &w, &st), ==, WK_MOVED);
        CHECK(strstr(st.message, "o.example:3"));
    }
    wk_store_free(a);
    pg_drop_schema(place);
}

/* b asks the database who holds w at most every 250 ms within the lease:
 * in between, it names the holder it read, even after the lease row
 * changed behind its back (done here by hand; a server lets go early only
 * at its close or after a failed load). */
static void holder_named_from_memory(void)
{
    char place[PLACE_MAX], id[WK_WORLD_ID_MAX];
    REQUIRE(pg_new_schema(place, sizeof place));
    wk_store *a = NULL, *b = open_as(place, "b.example:2");
    wk_status st;
    /* A lease long enough for the steps below to come well within it. */
    const wk_store_desc desc = {.url = place, .address = "a.example:1", .lease_ms = 2000};
    if (CHECK_INT(wk_store_open_desc(&desc, &a, &st), ==, WK_OK) && CHECK(b) &&
        CHECK_INT(wk_store_create(a, &(wk_world_create_desc){.id = "w"}, id, &st), ==, WK_OK)) {
        wk_world *w;
        long asked = now_ms();
        CHECK_INT(wk_store_open(b, "w", false, &w, &st), ==, WK_MOVED);
        CHECK(strstr(st.message, "a.example:1"));
        CHECK_INT(pg_value(place, "UPDATE leases SET owner = 'other', address = 'o.example:3', epoch = epoch + 1, "
                                  "expires = CURRENT_TIMESTAMP + interval '1 minute'"),
                  ==, 0);
        CHECK_INT(wk_store_open(b, "w", false, &w, &st), ==, WK_MOVED);
        /* Named from memory for 250 ms at most (persist.c), so that a
         * world its holder let go is soon taken: a host too loaded to come
         * back within it has asked the database already. */
        if (now_ms() - asked < 250)
            CHECK(strstr(st.message, "a.example:1"));
        /* Past the memory a read: the database is asked again. */
        long left = 250 + 100 - (now_ms() - asked);
        sleep_ms(left > 0 ? left : 0);
        CHECK_INT(wk_store_open(b, "w", false, &w, &st), ==, WK_MOVED);
        CHECK(strstr(st.message, "o.example:3"));
    }
    wk_store_free(b);
    wk_store_free(a);
    pg_drop_schema(place);
}

static void failed_load_lets_lease_go(void)
{
    char place[PLACE_MAX];
    wk_store *a = one_world(place);
    REQUIRE(a);
    wk_status st;
    wk_store_free(a);
    CHECK_INT(pg_value(place, "UPDATE snapshots SET state = '\\x12'"), ==, 0);
    wk_store *b = open_as(place, "b.example:2");
    if (CHECK(b)) {
        wk_world *w;
        CHECK_INT(wk_store_open(b, "w", false, &w, &st), ==, WK_IO);
        CHECK(strstr(st.message, "world 'w'"));
        /* Let go at once, and not renewed since. */
        const char *live = "SELECT count(*) FROM leases WHERE expires > CURRENT_TIMESTAMP";
        CHECK_INT(pg_value(place, live), ==, 0);
        sleep_ms(LEASE_MS);
        CHECK_INT(pg_value(place, live), ==, 0);
        /* Another server may try: it finds the same fault, not a holder. */
        wk_store *c = open_as(place, "c.example:3");
        if (CHECK(c)) {
            CHECK_INT(wk_store_open(c, "w", false, &w, &st), ==, WK_IO);
            CHECK(strstr(st.message, "the snapshot does not load"));
        }
        wk_store_free(c);
    }
    wk_store_free(b);
    pg_drop_schema(place);
}

/* A server that holds a world open while its lease goes to another (as
 * when it was paused past it) cannot write it: the commit fails with
 * WK_MOVED, the journal holds no entry of the old epoch, and the lease
 * row's epoch is the new holder's. */
static void stale_holder_never_writes(void)
{
    char place[PLACE_MAX];
    wk_store *a = one_world(place);
    REQUIRE(a);
    wk_status st;
    wk_world *w;
    if (CHECK_INT(wk_store_open(a, "w", true, &w, &st), ==, WK_OK)) {
        CHECK_INT(pg_value(place, "SELECT epoch FROM leases"), ==, 1);
        CHECK_INT(pg_value(place, "UPDATE leases SET owner = 'other', address = 'o.example:3', epoch = epoch + 1, "
                                  "expires = CURRENT_TIMESTAMP + interval '1 minute'"),
                  ==, 0);
        wk_entity e;
        wk_object_desc late = {.name = "late", .pose = {.q = {1, 0, 0, 0}}};
        CHECK_INT(wk_scene_create_object(wk_world_scene(w), &late, &e, &st), ==, WK_OK);
        CHECK_INT(wk_store_commit(w, true, &st), ==, WK_MOVED);
        wk_store_close(w, false, false);
        CHECK_INT(pg_value(place, "SELECT count(*) FROM journal"), ==, 0);
        CHECK_INT(pg_value(place, "SELECT epoch FROM leases"), ==, 2);
    }
    wk_store_free(a);
    pg_drop_schema(place);
}

/* Holds world "wb" of store open for writing from when opened is passed
 * until done is. */
typedef struct writer {
    wk_store *store;
    pthread_barrier_t opened, done;
} writer;

static void *hold_for_writing(void *arg)
{
    writer *wr = arg;
    wk_world *w;
    wk_status st;
    int rc = wk_store_open(wr->store, "wb", true, &w, &st);
    pthread_barrier_wait(&wr->opened);
    pthread_barrier_wait(&wr->done);
    if (rc == WK_OK)
        wk_store_close(w, false, false);
    return NULL;
}

/* The live view's look at a world (wk_store_try_open) never takes it: a
 * world another server holds, or one nobody holds, is WK_NOT_FOUND at once
 * and stays where it was; a world held here opens, or is WK_BUSY, without
 * waiting, while another thread writes it. */
static void look_never_takes(void)
{
    char id[WK_WORLD_ID_MAX];
    two_servers t;
    wk_status st;
    wk_world *w;
    if (two_open(&t)) {
        CHECK_INT(wk_store_create(t.a, &(wk_world_create_desc){.id = "wa"}, id, &st), ==, WK_OK);
        CHECK_INT(wk_store_create(t.b, &(wk_world_create_desc){.id = "wb"}, id, &st), ==, WK_OK);
        /* A world whose holder closed: free for any server to take. */
        wk_store *c = open_as(t.place, "c.example:3");
        if (CHECK(c))
            CHECK_INT(wk_store_create(c, &(wk_world_create_desc){.id = "free"}, id, &st), ==, WK_OK);
        wk_store_free(c);

        CHECK_INT(wk_store_try_open(t.b, "wa", &w, &st), ==, WK_NOT_FOUND);
        CHECK(strstr(st.message, "'wa'"));
        CHECK_INT(wk_store_try_open(t.b, "free", &w, &st), ==, WK_NOT_FOUND);
        CHECK_INT(held(t.b), ==, 1);
        check_listing(t.b, 3, (const char *[]){"free", "wa", "wb"},
                      (const char *[]){"", "a.example:1", "b.example:2"});
        /* a still writes its world. */
        if (CHECK_INT(wk_store_open(t.a, "wa", true, &w, &st), ==, WK_OK)) {
            wk_entity e;
            wk_object_desc box = {.name = "box", .pose = {.q = {1, 0, 0, 0}}};
            CHECK_INT(wk_scene_create_object(wk_world_scene(w), &box, &e, &st), ==, WK_OK);
            CHECK_INT(wk_store_commit(w, true, &st), ==, WK_OK);
            wk_store_close(w, false, false);
        }

        if (CHECK_INT(wk_store_try_open(t.b, "wb", &w, &st), ==, WK_OK))
            wk_store_close(w, false, false);
        writer wr = {.store = t.b};
        pthread_t thread;
        pthread_barrier_init(&wr.opened, NULL, 2);
        pthread_barrier_init(&wr.done, NULL, 2);
        if (CHECK(pthread_create(&thread, NULL, hold_for_writing, &wr) == 0)) {
            pthread_barrier_wait(&wr.opened);
            CHECK_INT(wk_store_try_open(t.b, "wb", &w, &st), ==, WK_BUSY);
            pthread_barrier_wait(&wr.done);
            pthread_join(thread, NULL);
        }
        pthread_barrier_destroy(&wr.opened);
        pthread_barrier_destroy(&wr.done);
    }
    two_close(&t);
}

/* The schema is plain SQL: its seven tables, no extension, no function or
 * procedure of its own, so that PostgreSQL-compatible databases run it
 * too. */
static void schema_is_plain_sql(void)
{
    char place[PLACE_MAX];
    wk_store *a = one_world(place);
    REQUIRE(a);
    CHECK_INT(pg_value(place, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"),
              ==, 7);
    CHECK_INT(pg_value(place, "SELECT count(*) FROM pg_extension WHERE extname <> 'plpgsql'"), ==, 0);
    CHECK_INT(pg_value(place, "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                              "WHERE n.nspname = current_schema()"),
              ==, 0);
    wk_store_free(a);
    pg_drop_schema(place);
}

/* The pid of the one session of user's other than the asking one: the
 * session of the one store open as user. */
static long long store_session(const char *place, const char *user)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() "
             "AND usename = '%s'",
             user);
    return pg_value(place, sql);
}

/* Leaves store's session idle inside a transaction, as a server stalled
 * there would, until PostgreSQL ends it (idle_in_transaction_session_timeout,
 * 50 ms here); whether it did. The store's lease is long: no renewal comes
 * meanwhile to commit the transaction. */
static bool idle_past_timeout(wk_store *store, const char *place)
{
    long long before = store_session(place, "worldkit");
    if (before <= 0 || wk__db_exec(store, "SET idle_in_transaction_session_timeout = '50ms'; BEGIN") != WK_OK)
        return false;
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_stat_activity WHERE pid = %lld", before);
    for (int i = 0; i < 100; i++) { /* within 5 s, however loaded the host */
        sleep_ms(50);
        if (pg_value(place, sql) == 0)
            return true;
    }
    return false;
}

static void lost_session_runs_again(void)
{
    char place[PLACE_MAX], other[PLACE_MAX + 32], id[WK_WORLD_ID_MAX];
    REQUIRE(pg_new_schema(place, sizeof place));
    wk_store *a = NULL, *b = NULL;
    wk_status st;
    const wk_store_desc desc = {.url = place, .address = "a.example:1", .lease_ms = 60000};
    if (CHECK_INT(wk_store_open_desc(&desc, &a, &st), ==, WK_OK)) {
        /* A write whose session PostgreSQL ended: run again on a new one. */
        CHECK(idle_past_timeout(a, place));
        CHECK_INT(wk_store_create(a, &(wk_world_create_desc){.id = "w"}, id, &st), ==, WK_OK);
        CHECK_INT(store_session(place, "worldkit"), >, 0);
        /* A read too. */
        CHECK(idle_past_timeout(a, place));
        check_listing(a, 1, (const char *[]){"w"}, (const char *[]){"a.example:1"});
    }
    /* A database that no longer lets the server in: the session lost and
     * a new one refused, the call answers WK_UNAVAILABLE with PostgreSQL's
     * reason, and changes nothing. */
    CHECK_INT(pg_value(place, "CREATE ROLE wk_shut_out LOGIN SUPERUSER"), ==, 0);
    snprintf(other, sizeof other, "%s&user=wk_shut_out", place);
    if (CHECK_INT(wk_store_open_desc(&(wk_store_desc){.url = other, .address = "b.example:2", .lease_ms = 60000},
                                     &b, &st),
                  ==, WK_OK)) {
        CHECK_INT(pg_value(place, "ALTER ROLE wk_shut_out NOLOGIN"), ==, 0);
        CHECK_INT(pg_value(place, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                  "WHERE usename = 'wk_shut_out'"),
                  ==, 1);
        CHECK_INT(wk_store_create(b, &(wk_world_create_desc){.id = "y"}, id, &st), ==, WK_UNAVAILABLE);
        CHECK(strstr(st.message, "not permitted to log in"));
        CHECK_INT(pg_value(place, "ALTER ROLE wk_shut_out LOGIN"), ==, 0);
        CHECK_INT(pg_value(place, "SELECT count(*) FROM worlds WHERE id = 'y'"), ==, 0);
        CHECK_INT(held(b), ==, 0);
    }
    wk_store_free(b);
    wk_store_free(a);
    pg_value(place, "DROP ROLE wk_shut_out");
    pg_drop_schema(place);
}

static const wk_test_case cases[] = {
    {"listing_names_holders", listing_names_holders},
    {"ids_never_clash", ids_never_clash},
    {"lost_world_leaves_memory", lost_world_leaves_memory},
    {"holder_named_from_memory", holder_named_from_memory},
    {"failed_load_lets_lease_go", failed_load_lets_lease_go},
    {"lost_session_runs_again", lost_session_runs_again},
    {"stale_holder_never_writes", stale_holder_never_writes},
    {"look_never_takes", look_never_takes},
    {"schema_is_plain_sql", schema_is_plain_sql},
};

int main(int argc, char **argv)
{
    if (!pg_url()) {
        fprintf(stderr, "test_shared: no WK_TEST_PG_URL (tests/store/with_postgres.sh sets it): skipped\n");
        return 77;
    }
    return wk_test_main(cases, sizeof cases / sizeof cases[0], argc, argv);
}
