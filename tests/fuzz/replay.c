/*
** replay.c: run the fuzz target over files without libFuzzer, so that
** `make check` replays the seeds and every saved crash under ASan+UBSan.
** Arguments are files or directories (their regular files, one level).
*/
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n);

static int replay_file(const char *zPath){
  FILE *f = fopen(zPath, "rb");
  uint8_t *a = 0;
  size_t n = 0, nAlloc = 0;
  if( f==0 ) return 0;
  for(;;){
    size_t got;
    if( n==nAlloc ){
      uint8_t *aNew;
      nAlloc = nAlloc ? nAlloc*2 : 65536;
      aNew = realloc(a, nAlloc);
      if( aNew==0 ){ free(a); fclose(f); return 0; }
      a = aNew;
    }
    got = fread(a+n, 1, nAlloc-n, f);
    if( got==0 ) break;
    n += got;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(a, n);
  free(a);
  return 1;
}

int main(int argc, char **argv){
  int i, nFile = 0;
  for(i=1; i<argc; i++){
    struct stat st;
    if( stat(argv[i], &st) ) continue;
    if( S_ISDIR(st.st_mode) ){
      DIR *d = opendir(argv[i]);
      struct dirent *e;
      while( d && (e = readdir(d))!=0 ){
        char zPath[4096];
        struct stat st2;
        snprintf(zPath, sizeof(zPath), "%s/%s", argv[i], e->d_name);
        if( stat(zPath, &st2)==0 && S_ISREG(st2.st_mode) ) nFile += replay_file(zPath);
      }
      if( d ) closedir(d);
    }else{
      nFile += replay_file(argv[i]);
    }
  }
  printf("replay: %d inputs, no crash\n", nFile);
  return 0;
}
