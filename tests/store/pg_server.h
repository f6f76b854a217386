/* pg_server.h — what the store's tests on PostgreSQL share: the server
 * tests/store/with_postgres.sh started for them (named in WK_TEST_PG_URL),
 * SQL run there with a connection of the test's own, and a schema per
 * case, so that cases start from an empty database. */
#ifndef WK_TESTS_STORE_PG_SERVER_H
#define WK_TESTS_STORE_PG_SERVER_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The PostgreSQL server the cases run on; NULL: none. */
static inline const char *pg_url(void)
{
    const char *url = getenv("WK_TEST_PG_URL");
    return url && *url ? url : NULL;
}

/* Runs sql on the PostgreSQL database at url; its first value as an
 * integer (0 without rows), or -1 when it fails. */
static inline long long pg_value(const char *url, const char *sql)
{
    PGconn *conn = PQconnectdb(url);
    PQclear(PQexec(conn, "SET client_min_messages = warning"));
    PGresult *res = PQexec(conn, sql);
    ExecStatusType s = PQresultStatus(res);
    long long v = s == PGRES_COMMAND_OK ? 0
                  : s == PGRES_TUPLES_OK ? (PQntuples(res) ? atoll(PQgetvalue(res, 0, 0)) : 0)
                                         : -1;
    if (v < 0)
        fprintf(stderr, "%s: %s", sql, PQerrorMessage(conn));
    PQclear(res);
    PQfinish(conn);
    return v;
}

/* Makes a new schema of pg_url()'s database and writes to buf (cap bytes)
 * the URL of a connection working in it. */
static inline bool pg_new_schema(char *buf, size_t cap)
{
    static int made;
    const char *url = pg_url();
    char sql[64];
    snprintf(sql, sizeof sql, "CREATE SCHEMA s%d_%d", (int)getpid(), ++made);
    snprintf(buf, cap, "%s%coptions=-csearch_path%%3Ds%d_%d", url, strchr(url, '?') ? '&' : '?', (int)getpid(),
             made);
    return pg_value(url, sql) == 0;
}

/* Drops the schema of a URL pg_new_schema made. */
static inline void pg_drop_schema(const char *place)
{
    const char *schema = strstr(place, "%3D");
    char sql[128];
    if (!schema)
        return;
    snprintf(sql, sizeof sql, "DROP SCHEMA %s CASCADE", schema + 3);
    pg_value(pg_url(), sql);
}

#endif
