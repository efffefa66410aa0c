/*
 * session_trust.h - who a session's supervisor is, recorded where no
 * sandbox can write, and checked by every client before it sends
 * anything (session_trust.c).
 */
#ifndef CORDON_SESSION_TRUST_H
#define CORDON_SESSION_TRUST_H

/**
 * session_trust_record - in the supervisor, once session @id's socket
 * is bound and listening: record this process (pid, start time, uid)
 * and the socket file (device, inode) in the private state directory's
 * "sessions/ID.peer".
 * Return: 0, or -errno (a line said when the directory is not private).
 */
int session_trust_record(const char *id);

/* Remove session @id's record (its end). */
void session_trust_forget(const char *id);

/**
 * session_trust_connect - connect to session @id's socket and check
 * that its listener is the supervisor recorded (SO_PEERCRED's pid and
 * uid, the pid's start time, the socket file's device and inode).
 * Return: the connected descriptor; -ENOENT or -ECONNREFUSED (no such
 * session: a dead one's socket is removed), another -errno, or
 * -EKEYREJECTED once a line said that the listener is not the session's
 * supervisor (nothing was sent).
 */
int session_trust_connect(const char *id);

#endif
