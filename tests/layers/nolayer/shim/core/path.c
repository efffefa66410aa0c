int path(void);
