/*
 * standalone.h - the shim without the launcher: LD_PRELOAD=libcordon.so
 * with the policy given in documented environment variables.
 */
#ifndef CORDON_STANDALONE_H
#define CORDON_STANDALONE_H

/**
 * standalone_load - build shim.policy from CORDON_READ, CORDON_WRITE,
 * CORDON_EXEC, CORDON_NET, CORDON_ENV, CORDON_LOG, CORDON_QUIET; encode
 * the snapshot children get; scrub environ; apply Landlock where the
 * kernel has it.  Called by shim_init() when CORDON_POLICY is absent.
 * @envp is the process's environment (environ may not be set yet).
 * Return: 0 when a policy was loaded, -ENOENT when none was given.
 */
int standalone_load(char **envp);

/**
 * standalone_refuse_all - a policy snapshot that cannot be read leaves
 * no policy to enforce: never none at all.  Everything is refused (no
 * root, the network off, the environment scrubbed), by the shim and by
 * Landlock where the kernel has it, and one line says why.  Children
 * get the same snapshot, and refuse all too.  @envp as above.
 */
void standalone_refuse_all(char **envp);

#endif
