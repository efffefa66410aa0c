/*
 * brun.c - run benchmark commands interleaved, one timed run at a time.
 *
 *   brun [-r ROUNDS] [-n RUNS] [-w WARMUP] [-m] [-p PREP] [-d DIR]
 *        SPECFILE LABEL
 *
 * SPECFILE holds one configuration per line, fields separated by '|':
 *
 *   NAME|VAR=VALUE VAR=VALUE|ARG0|ARG1|...
 *
 * (the second field may be empty).  Each round runs every configuration
 * RUNS times, in an order rotated by one each round, so that a slow
 * minute of a noisy machine falls on all of them alike.  Each run is
 * posix_spawn()ed with the calling environment plus the configuration's
 * variables, its stdout read and its wall time taken with
 * CLOCK_MONOTONIC.  PREP (the same '|'-separated argv) runs, untimed,
 * before every timed run (a clean build tree).
 *
 * Output, on stdout, one CSV line per timed run:
 *   LABEL,NAME,ROUND,VALUE
 * where VALUE is the wall time in seconds, or with -m the number the
 * command printed last on its stdout (ns per call, from inside).
 *
 * Exit: 0; 1 when a command fails (its name and status on stderr);
 * 2 on bad usage or a malformed SPECFILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONFIGS 16
#define MAX_ARGS    64
#define MAX_VARS    16

extern char **environ;

struct config {
	char *name;
	char *argv[MAX_ARGS + 1];
	char *env[MAX_VARS + 512];
};

static struct config configs[MAX_CONFIGS];
static size_t nconfigs;

static void usage(void)
{
	fprintf(stderr, "usage: brun [-r ROUNDS] [-n RUNS] [-w WARMUP] [-m] "
			"[-p PREP] [-d DIR] SPECFILE LABEL\n");
	exit(2);
}

/* Split @s in place at '|' (or ' ' for variables) into @out. */
static size_t split(char *s, int sep, char **out, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	const char delim[2] = { (char)sep, '\0' };

	for (char *t = strtok_r(s, delim, &save); t;
	     t = strtok_r(NULL, delim, &save)) {
		if (n == max)
			return max + 1;
		out[n++] = t;
	}
	out[n] = NULL;
	return n;
}

/* The calling environment with @vars put over it. */
static int build_env(struct config *c, char *vars)
{
	char *v[MAX_VARS + 1];
	size_t nv = split(vars, ' ', v, MAX_VARS), n = 0;

	if (nv > MAX_VARS)
		return -1;
	for (char **e = environ; *e; e++) {
		bool over = false;

		for (size_t i = 0; i < nv && !over; i++) {
			size_t len = strcspn(v[i], "=");

			over = strncmp(*e, v[i], len + 1) == 0;
		}
		if (!over) {
			if (n == sizeof(c->env) / sizeof(c->env[0]) - nv - 1)
				return -1;
			c->env[n++] = *e;
		}
	}
	for (size_t i = 0; i < nv; i++)
		c->env[n++] = v[i];
	c->env[n] = NULL;
	return 0;
}

static int parse_line(char *line, size_t lineno)
{
	struct config *c = &configs[nconfigs];
	char *name = line, *vars, *args;

	line[strcspn(line, "\n")] = '\0';
	if (!line[0] || line[0] == '#')
		return 0;
	if (nconfigs == MAX_CONFIGS || !(vars = strchr(name, '|')) ||
	    !(args = strchr(vars + 1, '|')))
		goto bad;
	*vars++ = '\0';
	*args++ = '\0';
	c->name = name;
	if (build_env(c, vars) || split(args, '|', c->argv, MAX_ARGS) == 0 ||
	    c->argv[MAX_ARGS - 1])
		goto bad;
	nconfigs++;
	return 0;
bad:
	fprintf(stderr, "brun: spec line %zu: malformed or too long\n", lineno);
	return -1;
}

