/*
 * say.h - cordon's own error line on stderr: "cordon: ...", one line
 * whatever it holds; with --json, also one error document on stdout.
 */
#ifndef CORDON_SAY_H
#define CORDON_SAY_H

#include <stdbool.h>

/* "cordon: <what>" and a newline; control characters in @fmt's
 * arguments (a path, a profile's key) shown as '?'.  The first one
 * (not a "WARNING: ...") is kept for say_exit(). */
void say_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An error another process (a session's daemon) said on stderr
 * already: kept for say_exit() as say_error() keeps one, not printed. */
void say_kept(const char *msg);

/* The error kept (the first said), or NULL. */
const char *say_first(void);

/* --json was asked: say_exit() answers a failure with a document. */
void say_json(bool on);

/**
 * say_exit - cordon's exit status, @status, said: with --json and
 * @status 125 (cordon failed or refused, and printed no document of its
 * own), {"error":{"status":125,"message":"<the first error said>"}} and
 * a newline on stdout (doc/schema/error.schema.json).
 * Return: @status.
 */
int say_exit(int status);

#endif
