/* pltprog.c: a loop of cheap libc calls through the program's PLT
** (strlen, memcpy, memset, strcmp, toupper, labs; built with
** -fno-builtin so that each stays a call), so that samples land in the
** PLT stubs, which perf names name@plt, as well as in libc. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static volatile size_t sink;

__attribute__((noinline)) static void plt_loop(long n, char *a, char *b){
  for(long i = 0; i < n; i++){
    sink += strlen(a);
    memcpy(b, a, 2);
    memset(b + 2, 'x', 2);
    sink += (size_t)strcmp(a, b);
    sink += (size_t)toupper((int)i & 127);
    sink += (size_t)labs(i);
  }
}

int main(int argc, char **argv){
  char a[8] = "tl";
  char b[8] = "";
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  plt_loop(n, a, b);
  return sink == 1;
}
