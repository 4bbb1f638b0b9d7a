/* The history database in SQLite. See history.h.
 *
 * Every statement is prepared with its parameters bound (nothing read from
 * a catalogue is ever spliced into SQL). A run goes in with BEGIN
 * IMMEDIATE ... COMMIT: the write lock is taken before anything is
 * written, so two jobs adding at once wait for each other (busy timeout)
 * instead of failing halfway, and a failure rolls the whole run back. */
#include "read/history.h"
#include "util/fsutil.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "census/registry.h"
#include "judge/detect.h"
#include "util/grow.h"
#include "util/sha256.h"
#include "util/timeutil.h"

#define APP_ID 0x67637573   /* "gcus": PRAGMA application_id of our databases */
/* 1: no method versions; 2: params.method and links.method (NULL: unknown) */
#define SCHEMA_VERSION 2

struct gc_history {
    sqlite3 *db;
    char path[4096];
    double timeout_s;
    int layout;              /* the file's schema version: 1 is read as it is, migrated on write */
    long long migrated;      /* this open migrated it: values left of unknown method; -1: did not */
    long long unknown;       /* gc_old_method's count of the values it left unknown */
    double work_until_s;     /* gc_now_s() past which a statement is interrupted */
};

/* Bounds on what an untrusted database can make us do: a statement's
 * wall time (a recursive view, a huge join) and SQLite's heap, where its
 * temporary tables live (temp_store = MEMORY: no temporary file grows). */
#define HIST_WORK_S 120.0
#define HIST_HEAP_BYTES ((long long)1 << 30)
/* start times a run may have: 1970 to the year 9999 (seconds) */
#define HIST_T_MIN_S 0LL
#define HIST_T_MAX_S 253402300799LL

int gc_history_time_ok(long long t_s) { return t_s >= HIST_T_MIN_S && t_s <= HIST_T_MAX_S; }

static int progress_fn(void *ctx)
{
    const gc_history *h = ctx;
    return gc_now_s() > h->work_until_s;   /* nonzero: SQLITE_INTERRUPT */
}

static const char *const SCHEMA =
    "CREATE TABLE IF NOT EXISTS runs ("
    " id INTEGER PRIMARY KEY, run_key TEXT NOT NULL UNIQUE,"
    " start_time TEXT NOT NULL, start_s INTEGER NOT NULL, end_time TEXT NOT NULL,"
    " plan_name TEXT NOT NULL, plan_sha256 TEXT NOT NULL, git_commit TEXT NOT NULL,"
    " backend TEXT NOT NULL, source TEXT NOT NULL, added_time TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS gpus ("
    " run INTEGER NOT NULL, uuid TEXT NOT NULL, node TEXT NOT NULL, gpu_index INTEGER NOT NULL,"
    " name TEXT NOT NULL, status TEXT NOT NULL, level INTEGER NOT NULL, reason TEXT NOT NULL,"
    " PRIMARY KEY (run, uuid)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS gpus_uuid ON gpus (uuid);"
    "CREATE INDEX IF NOT EXISTS gpus_node ON gpus (node);"
    "CREATE TABLE IF NOT EXISTS params ("
    " uuid TEXT NOT NULL, name TEXT NOT NULL, run INTEGER NOT NULL, value REAL NOT NULL,"
    " unit TEXT NOT NULL, method INTEGER, PRIMARY KEY (uuid, name, run)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS links ("
    " run INTEGER NOT NULL, link_index INTEGER NOT NULL, class TEXT NOT NULL, subject TEXT NOT NULL,"
    " node TEXT NOT NULL, uuid TEXT NOT NULL, sku TEXT NOT NULL, alpha_s REAL, beta_bps REAL,"
    " nominal_bps REAL, lambda REAL, level INTEGER NOT NULL, reason TEXT NOT NULL, method INTEGER,"
    " PRIMARY KEY (run, link_index)) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS links_uuid ON links (uuid, class);"
    "CREATE TABLE IF NOT EXISTS nodes ("
    " node TEXT NOT NULL, run INTEGER NOT NULL, level INTEGER NOT NULL, reason TEXT NOT NULL,"
    " PRIMARY KEY (node, run)) WITHOUT ROWID;";

