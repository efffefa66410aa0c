int seatbelt(void);
int seatbelt(void)
{
#ifndef __APPLE__
	return 1;
#endif
	return 0;
}
