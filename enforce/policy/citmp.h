/*
 * citmp.h - where the ci mode's temp dirs live (citmp.c): in cordon's
 * state directory, which no run may write, one per launcher, removed
 * through descriptors (rmtree.h).
 */
#ifndef CORDON_CITMP_H
#define CORDON_CITMP_H

#include <stdbool.h>
#include <stddef.h>

#include "shim/core/path.h"
#include "shim/core/policy.h"

/**
 * citmp_prepare - make <state>/ci (mode 0700) if missing and check it
 * is the user's own: a directory, not a link, owned by the user, with
 * no access for group or others.  With @make, then remove the dirs of
 * launchers gone (pid and start time) and make this launcher's, with
 * home/ and tmp/ in it; its path in @dir.
 * Return: 0, or -errno with one line in @err.
 */
int citmp_prepare(bool make, char dir[PATH_BUF], char *err, size_t errlen);

/**
 * citmp_refuse - a writable root of @p at or below cordon's state
 * directory, other than this run's own ci dir: there a run could write
 * another's temp dir (or its own, while the launcher removes it).
 * Return: 0, or -EPERM with one line in @err.
 */
int citmp_refuse(const struct policy *p, char *err, size_t errlen);

/* Remove this launcher's ci dir, if it made one, and say what could
 * not be removed. */
void citmp_remove(void);

#endif
