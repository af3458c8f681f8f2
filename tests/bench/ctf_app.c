/*
** ctf_app.c: emits N tlbench events as fast as it can from two threads,
** one pinned to CPU 0 and one to CPU 1 (one stream per CPU).
** usage: ctf_app N
*/
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench_tp.h"

static long per_thread;

static void *emit(void *arg)
{
    long cpu = (long)arg;
    static const char *const what[] = { "get", "put", "list", "stat" };
    static const char *const msg[] = { "cache miss", "retrying request",
                                       "slow path taken", "ok" };
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set); /* best effort */
    uint64_t id = (uint64_t)cpu << 40;
    for (long i = 0; i < per_thread; i++) {
        switch (i & 3) {
        case 0: lttng_ust_tracepoint(tlbench, req_begin, id, what[(i >> 2) & 3]); break;
        case 1: lttng_ust_tracepoint(tlbench, counter, (int)(i & 15), (int64_t)i * 7 - 1000); break;
        case 2: lttng_ust_tracepoint(tlbench, log, (int)(i % 5), msg[(i >> 3) & 3]); break;
        default: lttng_ust_tracepoint(tlbench, req_end, id++, (int)(i % 7 == 0), (uint32_t)(i & 0xffff)); break;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    pthread_t t[2];
    per_thread = n / 2;
    for (long c = 0; c < 2; c++)
        pthread_create(&t[c], NULL, emit, (void *)c);
    for (int c = 0; c < 2; c++)
        pthread_join(t[c], NULL);
    return 0;
}
