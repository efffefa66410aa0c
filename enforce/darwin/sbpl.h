/*
 * sbpl.h - the policy as a Seatbelt profile (SBPL) for macOS.
 *
 * sbpl_render() is a pure function: what it must know about the host
 * (where /tmp really is, the per-user temp dir, the terminal, the
 * toolchain prefixes that exist) the caller looks up and hands over in
 * struct sbpl_host.  Portable C: it is built and unit-tested on Linux
 * against golden profiles, and applied with sandbox_init() on macOS
 * (enforce/darwin/platform_darwin.c).
 */
#ifndef CORDON_SBPL_H
#define CORDON_SBPL_H

#include <stddef.h>

#include "enforce/darwin/sbpl_host.h"
#include "shim/core/policy.h"
#include "shim/core/strbuf.h"

/**
 * sbpl_render - write the Seatbelt profile of @p on host @h to @out.
 *
 * Deny by default; the roots' rights (R: file-read*, W: file-write* and
 * file-ioctl, X: process-exec* and file-map-executable) on subpaths
 * (directories) and literals (files); a protected root denies what it
 * does not keep, after the roots containing it and before the roots
 * nested in it; the directories above a protected path that a writable
 * root would let the command rename or remove are pinned; the network
 * as the policy says; what every macOS process needs to start (the
 * loader, the shared cache, a few sysctls and services), each rule
 * commented.  User paths appear only in string literals.
 *
 * Return: 0; -EINVAL (a relative path), -EILSEQ (a path that is not
 * UTF-8, which Seatbelt cannot match), -ENAMETOOLONG, -ENOMEM, or
 * -ENOSPC when @out is too small (call again with a larger one).  On
 * error @err holds one line.
 */
int sbpl_render(const struct policy *p, const struct sbpl_host *h,
		struct strbuf *out, char *err, size_t errlen);

#endif
