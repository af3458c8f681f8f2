/*
** perf_load.c: a CPU-bound workload for perf record: THREADS threads walk
** a few recursive functions (deep, varied call chains) for SECONDS seconds.
** Build with frame pointers and without inlining so -g sees every frame.
** usage: perf_load THREADS SECONDS
*/
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;
static double deadline;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t hash_step(uint64_t x);
uint64_t walk_tree(int depth, uint64_t x);
uint64_t walk_list(int depth, uint64_t x);
uint64_t crunch(int n, uint64_t x);

uint64_t hash_step(uint64_t x)
{
    for (int i = 0; i < 64; i++)
        x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ULL;
    return x;
}

uint64_t crunch(int n, uint64_t x)
{
    return n <= 0 ? hash_step(x) : crunch(n - 1, x + 1) ^ (x * 3);
}

uint64_t walk_list(int depth, uint64_t x)
{
    if (depth <= 0)
        return crunch((int)(x & 7), x);
    return walk_list(depth - 1, hash_step(x));
}

uint64_t walk_tree(int depth, uint64_t x)
{
    if (depth <= 0)
        return hash_step(x);
    if (x & 1)
        return walk_tree(depth - 1, x >> 1) + walk_list(depth / 2, x);
    return walk_tree(depth - 1, x * 5 + 1) ^ walk_tree(depth - 2, x);
}

static void *worker(void *arg)
{
    uint64_t x = (uintptr_t)arg * 0x9e3779b97f4a7c15ULL + 1;
    while (now() < deadline)
        for (int i = 0; i < 64; i++)
            x = walk_tree(8 + (int)(x % 5), x + (uint64_t)i);
    sink = x;
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    double secs = argc > 2 ? atof(argv[2]) : 5;
    pthread_t t[64];
    if (n < 1 || n > 64)
        n = 4;
    deadline = now() + secs;
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    return 0;
}
