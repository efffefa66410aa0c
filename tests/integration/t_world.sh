# The command's world (enforce/linux/world.c): a root holding only the
# policy's roots, so that on a kernel without Landlock (5.10, or Landlock
# left out of the lsm= list, which nolandlock's EOPNOTSUPP is: the
# Landlock system calls answer as there) a program that no shim sees
# (--no-shim) reads, writes and runs only what it was granted.  Each
# effect is checked from outside, each with its twin that the grant
# makes succeed under the same helper.  The kernels that really lack
# Landlock are the kernel matrix's (make kernels: 5.10, 6.1 without it
# in lsm=).

need_helper() {
	[ -x "$HELPERS/$1" ] || fail "helper $1 was not built"
}

# no_landlock [cordon options] -- COMMAND...: cordon where Landlock is
# not in the lsm= list; sets $status, $T/stdout, $T/stderr.
no_landlock() {
	need_helper nolandlock
	"$HELPERS/nolandlock" --errno EOPNOTSUPP -- "$CORDON" "$@" \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	return 0
}

test_world_without_landlock_runs_with_no_option() {
	no_landlock -- touch "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
	assert_stderr_lacks "refusing to run"
	assert_stderr_lacks "NOT ENFORCED"
}

test_world_without_landlock_reads_only_the_roots() {
	printf 'SECRET\n' > "$T/out/secret"
	no_landlock --no-shim -- sh -c "cat '$T/out/secret' > '$T/ws/copy'"
	assert_status_not 0
	grep -q SECRET "$T/ws/copy" 2>/dev/null && fail "the secret was copied"
	# the twin: granted, the same copy is made
	no_landlock --no-shim --read "$T/out" -- \
		sh -c "cat '$T/out/secret' > '$T/ws/copy'"
	assert_status 0
	assert_content "$T/ws/copy" "SECRET"
}

test_world_without_landlock_writes_only_the_writable_roots() {
	no_landlock --no-shim -- sh -c "echo x > '$T/out/new'"
	assert_status_not 0
	assert_absent "$T/out/new"
	no_landlock --no-shim --read "$T/out" -- sh -c "echo x > '$T/out/new'"
	assert_status_not 0
	assert_absent "$T/out/new"
	no_landlock --no-shim --write "$T/out" -- sh -c "echo x > '$T/out/new'"
	assert_status 0
	assert_content "$T/out/new" "x"
}

test_world_without_landlock_runs_only_the_exec_roots() {
	cp "$(command -v touch)" "$T/out/mytouch" || fail "cannot copy touch"
	no_landlock --no-shim --read "$T/out" -- "$T/out/mytouch" "$T/ws/ran"
	assert_status_not 0
	assert_absent "$T/ws/ran"
	# by the loader too: a readable root is mapped without execute
	no_landlock --no-shim --read "$T/out" -- \
		/lib64/ld-linux-x86-64.so.2 "$T/out/mytouch" "$T/ws/ran"
	assert_status_not 0
	assert_absent "$T/ws/ran"
	no_landlock --no-shim --exec "$T/out" -- "$T/out/mytouch" "$T/ws/ran"
	assert_status 0
	assert_exists "$T/ws/ran"
}

# Stand-ins: a name outside the roots is seen, as under Landlock (which
# checks no stat), and holds nothing.
test_world_names_outside_are_seen_and_empty() {
	printf 'SECRET\n' > "$T/out/secret"
	no_landlock --no-shim -- sh -c "ls -a '$T'; ls -a '$T/out'"
	assert_stdout_has '^out$'
	assert_stdout_lacks 'secret'
	# with Landlock as well (which lists no directory it does not
	# grant): the name is there, its content refused
	cordon --no-shim -- sh -c "test -d '$T/out' && echo seen; cat '$T/out/secret'"
	assert_stdout_has '^seen$'
	assert_stdout_lacks 'SECRET'
	# the twin: bare, the secret is read
	plain sh -c "cat '$T/out/secret'"
	assert_stdout_has 'SECRET'
}

# /dev is the world's own: no disk, no console's screen, whatever a root
# user may open (under Landlock alone /dev is readable).
test_world_no_device_of_the_host() {
	local dev=
	[ "$(id -u)" = 0 ] || skip "a user opens no device of root's bare either"
	for d in /dev/vda /dev/sda /dev/nvme0n1 /dev/loop0 /dev/vcs; do
		[ -e "$d" ] && head -c 0 "$d" 2>/dev/null && { dev=$d; break; }
	done
	[ -n "$dev" ] || skip "no disk or console device root can open here"
	cordon --no-shim -- sh -c "exec 3< '$dev' && echo opened > '$T/ws/opened'"
	assert_status_not 0
	assert_absent "$T/ws/opened"
	# the twins: bare, and with /dev granted by the user, it opens
	plain sh -c "exec 3< '$dev' && echo opened > '$T/out/opened'"
	assert_status 0
	assert_exists "$T/out/opened"
	cordon --no-shim --read /dev -- \
		sh -c "exec 3< '$dev' && echo opened > '$T/ws/opened'"
	assert_status 0
	assert_exists "$T/ws/opened"
}
