int stray(void);
