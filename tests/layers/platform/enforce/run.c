#if defined(__linux__)
#define ON 1
#endif

int run(void);
int run(void)
{
	const char *s = "}";

	if (s[0]) {
#ifdef __APPLE__
		return 1;
#elif defined(_WIN32)
		return 2;
#endif
	}
#if ON /* not a platform test */
	return 0;
#endif
}
/* clang-format off */
#if defined(__MACH__) && \
	!defined(__linux)
int run_mach(void);
#endif
