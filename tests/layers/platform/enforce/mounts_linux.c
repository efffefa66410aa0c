int mounts(void);
int mounts(void)
{
#ifdef __linux__
	return 1;
#endif
	return 0;
}
