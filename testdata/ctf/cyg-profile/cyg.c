/* A small program for the cyg-profile trace: nested calls, a recursion,
** a second thread, and an exit from inside main (main's call never ends). */
#include <pthread.h>
#include <stdlib.h>

static volatile int sink;

static void leaf(int i){ sink += i; }

static int fib(int n){
  if( n<2 ){ leaf(n); return n; }
  return fib(n-1) + fib(n-2);
}

static void middle(int n){
  int i;
  for(i=0; i<n; i++) leaf(i);
  sink += fib(4);
}

static void *worker(void *arg){
  middle(3);
  (void)arg;
  return 0;
}

int main(void){
  pthread_t t;
  middle(2);
  if( pthread_create(&t, 0, worker, 0)==0 ) pthread_join(t, 0);
  fib(3);
  exit(sink>=0 ? 0 : 1);
}
