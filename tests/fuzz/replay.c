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

void *tl_test_read_file(const char *zPath, size_t *pn);   /* tests/fileutil.c */
void tl_fuzz_drain_report(void);                          /* fuzz_drain.c */

static int replay_file(const char *zPath){
  size_t n = 0;
  uint8_t *a = tl_test_read_file(zPath, &n);
  if( a==0 ) return 0;
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
  tl_fuzz_drain_report();
  return 0;
}
