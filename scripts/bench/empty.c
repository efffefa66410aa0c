/*
 * empty.c - a shared object with nothing in it, preloaded by the bench
 * ("any preload"): what loading one more library costs each process,
 * the floor under libcordon.so's own cost.
 */
void bench_empty(void);

void bench_empty(void)
{
}
