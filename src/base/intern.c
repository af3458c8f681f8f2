/*
** intern.c: see intern.h. A fixed table of chains, under one mutex; text is
** looked up once per grouped row, not per repeat, so this need not be fast.
*/
#include "intern.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INTERN_SLOTS 1024

typedef struct Interned Interned;
struct Interned {
  Interned *pNext;
  size_t n;
  char z[];                       /* n bytes and a NUL */
};

static pthread_mutex_t internMutex = PTHREAD_MUTEX_INITIALIZER;
static Interned *aSlot[INTERN_SLOTS];
static size_t nInternBytes;       /* allocated for all entries */

static uint32_t intern_hash(const char *z, size_t n){
  uint32_t h = 2166136261u;       /* FNV-1a */
  size_t i;
  for(i=0; i<n; i++){ h ^= (uint8_t)z[i]; h *= 16777619u; }
  return h;
}

const char *tl_intern(const char *z, size_t n){
  Interned **pp, *p;
  const char *zOut = 0;
  if( z==0 || n > TL_INTERN_MAX ) return 0;
  pthread_mutex_lock(&internMutex);
  pp = &aSlot[intern_hash(z, n) % INTERN_SLOTS];
  for(p=*pp; p; p=p->pNext){
    if( p->n==n && memcmp(p->z, z, n)==0 ){ zOut = p->z; break; }
  }
  if( zOut==0 && nInternBytes + sizeof(Interned) + n + 1 <= TL_INTERN_MAX ){
    p = malloc(sizeof(Interned) + n + 1);
    if( p ){
      p->n = n;
      memcpy(p->z, z, n);
      p->z[n] = 0;
      p->pNext = *pp;
      *pp = p;
      nInternBytes += sizeof(Interned) + n + 1;
      zOut = p->z;
    }
  }
  pthread_mutex_unlock(&internMutex);
  return zOut;
}

/* When the library is unloaded (no connection has it: no statement holds
** one of these) or the process ends. */
__attribute__((destructor)) static void intern_free(void){
  int i;
  for(i=0; i<INTERN_SLOTS; i++){
    while( aSlot[i] ){
      Interned *p = aSlot[i];
      aSlot[i] = p->pNext;
      free(p);
    }
  }
  nInternBytes = 0;
}
