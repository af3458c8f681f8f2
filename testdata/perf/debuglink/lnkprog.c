/*
** lnkprog.c: spins in a few static functions (their symbols and lines are
** in the separate debug file only).
**   lnkprog N    N rounds
*/
#include <stdlib.h>

static volatile unsigned long sink;

static unsigned long inner(unsigned long i){
  unsigned long k, s = 0;
  for(k=0; k<2000; k++) s += (k ^ i) * 2654435761u;
  return s;
}

static unsigned long outer(unsigned long i){
  unsigned long s = inner(i);
  for(unsigned long k=0; k<1000; k++) s ^= s >> 3 | k;
  return s;
}

int main(int argc, char **argv){
  unsigned long i, n = argc>1 ? strtoul(argv[1], 0, 10) : 1000;
  for(i=0; i<n; i++) sink += outer(i);
  return 0;
}
