/*
 * Quadscope's SQLite extension: the model's reads of samples in bulk (issue 20).
 *
 * qs_pack(ts_ms, value) is an aggregate that returns the rows it saw, in the order it saw them, as one
 * BLOB of native-endian float64 pairs (t0, v0, t1, v1, ...). The model's reads run it over one series'
 * ordered range a chunk at a time and fold the pairs in JavaScript: one call into SQLite per chunk
 * instead of one call out of SQLite per row (a JavaScript function called per row cost about twice the
 * bare ordered pass; docs/architecture.md §5). Values pass as SQLite holds them: an INTEGER is read as
 * the double it stands for, exactly as better-sqlite3 would hand it to JavaScript.
 *
 * Loaded with sqlite3_load_extension into the store's own connections only (better-sqlite3's
 * loadExtension enables the C API, never SQL's load_extension()); registered SQLITE_DIRECTONLY, so
 * triggers and views cannot call it.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <string.h>

typedef struct Pack {
  double *buf;
  sqlite3_int64 n;   /* doubles held */
  sqlite3_int64 cap; /* doubles allocated */
  int oom;
} Pack;

static void pack_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  Pack *p = (Pack *)sqlite3_aggregate_context(ctx, sizeof(Pack));
  (void)argc;
  if (!p || p->oom) return;
  if (p->n + 2 > p->cap) {
    sqlite3_int64 cap = p->cap ? p->cap * 2 : 1024;
    double *buf = (double *)sqlite3_realloc64(p->buf, (sqlite3_uint64)cap * sizeof(double));
    if (!buf) {
      p->oom = 1;
      return;
    }
    p->buf = buf;
    p->cap = cap;
  }
  p->buf[p->n++] = sqlite3_value_double(argv[0]);
  p->buf[p->n++] = sqlite3_value_double(argv[1]);
}

static void pack_final(sqlite3_context *ctx) {
  Pack *p = (Pack *)sqlite3_aggregate_context(ctx, 0);
  if (!p || (!p->n && !p->oom)) {
    sqlite3_result_zeroblob(ctx, 0);
    if (p) sqlite3_free(p->buf);
    return;
  }
  if (p->oom) {
    sqlite3_free(p->buf);
    sqlite3_result_error_nomem(ctx);
    return;
  }
  /* The buffer passes to SQLite, which frees it with sqlite3_free once the result is copied out. */
  sqlite3_result_blob64(ctx, p->buf, (sqlite3_uint64)p->n * sizeof(double), sqlite3_free);
  p->buf = 0;
}

/*
 * qs_rows(data, width) is a table-valued function over a BLOB of native-endian float64, `width` (1 to 6)
 * to a row: the columns c0 … c5 of each row, as REAL (NULL past `width`), in the order they lie. The
 * writer inserts held samples and tiles through it, one statement for thousands of rows, instead of
 * binding each number as a statement parameter (a third of an insert's time, measured; issue 20). A
 * REAL passes through an INSERT as the same value a bound JavaScript number does (better-sqlite3 binds
 * every number as a double), so the column affinities store the same thing either way.
 */
#define ROWS_MAX_WIDTH 6

typedef struct RowsCursor {
  sqlite3_vtab_cursor base;
  double *d;         /* a private, aligned copy of the BLOB */
  sqlite3_int64 n;   /* rows */
  sqlite3_int64 i;   /* the current row */
  int width;
} RowsCursor;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err) {
  sqlite3_vtab *v;
  int rc;
  (void)aux; (void)argc; (void)argv; (void)err;
  rc = sqlite3_declare_vtab(db, "CREATE TABLE x(c0 REAL, c1 REAL, c2 REAL, c3 REAL, c4 REAL, c5 REAL, data HIDDEN, width HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  v = (sqlite3_vtab *)sqlite3_malloc(sizeof(*v));
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof(*v));
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *out = v;
  return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  RowsCursor *c = (RowsCursor *)sqlite3_malloc(sizeof(*c));
  (void)v;
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  *out = &c->base;
  return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *cur) {
  RowsCursor *c = (RowsCursor *)cur;
  sqlite3_free(c->d);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* Both arguments are required: data (column 6) and width (column 7), each an equality. */
static int rows_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  int data = -1, width = -1, k;
  (void)v;
  for (k = 0; k < info->nConstraint; k++) {
    const struct sqlite3_index_constraint *con = &info->aConstraint[k];
    if (con->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (con->iColumn == 6) {
      if (!con->usable) return SQLITE_CONSTRAINT;
      data = k;
    } else if (con->iColumn == 7) {
      if (!con->usable) return SQLITE_CONSTRAINT;
      width = k;
    }
  }
  if (data < 0 || width < 0) return SQLITE_CONSTRAINT;
  info->aConstraintUsage[data].argvIndex = 1;
  info->aConstraintUsage[data].omit = 1;
  info->aConstraintUsage[width].argvIndex = 2;
  info->aConstraintUsage[width].omit = 1;
  info->estimatedCost = 1;
  info->estimatedRows = 1000;
  return SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc, sqlite3_value **argv) {
  RowsCursor *c = (RowsCursor *)cur;
  sqlite3_int64 bytes, width;
  (void)idxNum; (void)idxStr;
  sqlite3_free(c->d);
  c->d = 0;
  c->n = c->i = 0;
  if (argc < 2) return SQLITE_OK;
  width = sqlite3_value_int64(argv[1]);
  if (width < 1 || width > ROWS_MAX_WIDTH) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("qs_rows: width must be 1 to %d", ROWS_MAX_WIDTH);
    return SQLITE_ERROR;
  }
  c->width = (int)width;
  bytes = sqlite3_value_bytes(argv[0]);
  c->n = bytes / (sqlite3_int64)(sizeof(double) * (size_t)width);
  if (!c->n) return SQLITE_OK;
  c->d = (double *)sqlite3_malloc64((sqlite3_uint64)c->n * (sqlite3_uint64)width * sizeof(double));
  if (!c->d) {
    c->n = 0;
    return SQLITE_NOMEM;
  }
  memcpy(c->d, sqlite3_value_blob(argv[0]), (size_t)c->n * (size_t)width * sizeof(double));
  return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *cur) {
  ((RowsCursor *)cur)->i++;
  return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *cur) {
  RowsCursor *c = (RowsCursor *)cur;
  return c->i >= c->n;
}

static int rows_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  RowsCursor *c = (RowsCursor *)cur;
  if (col < c->width) sqlite3_result_double(ctx, c->d[c->i * c->width + col]);
  else sqlite3_result_null(ctx);
  return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((RowsCursor *)cur)->i;
  return SQLITE_OK;
}

static sqlite3_module rows_module = {
  0, 0, rows_connect, rows_best_index, rows_disconnect, 0, rows_open, rows_close, rows_filter, rows_next, rows_eof, rows_column, rows_rowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_quadscope_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  (void)err;
  SQLITE_EXTENSION_INIT2(api);
  int rc = sqlite3_create_function_v2(db, "qs_pack", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, 0, 0, pack_step, pack_final, 0);
  if (rc == SQLITE_OK) rc = sqlite3_create_module_v2(db, "qs_rows", &rows_module, 0, 0);
  return rc;
}
