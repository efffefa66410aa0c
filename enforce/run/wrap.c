/*
 * wrap.c - `cordon wrap [--json] [OPTIONS] -- COMMAND [ARGS...]`.
 *
 * The argv is cordon's own absolute path, the policy options as they
 * were written (--json left out), "--" and the command; the environment
 * is what the launcher would pass the command: this process's, scrubbed
 * to the policy's allowlist (the variables --env passes by name carry
 * their values now).  A caller that clears its environment and spawns
 * exactly that, from the same working directory (the workspace, and
 * what relative paths in the options are taken from), runs the command
 * as `cordon OPTIONS -- COMMAND` would, and nothing of its own
 * environment reaches the command.  The options are checked first (a
 * missing path is refused here, exit 125, not at the spawn).  Nothing
 * is made: no temp dir, no socket, no log.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "enforce/policy/policy.h"
#include "enforce/base/base.h"
#include "enforce/run/run.h"
#include "shim/core/env.h"
#include "shim/core/strbuf.h"

extern char **environ;

static bool is_wrap_only(const char *word)
{
	return strcmp(word, "--json") == 0 || strcmp(word, "--") == 0;
}

static json_t *argv_of(const struct cli *c, const char *self)
{
	json_t *a = json_array();

	json_array_append_new(a, json_string(self));
	for (int i = 0; i < c->nwords; i++)
		if (!is_wrap_only(c->words[i]))
			json_array_append_new(a, json_string(c->words[i]));
	json_array_append_new(a, json_string("--"));
	for (size_t i = 0; c->argv[i]; i++)
		json_array_append_new(a, json_string(c->argv[i]));
	return a;
}

static json_t *env_of(char **envp)
{
	json_t *o = json_object();

	for (size_t i = 0; envp[i]; i++) {
		size_t n = env_name_len(envp[i]);
		char name[256];

		if (!envp[i][n] || n >= sizeof(name))
			continue;
		memcpy(name, envp[i], n);
		name[n] = '\0';
		json_object_set_new(o, name, json_string(envp[i] + n + 1));
	}
	return o;
}

/* The same as one line a shell runs: env -i NAME=VALUE... ARGV... */
static void print_shell(json_t *doc)
{
	static char buf[8 * PATH_BUF];
	struct strbuf sb = STRBUF(buf, sizeof(buf));
	const char *name;
	json_t *v;
	size_t i;

	fputs("env -i", stdout);
	json_object_foreach(json_object_get(doc, "env"), name, v)
	{
		char word[2 * PATH_BUF];

		snprintf(word, sizeof(word), "%s=%s", name,
			 json_string_value(v));
		sb = STRBUF(buf, sizeof(buf));
		sb_shell(&sb, word);
		printf(" %s", buf);
	}
	json_array_foreach(json_object_get(doc, "argv"), i, v)
	{
		sb = STRBUF(buf, sizeof(buf));
		sb_shell(&sb, json_string_value(v));
		printf(" %s", buf);
	}
	putchar('\n');
}

int wrap_run(struct cli *c)
{
	char self[PATH_BUF], err[512 + PATH_BUF], *s;
	size_t cap;
	char **envp;
	json_t *doc;

	if (roots_build(c, &c->policy, err, sizeof(err))) {
		say_error("%s", err);
		return EXIT_CORDON;
	}
	envp = shimenv_scrubbed(&c->policy, environ, &cap);
	if (!envp || platform_self_exe(self)) {
		say_error("cannot build the command line: %s",
			  envp ? "cordon's own path is unknown"
			       : "out of memory");
		return EXIT_CORDON;
	}
	doc = json_pack("{s:o, s:o}", "argv", argv_of(c, self), "env",
			env_of(envp));
	s = doc && c->json ? json_dumps(doc, JSON_COMPACT) : NULL;
	if (!doc || (c->json && !s)) {
		say_error("cannot build the command line: out of memory");
		return EXIT_CORDON;
	}
	if (c->json)
		puts(s);
	else
		print_shell(doc);
	free(s);
	json_decref(doc);
	free(envp);
	return fflush(stdout) ? EXIT_CORDON : 0;
}
