/*
 * say.h - cordon's own error line on stderr: "cordon: ...", one line
 * whatever it holds.
 */
#ifndef CORDON_SAY_H
#define CORDON_SAY_H

/* "cordon: <what>" and a newline; control characters in @fmt's
 * arguments (a path, a profile's key) shown as '?'. */
void say_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Replace control characters (a newline in a path) with '?', so that a
 * message stays one line whatever the user typed. */
void say_oneline(char *s);

#endif
