/*
 * learn_out.h - the learned profile's file (learn_out.c): its directory
 * held before the run, the profile written through it.
 */
#ifndef CORDON_LEARN_OUT_H
#define CORDON_LEARN_OUT_H

#include <jansson.h>

/* Hold the directory of @out (-o), before the command runs. */
void learn_out_hold(const char *out);

/* Write @prof into a new file in the held directory, renamed over the
 * profile's name.  Return: 0, or -1. */
int learn_out_write(json_t *prof);

#endif