static int load_spec(const char *file)
{
	FILE *f = fopen(file, "re");
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	int ret = 0;

	if (!f) {
		fprintf(stderr, "brun: '%s': %s\n", file, strerror(errno));
		return -1;
	}
	while (!ret && getline(&line, &cap, f) >= 0) {
		char *copy = strdup(line);

		lineno++;
		ret = copy ? parse_line(copy, lineno) : -1;
	}
	free(line);
	fclose(f);
	if (!ret && !nconfigs) {
		fprintf(stderr, "brun: '%s': no configuration\n", file);
		ret = -1;
	}
	return ret;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Run @argv with @env; the last number on its stdout into @metric
 * when asked.  Return: the wall time, or a negative value on failure. */
static double run_one(char *const *argv, char *const *env, double *metric)
{
	posix_spawn_file_actions_t fa;
	char out[4096], *last;
	size_t len = 0;
	int pipefd[2], status;
	double t0, t1;
	pid_t pid;
	ssize_t n;

	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	t0 = now();
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, env)) {
		posix_spawn_file_actions_destroy(&fa);
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], out + len, sizeof(out) - 1 - len)) > 0) {
		len += (size_t)n;
		if (len == sizeof(out) - 1)
			len = 0; /* keep the tail only */
	}
	waitpid(pid, &status, 0);
	t1 = now();
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[0]);
	out[len] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "brun: %s: status %d: %.200s\n", argv[0],
			status, out);
		return -1;
	}
	if (metric) {
		while (len && (out[len - 1] == '\n' || out[len - 1] == ' '))
			out[--len] = '\0';
		last = strrchr(out, '\n');
		*metric = strtod(last ? last + 1 : out, NULL);
	}
	return t1 - t0;
}

int main(int argc, char **argv)
{
	long rounds = 5, runs = 1, warmup = 1;
	char *prep[MAX_ARGS + 1] = { NULL };
	bool use_metric = false;
	int opt;

	while ((opt = getopt(argc, argv, "r:n:w:mp:d:")) != -1) {
		switch (opt) {
		case 'r':
			rounds = strtol(optarg, NULL, 10);
			break;
		case 'n':
			runs = strtol(optarg, NULL, 10);
			break;
		case 'w':
			warmup = strtol(optarg, NULL, 10);
			break;
		case 'm':
			use_metric = true;
			break;
		case 'p':
			if (split(optarg, '|', prep, MAX_ARGS) > MAX_ARGS)
				usage();
			break;
		case 'd':
			if (chdir(optarg)) {
				fprintf(stderr, "brun: '%s': %s\n", optarg,
					strerror(errno));
				return 2;
			}
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 2 || rounds < 1 || runs < 1 || warmup < 0)
		usage();
	if (load_spec(argv[optind]))
		return 2;
	for (size_t i = 0; i < nconfigs; i++)
		for (long w = 0; w < warmup; w++) {
			if (prep[0] && run_one(prep, environ, NULL) < 0)
				return 1;
			if (run_one(configs[i].argv, configs[i].env, NULL) <
			    0) {
				fprintf(stderr, "brun: %s failed\n",
					configs[i].name);
				return 1;
			}
		}
	for (long r = 0; r < rounds; r++)
		for (size_t k = 0; k < nconfigs; k++) {
			struct config *c = &configs[(k + (size_t)r) % nconfigs];

			for (long i = 0; i < runs; i++) {
				double m = 0, t;

				if (prep[0] && run_one(prep, environ, NULL) < 0)
					return 1;
				t = run_one(c->argv, c->env,
					    use_metric ? &m : NULL);
				if (t < 0) {
					fprintf(stderr, "brun: %s failed\n",
						c->name);
					return 1;
				}
				printf("%s,%s,%ld,%.9g\n", argv[optind + 1],
				       c->name, r, use_metric ? m : t);
			}
			fflush(stdout);
		}
	return 0;
}
