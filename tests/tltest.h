/*
** tltest.h: shared by the test files. cmocka 1.1 include order, and the
** helpers every test uses.
*/
#ifndef TL_TLTEST_H
#define TL_TLTEST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

/*
** Each test file defines one group:
**     const struct CMUnitTest tl_group_NAME[] = { ... };
**     const size_t tl_group_NAME_n = sizeof(tl_group_NAME)/sizeof(tl_group_NAME[0]);
** and adds TL_GROUP(NAME) to tests/groups.h.
*/
#define TL_DEFINE_GROUP(NAME, ...) \
  const struct CMUnitTest tl_group_##NAME[] = { __VA_ARGS__ }; \
  const size_t tl_group_##NAME##_n = sizeof(tl_group_##NAME)/sizeof(tl_group_##NAME[0])

/* Read a whole file into malloc'd memory, NUL-terminated (pn may be NULL); NULL if missing. */
void *tl_test_read_file(const char *zPath, size_t *pn);

/* Write n bytes to zPath; 0 on success. */
int tl_test_write_file(const char *zPath, const void *a, size_t n);

/* Create directory zPath and its missing parents (mkdir -p); 0 on success. */
int tl_test_mkdirs(const char *zPath);

/* A fresh temporary directory for this process (created on first use). */
const char *tl_test_tmpdir(void);

/*
** SQL helpers (tests/sqlutil.c). tl_test_db() opens an in-memory database
** with the built tracelite.so loaded (TL_BUILD_DIR/tracelite.so), exactly as
** a user's `.load` does. The query helpers fail the test on an SQL error.
*/
typedef struct sqlite3 sqlite3;
sqlite3 *tl_test_db(void);
void tl_test_db_close(sqlite3*);
int64_t tl_test_sql_int(sqlite3*, const char *zFmt, ...);      /* first column of first row */
char *tl_test_sql_text(sqlite3*, const char *zFmt, ...);       /* malloc'd; NULL for SQL NULL */
/* Rows as text: columns joined by '|', rows by '\n' (like sqlite3 -list); malloc'd */
char *tl_test_sql_rows(sqlite3*, const char *zFmt, ...);
/* Run SQL expected to fail; returns the malloc'd error message (NULL if it succeeded). */
char *tl_test_sql_error(sqlite3*, const char *zFmt, ...);
/* Rows zOurs (of tl_test_sql_rows, freed) equal the text of pRef (finished), less its last newline. */
typedef struct sqlite3_str sqlite3_str;
void tl_test_rows_equal_text(char *zOurs, sqlite3_str *pRef);

/* A growable list of strings, for comparing outputs line by line. */
typedef struct TlLines TlLines;
struct TlLines { char **az; size_t n, nAlloc; };
void tl_lines_add(TlLines*, const char *z);     /* a copy */
void tl_lines_sort(TlLines*);
void tl_lines_free(TlLines*);

/*
** A scan through the trace API (tests/scanutil.c): every row of table
** iTable under filter f, each repeat of a repeated row a line of its own,
** "ROWID|v|v..." (the rowid when bRowid; then the columns of mCols in
** column order, each an integer, text or NULL), sorted. Lazy rowids and
** values are asked for and must be given (a rowid for every row, shown or
** not); a varying column takes each repeat's value. iGroupCol >= 0: whether
** a value of that column came back after rows of another (bScattered).
*/
typedef struct TlTrace TlTrace;
typedef struct TlFilter TlFilter;
typedef struct TlScanLines TlScanLines;
struct TlScanLines {
  TlLines rows;
  int nRepeated;                  /* rows with TlRow.nRepeat > 1 */
  int nLazy;                      /* TL_ROWID_LAZY rowids and TL_LAZY values
                                  ** of mCols met */
  int bScattered;
};
void tl_test_scan_lines(TlTrace*, int iTable, const TlFilter*, uint64_t mCols,
                        int bRowid, int iGroupCol, TlScanLines*);
/* Likewise, the engine's grouped output keeping the columns of mVary
** varying (tl_group_set_vary); nVaryCap: its bytes in memory, 0 default.
** Returns the bytes it wrote to its temporary file. */
uint64_t tl_test_scan_vary(TlTrace*, int iTable, const TlFilter*, uint64_t mCols, int bRowid,
                           int iGroupCol, uint64_t mVary, uint64_t nVaryCap, TlScanLines*);
/* The rows of table iTable under filter f by the trace API, each repeat of
** a repeated row counted; the scan must end without an error. */
int64_t tl_test_count_rows(TlTrace*, int iTable, const TlFilter*);

#endif
