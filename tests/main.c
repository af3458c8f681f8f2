/*
** main.c: runs every test group as one cmocka run, so the output ends with
** one cmocka summary for the whole suite. With arguments, runs only the
** groups named (tltest cpel tooling).
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define TL_GROUP(NAME) \
  extern const struct CMUnitTest tl_group_##NAME[]; \
  extern const size_t tl_group_##NAME##_n;
#include "groups.h"
#undef TL_GROUP

typedef struct Group { const char *zName; const struct CMUnitTest *a; const size_t *pn; } Group;

static const Group aGroup[] = {
#define TL_GROUP(NAME) { #NAME, tl_group_##NAME, &tl_group_##NAME##_n },
#include "groups.h"
#undef TL_GROUP
};

static char zTmpDir[256];

static void remove_tmpdir(void){
  char zCmd[300];
  if( zTmpDir[0] ){
    snprintf(zCmd, sizeof(zCmd), "rm -rf '%s'", zTmpDir);
    if( system(zCmd) ){ /* best effort */ }
  }
}

const char *tl_test_tmpdir(void){
  if( zTmpDir[0]==0 ){
    const char *zBase = getenv("TMPDIR");
    snprintf(zTmpDir, sizeof(zTmpDir), "%s/tltest.XXXXXX", zBase ? zBase : "/tmp");
    if( mkdtemp(zTmpDir)==0 ){ zTmpDir[0] = 0; return "/tmp"; }
    /* TL_TEST_KEEP=1 keeps the files the tests wrote, to look at them. */
    if( getenv("TL_TEST_KEEP")==0 ) atexit(remove_tmpdir);
  }
  return zTmpDir;
}

int main(int argc, char **argv){
  size_t nAll = 0, i, k;
  struct CMUnitTest *aAll;
  int rc;
  size_t nGroup = sizeof(aGroup)/sizeof(aGroup[0]);
  for(i=0; i<nGroup; i++) nAll += *aGroup[i].pn;
  aAll = calloc(nAll ? nAll : 1, sizeof(*aAll));
  if( aAll==0 ) return 1;
  nAll = 0;
  for(i=0; i<nGroup; i++){
    int bRun = argc<2;
    int j;
    for(j=1; j<argc; j++) if( strcmp(argv[j], aGroup[i].zName)==0 ) bRun = 1;
    if( !bRun ) continue;
    for(k=0; k<*aGroup[i].pn; k++) aAll[nAll++] = aGroup[i].a[k];
  }
  rc = _cmocka_run_group_tests("tracelite", aAll, nAll, 0, 0);
  free(aAll);
  return rc;
}