/* An SQLite failure as one of ours, naming the file. */
static int db_fail(gc_history *h, int src, const char *doing, gc_err *err)
{
    const char *m = h->db ? sqlite3_errmsg(h->db) : sqlite3_errstr(src);
    switch (src & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return gc_fail(err, GC_ETIMEOUT, "%s: database is locked (another writer held it past %.0f s) "
                       "while %s: nothing was changed; retry", h->path, h->timeout_s, doing);
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        return gc_fail(err, GC_ECORRUPT, "%s: not a readable SQLite database (%s) while %s: "
                       "nothing was changed", h->path, m, doing);
    case SQLITE_NOMEM:
        return gc_fail(err, GC_ENOMEM, "%s: out of memory while %s", h->path, doing);
    default:
        return gc_fail(err, GC_EIO, "%s: %s while %s: nothing was changed", h->path, m, doing);
    }
}

int gc_history_is_db(const char *path)
{
    struct stat st;
    if (stat(path, &st) || !S_ISREG(st.st_mode))
        return 0;
    FILE *f = gc_fopen_input(path, SIZE_MAX, NULL);
    char head[16] = "";
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return n == sizeof head && !memcmp(head, "SQLite format 3", 16);
}

static int exec(gc_history *h, const char *sql, const char *doing, gc_err *err)
{
    h->work_until_s = gc_now_s() + HIST_WORK_S + h->timeout_s;
    int rc = sqlite3_exec(h->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : db_fail(h, rc, doing, err);
}

static int pragma_int(gc_history *h, const char *sql, long long *v, gc_err *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(h->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        *v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : db_fail(h, rc, "reading its header", err);
}

/* The header of an open database: its application id and how many schema
 * objects it holds (two reads: one state of the file only under a lock). */
static int read_header(gc_history *h, long long *app, long long *tables, gc_err *err)
{
    int rc = pragma_int(h, "PRAGMA application_id", app, err);
    return rc ? rc : pragma_int(h, "SELECT count(*) FROM sqlite_master", tables, err);
}

/* ---- method versions of schema-1 rows ---------------------------------- */

/* gc_old_method(KEY, START_TIME): the method of a value stored without one
 * (schema 1): KEY a parameter name or "link:CLASS:beta_bps", START_TIME its
 * run's. A database only dates its runs; the build that measured them may
 * be older than its date (a deployed gpucensus trails the registry's
 * commits), so a date cannot tell method 5 from 6. Known only where no
 * change of the benchmark is dated at or before the run: then it is 1, as
 * it is for a benchmark whose method never changed. Otherwise NULL:
 * unknown, never compared (check names them). No benchmark: NULL, and
 * compared with anything, as a value without a method always is. */
static void old_method_fn(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    gc_history *h = sqlite3_user_data(cx);
    const char *key = (const char *)sqlite3_value_text(argv[0]);
    const char *start = (const char *)sqlite3_value_text(argv[1]);
    int bi = key ? gc_det_key_bench(key) : -1;
    if (bi >= 0 && gc_bench_method_at(gc_bench_defs[bi].name, start ? start : "") == 1) {
        sqlite3_result_int(cx, 1);
        return;
    }
    if (bi >= 0)
        h->unknown++;
    sqlite3_result_null(cx);
}

/* A parameter's (p) and a link's (l) method as this file holds it, for a
 * query that joins runs as r. */
static const char *param_method(const gc_history *h)
{
    return h->layout >= 2 ? "p.method" : "gc_old_method(p.name, r.start_time)";
}

static const char *link_method(const gc_history *h)
{
    return h->layout >= 2 ? "l.method"
                          : "gc_old_method('link:' || l.class || ':beta_bps', r.start_time)";
}

/* Schema 1 to 2 under the write lock (another writer may have done it
 * meanwhile): the method columns, filled by gc_old_method. */
static int migrate(gc_history *h, gc_err *err)
{
    int rc = exec(h, "BEGIN IMMEDIATE", "migrating it to history schema 2", err);
    if (rc)
        return rc;
    /* a statement on a table checks the schema's cookie and reloads what
     * this connection cached of it at open: a writer that migrated it
     * meanwhile added columns (an INSERT prepared on the old one fails) */
    rc = exec(h, "SELECT count(*) FROM sqlite_master", "migrating it to history schema 2", err);
    long long ver;
    if (!rc)
        rc = pragma_int(h, "PRAGMA user_version", &ver, err);
    if (!rc && ver == 1) {
        h->unknown = 0;
        rc = exec(h,
                  "ALTER TABLE params ADD COLUMN method INTEGER;"
                  "ALTER TABLE links ADD COLUMN method INTEGER;"
                  "UPDATE params SET method = gc_old_method(name, "
                  " (SELECT start_time FROM runs WHERE runs.id = params.run));"
                  "UPDATE links SET method = gc_old_method('link:' || class || ':beta_bps', "
                  " (SELECT start_time FROM runs WHERE runs.id = links.run));"
                  "PRAGMA user_version = 2;",
                  "migrating it to history schema 2", err);
        if (!rc)
            h->migrated = h->unknown;
    }
    if (!rc)
        rc = exec(h, "COMMIT", "migrating it to history schema 2", err);
    if (rc) {
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
        h->migrated = -1;
    }
    return rc;
}

/* Table by table: each of ours a table (not a view) with its columns, and
 * no trigger or view anywhere (a query of ours must run only our SQL).
 * method columns: schema 2's (schema 1 has none). */
static int check_tables(gc_history *h, long long ver, gc_err *err)
{
    static const struct { const char *name, *cols[16]; } T[] = {
        { "runs", { "id", "run_key", "start_time", "start_s", "end_time", "plan_name", "plan_sha256",
                    "git_commit", "backend", "source", "added_time" } },
        { "gpus", { "run", "uuid", "node", "gpu_index", "name", "status", "level", "reason" } },
        { "params", { "uuid", "name", "run", "value", "unit", "method" } },
        { "links", { "run", "link_index", "class", "subject", "node", "uuid", "sku", "alpha_s",
                     "beta_bps", "nominal_bps", "lambda", "level", "reason", "method" } },
        { "nodes", { "node", "run", "level", "reason" } },
    };
    sqlite3_stmt *st = NULL;
    long long bad = 0;
    int rc = sqlite3_prepare_v2(h->db, "SELECT count(*) FROM sqlite_master WHERE type IN "
                                "('view', 'trigger')", -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
        bad = sqlite3_column_int64(st, 0), rc = SQLITE_OK;
    sqlite3_finalize(st);
    if (rc != SQLITE_OK)
        return db_fail(h, rc, "checking its schema", err);
    if (bad)
        return gc_fail(err, GC_EINVAL, "%s: not a gpucensus history: it holds %lld view(s) or "
                       "trigger(s); refused (nothing of it is read)", h->path, bad);
    for (size_t t = 0; t < sizeof T / sizeof *T; t++) {
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT type FROM sqlite_master WHERE name = '%s'", T[t].name);
        char type[16] = "";
        if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            snprintf(type, sizeof type, "%s", (const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        if (strcmp(type, "table"))
            return gc_fail(err, GC_EINVAL, "%s: not a gpucensus history: '%s' is %s%s, not a table",
                           h->path, T[t].name, type[0] ? "a " : "missing", type);
        for (int c = 0; c < 16 && T[t].cols[c]; c++) {
            if (ver == 1 && !strcmp(T[t].cols[c], "method"))
                continue;
            snprintf(sql, sizeof sql, "SELECT 1 FROM pragma_table_info('%s') WHERE name = '%s'",
                     T[t].name, T[t].cols[c]);
            int found = 0;
            if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) == SQLITE_OK)
                found = sqlite3_step(st) == SQLITE_ROW;
            sqlite3_finalize(st);
            if (!found)
                return gc_fail(err, GC_EINVAL, "%s: not a gpucensus history: table '%s' has no "
                               "column '%s'", h->path, T[t].name, T[t].cols[c]);
        }
    }
    return 0;
}

/* Schema 2, or 1: read as it is, migrated when opened to write. */
static int check_version(gc_history *h, int write, gc_err *err)
{
    long long ver;
    int rc = pragma_int(h, "PRAGMA user_version", &ver, err);
    if (!rc && (ver == 1 || ver == SCHEMA_VERSION))
        rc = check_tables(h, ver, err);
    if (!rc && ver == 1 && write)
        rc = migrate(h, err);
    if (!rc && ver != 1 && ver != SCHEMA_VERSION)
        rc = gc_fail(err, GC_EINVAL, "%s: history schema version %lld; this gpucensus reads 1 and %d",
                     h->path, ver, SCHEMA_VERSION);
    h->layout = !rc && ver == 1 && !write ? 1 : SCHEMA_VERSION;
    return rc;
}

static int not_ours(gc_history *h, long long app, gc_err *err)
{
    return gc_fail(err, GC_EINVAL, "%s: an SQLite database, but not a gpucensus history "
                   "(application_id 0x%llx)", h->path, (unsigned long long)app);
}

/* The switch to WAL needs the file to itself for a moment, and SQLite may
 * answer BUSY at once, without its busy handler, while another writer
 * creating the same new file holds a lock (t_history's concurrent adds met
 * it): try again until the open's timeout. */
static int to_wal(gc_history *h, gc_err *err)
{
    double until_s = gc_now_s() + h->timeout_s;
    for (;;) {
        int rc = sqlite3_exec(h->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return 0;
        if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
            return db_fail(h, rc, "switching it to WAL", err);
        if (gc_now_s() >= until_s)
            return db_fail(h, rc, "switching it to WAL", err);
        sqlite3_sleep(20);
    }
}

/* Ours (application id), or empty and writable: made ours. Several writers
 * may meet a new file at once (jobs ending together): the one that takes
 * the write lock first creates the tables; the others, looking again under
 * the lock, find them made. */
static int check_schema(gc_history *h, int write, gc_err *err)
{
    long long app, tables;
    int rc = read_header(h, &app, &tables, err);
    if (rc)
        return rc;
    if (app == APP_ID)
        return check_version(h, write, err);
    if (!write)
        return app != 0 || tables != 0 ? not_ours(h, app, err)
                                       : gc_fail(err, GC_EINVAL, "%s: an empty database: no history yet",
                                                 h->path);
    if (app != 0)
        return not_ours(h, app, err);
    /* WAL first (it cannot change inside a transaction) */
    if ((rc = to_wal(h, err)))
        return rc;
    if ((rc = exec(h, "BEGIN IMMEDIATE", "creating its tables", err)))
        return rc;
    rc = read_header(h, &app, &tables, err);
    if (!rc && app == APP_ID) {   /* another writer made it meanwhile */
        exec(h, "COMMIT", "reading its header", err);
        return check_version(h, write, err);
    }
    if (!rc && (app != 0 || tables != 0))
        rc = not_ours(h, app, err);
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA application_id=%d; PRAGMA user_version=%d;", APP_ID,
             SCHEMA_VERSION);
    if (!rc)
        rc = exec(h, SCHEMA, "creating its tables", err);
    if (!rc)
        rc = exec(h, sql, "creating its tables", err);
    if (!rc)
        rc = exec(h, "COMMIT", "creating its tables", err);
    if (rc)
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int gc_history_open(const char *path, int write, double timeout_s, gc_history **out, gc_err *err)
{
    *out = NULL;
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode))
        return gc_fail(err, GC_EINVAL, "%s: not a regular file", path);
    if (!exists && !write)
        return gc_fail(err, GC_EIO, "%s: no such history database", path);
    gc_history *h = calloc(1, sizeof *h);
    if (!h)
        return gc_fail(err, GC_ENOMEM, "out of memory");
    snprintf(h->path, sizeof h->path, "%s", path);
    h->timeout_s = timeout_s > 0 ? timeout_s : GC_HISTORY_TIMEOUT_S;
    h->layout = SCHEMA_VERSION;
    h->migrated = -1;
    int flags = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    int rc = sqlite3_open_v2(path, &h->db, flags | SQLITE_OPEN_NOFOLLOW, NULL);
    if (rc != SQLITE_OK) {
        rc = db_fail(h, rc, "opening it", err);
        gc_history_close(h);
        return rc;
    }
    sqlite3_busy_timeout(h->db, (int)(h->timeout_s * 1000));
    sqlite3_extended_result_codes(h->db, 1);
    /* untrusted: no SQL functions from its schema, no writes to it
     * through the schema tables, every statement bounded */
    sqlite3_db_config(h->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    sqlite3_db_config(h->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_hard_heap_limit64(HIST_HEAP_BYTES);
    sqlite3_exec(h->db, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL);
    h->work_until_s = gc_now_s() + HIST_WORK_S + h->timeout_s;   /* the open's checks */
    sqlite3_progress_handler(h->db, 10000, progress_fn, h);
    rc = sqlite3_create_function(h->db, "gc_old_method", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, h,
                                 old_method_fn, NULL, NULL);
    rc = rc == SQLITE_OK ? check_schema(h, write, err) : db_fail(h, rc, "opening it", err);
    if (rc) {
        gc_history_close(h);
        return rc;
    }
    *out = h;
    return 0;
}

void gc_history_close(gc_history *h)
{
    if (!h)
        return;
    sqlite3_close(h->db);
    free(h);
}

const char *gc_history_path(const gc_history *h) { return h->path; }

int gc_history_migrated(const gc_history *h, long long *unknown)
{
    *unknown = h->migrated;
    return h->migrated >= 0;
}

void gc_history_run_key(const gc_hcat *c, char key[65])
{
    gc_sha256 s;
    gc_sha256_init(&s);
    const char *parts[] = { c->start_time, c->plan_sha256, c->backend };
    for (size_t i = 0; i < 3; i++)
        gc_sha256_update(&s, parts[i], strlen(parts[i]) + 1);
    for (size_t i = 0; i < c->ngpus; i++)   /* in catalogue order: sorted by node and index */
        gc_sha256_update(&s, c->gpus[i].uuid, strlen(c->gpus[i].uuid) + 1);
    uint8_t d[32];
    gc_sha256_final(&s, d);
    for (int i = 0; i < 32; i++)
        snprintf(key + 2 * i, 3, "%02x", d[i]);
}

/* ---- adding a run ------------------------------------------------------ */

static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isfinite(v))
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

/* a method version, NULL where none is known */
static void bind_method(sqlite3_stmt *st, int i, int method)
{
    if (method > 0)
        sqlite3_bind_int(st, i, method);
    else
        sqlite3_bind_null(st, i);
}

/* step one INSERT and reset it for the next row */
static int step(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int add_rows(gc_history *h, const gc_hcat *c, const char *source, const char *key,
                    gc_err *err)
{
    static const char *const sql[] = {
        ("INSERT INTO runs (run_key, start_time, start_s, end_time, plan_name, plan_sha256, "
         "git_commit, backend, source, added_time) VALUES (?,?,?,?,?,?,?,?,?,?)"),
        "INSERT INTO gpus VALUES (?,?,?,?,?,?,?,?)",
        "INSERT OR REPLACE INTO params VALUES (?,?,?,?,?,?)",
        "INSERT INTO links VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        "INSERT OR REPLACE INTO nodes VALUES (?,?,?,?)",
    };
    sqlite3_stmt *st[5] = { 0 };
    int rc = SQLITE_OK;
    for (int i = 0; i < 5 && rc == SQLITE_OK; i++)
        rc = sqlite3_prepare_v2(h->db, sql[i], -1, &st[i], NULL);
    char now[32];
    gc_iso_time(now, sizeof now, 0);
    if (rc == SQLITE_OK) {
        const char *v[] = { key, c->start_time, NULL, c->end_time, c->plan_name, c->plan_sha256,
                            c->git_commit, c->backend, source, now };
        for (int i = 0; i < 10; i++)
            if (i == 2)
                sqlite3_bind_int64(st[0], 3, gc_iso_parse_s(c->start_time));
            else
                bind_text(st[0], i + 1, v[i]);
        rc = step(st[0]);
        if ((rc & 0xff) == SQLITE_CONSTRAINT) {
            for (int i = 0; i < 5; i++)
                sqlite3_finalize(st[i]);
            return gc_fail(err, GC_EEXIST, "%s: the run of %s (plan %s) is already in %s: not added "
                           "again", source, c->start_time, c->plan_name, h->path);
        }
    }
    sqlite3_int64 run = sqlite3_last_insert_rowid(h->db);
    for (size_t i = 0; i < c->ngpus && rc == SQLITE_OK; i++) {
        const gc_hc_gpu *g = &c->gpus[i];
        if (!g->uuid[0])
            continue;   /* a GPU that never said who it is has no history */
        sqlite3_bind_int64(st[1], 1, run);
        bind_text(st[1], 2, g->uuid);
        bind_text(st[1], 3, g->node);
        sqlite3_bind_int(st[1], 4, g->index);
        bind_text(st[1], 5, g->name);
        bind_text(st[1], 6, g->status);
        sqlite3_bind_int(st[1], 7, g->v.level);
        bind_text(st[1], 8, g->v.reason);
        rc = step(st[1]);
        if ((rc & 0xff) == SQLITE_CONSTRAINT) {
            for (int k = 0; k < 5; k++)
                sqlite3_finalize(st[k]);
            return gc_fail(err, GC_EINVAL, "%s: two GPUs with UUID %s: not added", source, g->uuid);
        }
        for (size_t k = 0; k < g->nparams && rc == SQLITE_OK; k++) {
            const gc_hc_param *p = &c->params[g->first + k];
            bind_text(st[2], 1, g->uuid);
            bind_text(st[2], 2, p->name);
            sqlite3_bind_int64(st[2], 3, run);
            sqlite3_bind_double(st[2], 4, p->value);
            bind_text(st[2], 5, p->unit);
            bind_method(st[2], 6, p->method);
            rc = step(st[2]);
        }
    }
    for (size_t i = 0; i < c->nlinks && rc == SQLITE_OK; i++) {
        const gc_hc_link *l = &c->links[i];
        sqlite3_bind_int64(st[3], 1, run);
        sqlite3_bind_int64(st[3], 2, (sqlite3_int64)i);
        bind_text(st[3], 3, l->cls);
        bind_text(st[3], 4, l->subject);
        bind_text(st[3], 5, l->node);
        bind_text(st[3], 6, l->uuid);
        bind_text(st[3], 7, l->sku);
        bind_real(st[3], 8, l->alpha_s);
        bind_real(st[3], 9, l->beta_bps);
        bind_real(st[3], 10, l->nominal_bps);
        bind_real(st[3], 11, l->lambda);
        sqlite3_bind_int(st[3], 12, l->v.level);
        bind_text(st[3], 13, l->v.reason);
        bind_method(st[3], 14, l->method);
        rc = step(st[3]);
    }
    for (size_t i = 0; i < c->nnodes && rc == SQLITE_OK; i++) {
        bind_text(st[4], 1, c->nodes[i].name);
        sqlite3_bind_int64(st[4], 2, run);
        sqlite3_bind_int(st[4], 3, c->nodes[i].v.level);
        bind_text(st[4], 4, c->nodes[i].v.reason);
        rc = step(st[4]);
    }
    for (int i = 0; i < 5; i++)
        sqlite3_finalize(st[i]);
    return rc == SQLITE_OK ? 0 : db_fail(h, rc, "adding the run", err);
}

int gc_history_add(gc_history *h, const gc_hcat *c, const char *source, gc_err *err)
{
    h->work_until_s = gc_now_s() + 30 * HIST_WORK_S + h->timeout_s;   /* our own SQL, many rows */
    if (gc_iso_parse_s(c->start_time) < 0)
        return gc_fail(err, GC_EINVAL, "%s: run.start_time \"%.40s\" is not YYYY-MM-DDTHH:MM:SSZ",
                       source, c->start_time);
    char key[65];
    gc_history_run_key(c, key);
    int rc = exec(h, "BEGIN IMMEDIATE", "waiting to add the run", err);
    if (rc)
        return rc;
    rc = add_rows(h, c, source, key, err);
    if (!rc)
        rc = exec(h, "COMMIT", "committing the run", err);
    if (rc)
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* ---- reading ----------------------------------------------------------- */

static void col_text(sqlite3_stmt *st, int i, char *out, size_t cap)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    snprintf(out, cap, "%s", s ? (const char *)s : "");
}

static void bind_opt(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        bind_text(st, i, s);
    else
        sqlite3_bind_null(st, i);
}

/* Each row of st (its parameters bound) into a grown array of size-byte
 * items, fill making one item of one row; st finalized. On failure none
 * is kept and the error says what it was doing. */
typedef int (*fill_fn)(sqlite3_stmt *st, void *item);   /* 0: the row is out of range, left out */
static int rows_of(gc_history *h, sqlite3_stmt *st, size_t size, fill_fn fill, void **out, size_t *n,
                   const char *doing, gc_err *err)
{
    size_t cap = 0;
    int rc;
    *out = NULL;
    *n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (gc_grow(out, &cap, *n + 1, size)) {
            rc = SQLITE_NOMEM;
            break;
        }
        if (fill(st, (char *)*out + *n * size))
            (*n)++;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return 0;
    free(*out);
    *out = NULL;
    *n = 0;
    return db_fail(h, rc, doing, err);
}

static int prepare(gc_history *h, const char *sql, sqlite3_stmt **st, const char *doing, gc_err *err)
{
    h->work_until_s = gc_now_s() + HIST_WORK_S + h->timeout_s;   /* this statement's bound */
    int rc = sqlite3_prepare_v2(h->db, sql, -1, st, NULL);
    return rc == SQLITE_OK ? 0 : db_fail(h, rc, doing, err);
}

static int fill_point(sqlite3_stmt *st, void *item)
{
    gc_hpoint *p = item;
    p->t_s = sqlite3_column_int64(st, 0);
    col_text(st, 1, p->time, sizeof p->time);
    col_text(st, 2, p->plan, sizeof p->plan);
    col_text(st, 3, p->commit, sizeof p->commit);
    col_text(st, 4, p->node, sizeof p->node);
    p->level = sqlite3_column_int(st, 5);
    p->value = sqlite3_column_double(st, 6);
    p->method = sqlite3_column_int(st, 7);   /* NULL: 0 */
    col_text(st, 8, p->unit, sizeof p->unit);
    /* range-checked before any arithmetic on it */
    return gc_history_time_ok(p->t_s) && isfinite(p->value) && p->level >= -1 && p->level <= 3;
}

int gc_history_series(gc_history *h, const gc_hquery *q, gc_hpoint **out, size_t *n, gc_err *err)
{
    /* %1$s: the value's method (param_method, link_method) */
    static const char *const gpu_sql =
        "SELECT r.start_s, r.start_time, r.plan_name, r.git_commit, g.node, g.level, p.value, %1$s, p.unit "
        "FROM params p JOIN runs r ON r.id = p.run JOIN gpus g ON g.run = p.run AND g.uuid = p.uuid "
        "WHERE p.uuid = ?1 AND p.name = ?2 AND (?3 IS NULL OR r.plan_name = ?3) "
        "AND (?4 = 0 OR (g.level <= 1 AND g.status = 'ok')) AND (?5 IS NULL OR r.run_key <> ?5) "
        "AND (?7 = 0 OR %1$s = ?7) ORDER BY r.start_s DESC, r.id DESC LIMIT ?6";
    static const char *const link_sql =
        "SELECT r.start_s, r.start_time, r.plan_name, r.git_commit, l.node, l.level, l.beta_bps, %1$s, 'bytes_per_s' "
        "FROM links l JOIN runs r ON r.id = l.run "
        "WHERE l.uuid = ?1 AND l.class = ?2 AND l.beta_bps IS NOT NULL "
        "AND (?3 IS NULL OR r.plan_name = ?3) AND (?4 = 0 OR l.level <= 1) "
        "AND (?5 IS NULL OR r.run_key <> ?5) AND (?7 = 0 OR %1$s = ?7) "
        "ORDER BY r.start_s DESC, r.id DESC LIMIT ?6";
    *out = NULL;
    *n = 0;
    char sql[1024];
    snprintf(sql, sizeof sql, q->link_class ? link_sql : gpu_sql,
             q->link_class ? link_method(h) : param_method(h));
    sqlite3_stmt *st;
    int rc = prepare(h, sql, &st, "reading a series", err);
    if (rc)
        return rc;
    bind_text(st, 1, q->uuid);
    bind_text(st, 2, q->link_class ? q->link_class : q->param);
    bind_opt(st, 3, q->plan);
    sqlite3_bind_int(st, 4, q->good);
    bind_opt(st, 5, q->skip_key);
    sqlite3_bind_int64(st, 6, q->max ? (sqlite3_int64)q->max : -1);
    sqlite3_bind_int(st, 7, q->method > 0 ? q->method : 0);
    if ((rc = rows_of(h, st, sizeof **out, fill_point, (void **)out, n, "reading a series", err)))
        return rc;
    for (size_t i = 0; i < *n / 2; i++) {   /* oldest first */
        gc_hpoint t = (*out)[i];
        (*out)[i] = (*out)[*n - 1 - i];
        (*out)[*n - 1 - i] = t;
    }
    return 0;
}

static int fill_gpu(sqlite3_stmt *st, void *item)
{
    gc_hgpu *g = item;
    col_text(st, 0, g->uuid, sizeof g->uuid);
    col_text(st, 1, g->node, sizeof g->node);
    g->index = sqlite3_column_int(st, 2);
    col_text(st, 3, g->name, sizeof g->name);
    col_text(st, 4, g->last_time, sizeof g->last_time);
    col_text(st, 5, g->first_time, sizeof g->first_time);
    int lv = sqlite3_column_int(st, 6);
    snprintf(g->verdict, sizeof g->verdict, "%s", lv >= 0 && lv <= 3 ? gc_verdict_name(lv) : "-");
    g->runs = sqlite3_column_int64(st, 7);
    return 1;
}

int gc_history_gpus(gc_history *h, const char *who, gc_hgpu **out, size_t *n, gc_err *err)
{
    static const char *const sql =
        "WITH latest AS (SELECT g.uuid, max(r.start_s * 1000000000 + r.id) AS k, count(*) AS runs, "
        "  min(r.start_time) AS first FROM gpus g JOIN runs r ON r.id = g.run GROUP BY g.uuid) "
        "SELECT g.uuid, g.node, g.gpu_index, g.name, r.start_time, latest.first, g.level, latest.runs "
        "FROM latest JOIN runs r ON r.start_s * 1000000000 + r.id = latest.k "
        "JOIN gpus g ON g.run = r.id AND g.uuid = latest.uuid "
        "WHERE ?1 IS NULL OR g.uuid = ?1 OR g.node = ?1 ORDER BY g.node, g.gpu_index, g.uuid";
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = prepare(h, sql, &st, "listing its GPUs", err);
    if (rc)
        return rc;
    bind_opt(st, 1, who);
    return rows_of(h, st, sizeof **out, fill_gpu, (void **)out, n, "listing its GPUs", err);
}

static int fill_name(sqlite3_stmt *st, void *item) { col_text(st, 0, item, 64); return 1; }

int gc_history_params(gc_history *h, const char *uuid, char (**names)[64], size_t *n, gc_err *err)
{
    *names = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = prepare(h, "SELECT DISTINCT name FROM params WHERE uuid = ?1 ORDER BY name", &st,
                     "listing parameters", err);
    if (rc)
        return rc;
    bind_text(st, 1, uuid);
    return rows_of(h, st, sizeof **names, fill_name, (void **)names, n, "listing parameters", err);
}

static double quantile(const double *v, size_t n, double q)
{
    double x = q * (double)(n - 1);
    size_t i = (size_t)x;
    return i + 1 < n ? v[i] + (x - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

static int fill_double(sqlite3_stmt *st, void *item)
{
    *(double *)item = sqlite3_column_double(st, 0);
    return isfinite(*(double *)item);
}

int gc_history_band(gc_history *h, const char *sku, const char *param, const char *plan, int method,
                    double *lo, double *mid, double *hi, gc_err *err)
{
    *lo = *mid = *hi = NAN;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT p.value FROM params p JOIN gpus g ON g.run = p.run AND g.uuid = p.uuid "
             "JOIN runs r ON r.id = p.run WHERE g.name = ?1 AND p.name = ?2 AND g.level <= 1 "
             "AND g.status = 'ok' AND (?3 IS NULL OR r.plan_name = ?3) AND (?4 = 0 OR %s = ?4) "
             "ORDER BY p.value", param_method(h));
    sqlite3_stmt *st;
    int rc = prepare(h, sql, &st, "reading a SKU's band", err);
    if (rc)
        return rc;
    bind_text(st, 1, sku);
    bind_text(st, 2, param);
    bind_opt(st, 3, plan);
    sqlite3_bind_int(st, 4, method > 0 ? method : 0);
    double *v;
    size_t n;
    if ((rc = rows_of(h, st, sizeof *v, fill_double, (void **)&v, &n, "reading a SKU's band", err)))
        return rc;
    if (n) {
        *lo = quantile(v, n, 0.1);
        *mid = quantile(v, n, 0.5);
        *hi = quantile(v, n, 0.9);
    }
    free(v);
    return 0;
}

int gc_history_last_node(gc_history *h, const char *node, gc_hnode *out, gc_err *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    int rc = prepare(h,
        "SELECT r.start_time, r.start_s, r.plan_name, n.level, n.reason, r.source FROM nodes n "
        "JOIN runs r ON r.id = n.run WHERE n.node = ?1 ORDER BY r.start_s DESC, r.id DESC LIMIT 1",
        &st, "reading a node's verdict", err);
    if (rc)
        return rc;
    bind_text(st, 1, node);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        snprintf(out->node, sizeof out->node, "%s", node);
        col_text(st, 0, out->time, sizeof out->time);
        out->t_s = sqlite3_column_int64(st, 1);
        col_text(st, 2, out->plan, sizeof out->plan);
        out->level = sqlite3_column_int(st, 3);
        col_text(st, 4, out->reason, sizeof out->reason);
        col_text(st, 5, out->source, sizeof out->source);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return gc_fail(err, GC_EINVAL, "%s: no verdict for node %s", h->path, node);
    if (rc == SQLITE_ROW && (!gc_history_time_ok(out->t_s) || out->level < -1 || out->level > 3))
        return gc_fail(err, GC_ECORRUPT, "%s: node %s's last verdict is out of range (start_s %lld, "
                       "level %d)", h->path, node, out->t_s, out->level);
    return rc == SQLITE_ROW ? 0 : db_fail(h, rc, "reading a node's verdict", err);
}

int gc_history_node_names(gc_history *h, char (**names)[64], size_t *n, gc_err *err)
{
    *names = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = prepare(h, "SELECT DISTINCT node FROM nodes ORDER BY node", &st, "listing its nodes", err);
    if (rc)
        return rc;
    return rows_of(h, st, sizeof **names, fill_name, (void **)names, n, "listing its nodes", err);
}
