/*
** threads-inherit.c: a program whose threads never name themselves, for
** threads-inherit.data. The main thread starts two threads; the second
** starts a third. Each thread, the main one too, spins for a while, so
** each takes cpu-clock samples under the name it inherited.
*/
#include <pthread.h>
#include <stdio.h>

static volatile unsigned long sink;

static void spin(unsigned long n){
  unsigned long i, x = 1;
  for(i=0; i<n; i++) x = x*6364136223846793005ul + 1442695040888963407ul;
  sink += x;
}

static void *leaf(void *arg){
  (void)arg;
  spin(8000000ul);
  return 0;
}

static void *worker(void *arg){
  pthread_t t;
  int bNested = arg!=0;
  if( bNested && pthread_create(&t, 0, leaf, 0) ) return 0;
  spin(8000000ul);
  if( bNested ) pthread_join(t, 0);
  return 0;
}

int main(void){
  pthread_t a, b;
  if( pthread_create(&a, 0, worker, 0) || pthread_create(&b, 0, worker, &b) ){
    fprintf(stderr, "pthread_create failed\n");
    return 1;
  }
  spin(8000000ul);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
