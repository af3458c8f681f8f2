/* vdprog.c: clock_gettime in a loop, which runs in the vdso. */
#include <time.h>
int main(void){ struct timespec t; long s = 0; for(long i=0;i<3000000;i++){ clock_gettime(CLOCK_MONOTONIC,&t); s+=t.tv_nsec; } return s == 42; }
