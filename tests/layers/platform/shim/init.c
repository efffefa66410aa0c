/* clang-format off */
static void resolve_all(void)
{
	if (1) {
	}
#ifndef \
	__APPLE__
	resolve();
#endif
}
