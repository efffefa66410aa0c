/*
 * realdrive.c - runs realprobe_all() of the preloaded realprobe.so
 * (test_real.c).  Exit: its result, or 2 when it is not preloaded.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	int (*all)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "realprobe_all");

	if (!all) {
		fprintf(stderr, "realdrive: realprobe.so is not preloaded\n");
		return 2;
	}
	return all();
}
