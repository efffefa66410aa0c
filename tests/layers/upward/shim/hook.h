int hook_count(void);
