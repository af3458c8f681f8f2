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

/* Read a whole file into malloc'd memory; NULL if missing. */
void *tl_test_read_file(const char *zPath, size_t *pn);

/* Write n bytes to zPath; 0 on success. */
int tl_test_write_file(const char *zPath, const void *a, size_t n);

/* A fresh temporary directory for this process (created on first use). */
const char *tl_test_tmpdir(void);

#endif
