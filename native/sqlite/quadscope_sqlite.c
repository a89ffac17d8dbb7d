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

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_quadscope_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  (void)err;
  SQLITE_EXTENSION_INIT2(api);
  return sqlite3_create_function_v2(db, "qs_pack", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, 0, 0, pack_step, pack_final, 0);
}
