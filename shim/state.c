/*
 * state.c - what every part of the shim reads: the policy this process
 * loaded and what it passes on (struct shim_state, shim.h), the arena
 * its strings are cut from, and the process's stderr as it began
 * (shim_say).  Linked first: the state starts on the page of .data
 * that ld.so writes anyway (shim.h).  No allocation, no lock, no stdio.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core/env.h"
#include "shim/core/strbuf.h"
#include "shim/shim.h"

struct shim_state shim;

void shim_note_stderr(void)
{
	struct stat st;

	/* fstat, not fstatat with "": no string of .rodata for the kernel
	 * to read, no page of it faulted in at every start */
	shim.err_open = syscall(SYS_fstat, 2, &st) == 0;
	shim.err_dev = shim.err_open ? st.st_dev : 0;
	shim.err_ino = shim.err_open ? st.st_ino : 0;
}

void shim_say(const char *line, size_t len)
{
	struct stat st;
	int saved = errno;

	if (shim.err_open &&
	    syscall(SYS_newfstatat, 2, "", &st, AT_EMPTY_PATH) == 0 &&
	    st.st_dev == shim.err_dev && st.st_ino == shim.err_ino)
		syscall(SYS_write, 2, line, len);
	errno = saved;
}

char *shim_arena_next(void)
{
	return shim.arena + shim.arena_used;
}

void shim_arena_cut(const char *piece)
{
	shim.arena_used = (size_t)(piece - shim.arena) + strlen(piece) + 1;
}

char *shim_keep(char **envp, const char *name, size_t cap)
{
	const char *v = env_value(envp, name);
	char *piece = shim_arena_next();
	struct strbuf sb = STRBUF(piece, cap);

	if (v) {
		/* the '=' from the environment's own string (its name is
		 * followed by it), not a literal of .rodata */
		sb_put(&sb, v - strlen(name) - 1, strlen(name) + 1);
		sb_puts(&sb, v);
	}
	if (!v || sb.full)
		piece[0] = '\0';
	shim_arena_cut(piece);
	return piece;
}
