/*
** fileutil.c: whole-file reads and writes for the tests and the fuzz
** replay driver (see tltest.h). No cmocka calls: replay links it alone.
*/
#include "tltest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>

void *tl_test_read_file(const char *zPath, size_t *pn){
  FILE *f = fopen(zPath, "rb");
  char *a = 0;
  size_t n = 0, nAlloc = 0;
  if( f==0 ) return 0;
  for(;;){
    size_t got;
    if( n==nAlloc ){
      char *aNew;
      nAlloc = nAlloc ? nAlloc*2 : 4096;
      aNew = realloc(a, nAlloc);
      if( aNew==0 ){ free(a); fclose(f); return 0; }
      a = aNew;
    }
    got = fread(a+n, 1, nAlloc-n, f);
    if( got==0 ) break;
    n += got;
  }
  fclose(f);
  a[n] = 0;                       /* room is left: the last read returned 0 */
  if( pn ) *pn = n;
  return a;
}

int tl_test_write_file(const char *zPath, const void *a, size_t n){
  FILE *f = fopen(zPath, "wb");
  int rc = 0;
  if( f==0 ) return -1;
  if( n && fwrite(a, 1, n, f)!=n ) rc = -1;
  if( fclose(f) ) rc = -1;
  return rc;
}

int tl_test_mkdirs(const char *zPath){
  char z[1024];
  size_t i, n = strlen(zPath);
  if( n==0 || n>=sizeof(z) ) return -1;
  memcpy(z, zPath, n+1);
  for(i=1; i<=n; i++){
    if( z[i]=='/' || z[i]==0 ){
      char c = z[i];
      z[i] = 0;
      if( mkdir(z, 0755) && errno!=EEXIST ) return -1;
      z[i] = c;
    }
  }
  return 0;
}
