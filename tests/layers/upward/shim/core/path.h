int path_len(void);
