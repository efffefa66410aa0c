/*
 * Unit tests of the Seatbelt profile generator (enforce/darwin/sbpl.c) for the
 * UNIX sockets of --connect-unix: reached, never bound.
 */
#include "sbpl_fixture.h"

Test(sbpl, connect_unix_roots_are_reached_not_bound)
{
	workspace_write();
	add(HOME "/run/agent.sock", RIGHT_U, ORIGIN_USER, REG);
	add(HOME "/sockets", RIGHT_U, ORIGIN_USER, DIR);
	render(&mac);
	cr_assert(strstr(out, "(allow network-outbound\n"
			      "\t(remote unix-socket (literal \"" HOME
			      "/run/agent.sock\"))\n"
			      "\t(remote unix-socket (subpath \"" HOME
			      "/sockets\")))\n"),
		  "%s", out);
	/* never bound there, never read */
	cr_assert_null(strstr(out, "(local unix-socket (subpath \"" HOME
				   "/sockets\"))"));
	cr_assert_null(strstr(out, "(allow file-read* (subpath \"" HOME
				   "/sockets\"))"));
}

/* The twin: without the option, the socket appears nowhere. */
Test(sbpl, no_connect_unix_root_no_socket_rule)
{
	workspace_write();
	render(&mac);
	cr_assert_null(strstr(out, "agent.sock"));
}
