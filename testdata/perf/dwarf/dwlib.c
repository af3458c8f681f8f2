/* A shared library the test programs call into: a loop that works. */
volatile unsigned long dw_sink;

unsigned long dw_lib_work(unsigned long n){
  unsigned long i, x = 1;
  for(i=0; i<n; i++) x = x*2654435761u + i;
  dw_sink = x;
  return x;
}

unsigned long dw_lib_call(unsigned long (*pFn)(unsigned long), unsigned long n){
  return pFn(n) + 1;
}
