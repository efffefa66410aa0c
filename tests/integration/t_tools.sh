# The tools' own roots in a home directory (shim/core/toolroot.c): a
# refusal there names the root with the right the tool needs, from the
# first line, and the built-in profile that holds it; a cache not there
# yet is made (--create); a hidden file is absent for the program; a
# variable the scrub removed is named with -e; the built-in profiles
# keep what a shell or PATH runs outside read-only.  Each suggestion is
# pasted as printed and must make the refused action succeed.

# $T/home, a home of the test's own (cordon's state goes there too).
tool_home() {
	H=$T/home
	mkdir -p "$H"
}

# The option the line for @1 (a path's text) printed: "--flag PATH".
line_option() {
	grep -- "$1" "$T/stderr" | sed -n 's/.*; allow with \(--[a-z-]* [^ ]*\).*/\1/p' | head -n 1
}

test_tools_toolchain_granted_at_its_root_with_exec() {
	tool_home
	local tc=$H/.rustup/toolchains/stable-x86_64/bin
	mkdir -p "$tc" "$H/.rustup/toolchains/stable-x86_64/lib"
	echo lib > "$H/.rustup/toolchains/stable-x86_64/lib/librustc_driver.so"
	printf '#!/bin/sh\ncat %s/../lib/librustc_driver.so\n' "$tc" > "$tc/rustc"
	chmod +x "$tc/rustc"
	# the twin: bare, it runs
	plain sh -c "'$tc/rustc'"
	assert_stdout_has '^lib$'
	HOME=$H cordon -- sh -c "'$tc/rustc'"
	assert_status_not 0
	assert_stderr_has "(the built-in profile cargo holds it: -p cargo); allow with --exec $H/.rustup$"
	opt=$(line_option "$tc/rustc")
	[ "$opt" = "--exec $H/.rustup" ] || { show; fail "line's option '$opt'"; }
	# pasted as printed: the toolchain runs, its library read
	# shellcheck disable=SC2086
	HOME=$H cordon $opt -- sh -c "'$tc/rustc'"
	assert_status 0
	assert_stdout_has '^lib$'
	# and the profile it names does the same
	HOME=$H cordon -p cargo -- sh -c "'$tc/rustc'"
	assert_status 0
	assert_stdout_has '^lib$'
}

test_tools_cache_granted_at_its_root_with_write() {
	tool_home
	mkdir -p "$H/.npm/_cacache"
	local d=$H/.npm/_cacache/index-v5/b8/65
	HOME=$H cordon -- sh -c "mkdir -p '$d' && echo entry > '$d/x'"
	assert_status_not 0
	assert_absent "$d"
	assert_stderr_has "(the built-in profile npm holds it: -p npm); allow with --write $H/.npm$"
	opt=$(line_option "$H/.npm")
	[ "$opt" = "--write $H/.npm" ] || { show; fail "line's option '$opt'"; }
	# shellcheck disable=SC2086
	HOME=$H cordon $opt -- sh -c "mkdir -p '$d' && echo entry > '$d/x'"
	assert_status 0
	assert_content "$d/x" entry
}

test_tools_missing_cache_is_created_not_its_parent() {
	tool_home
	mkdir -p "$H/.cache"
	HOME=$H cordon -- sh -c "mkdir '$H/.cache/pip' && echo x > '$H/.cache/pip/f'"
	assert_status_not 0
	assert_absent "$H/.cache/pip"
	assert_stderr_has "(the built-in profile pip holds it: -p pip); allow with --create $H/.cache/pip$"
	assert_stderr_lacks "allow with --write $H/.cache "
	HOME=$H cordon --create "$H/.cache/pip" -- sh -c "echo x > '$H/.cache/pip/f'"
	assert_status 0
	assert_content "$H/.cache/pip/f" x
}

test_tools_directory_made_in_home_is_created_not_home() {
	tool_home
	HOME=$H cordon -- mkdir "$H/.demo"
	assert_status_not 0
	assert_absent "$H/.demo"
	assert_stderr_has "allow with --create $H/.demo"
	assert_stderr_lacks "allow with --write $H\$"
	assert_stderr_lacks "allow with --write $H "
	HOME=$H cordon --create "$H/.demo" -- sh -c "echo x > '$H/.demo/f'"
	assert_status 0
	assert_content "$H/.demo/f" x
	# explain makes nothing
	rm -r "$H/.demo"
	HOME=$H cordon explain --create "$H/.demo" --write "$H/.demo/f"
	assert_absent "$H/.demo"
}

test_tools_hidden_file_is_absent_for_the_program() {
	tool_home
	echo '[user]' > "$H/.gitconfig"
	local probe='if [ -e "$HOME/.gitconfig" ]; then echo present; else echo absent; fi; cat "$HOME/.gitconfig"'
	# the twin: bare, it is there
	HOME=$H plain sh -c "$probe"
	assert_stdout_has '^present$'
	HOME=$H cordon -- sh -c "$probe"
	assert_stdout_has '^absent$'
	assert_stderr_has "No such file or directory"
	assert_stderr_lacks "Permission denied"
	# the line still names it, and its option shows it
	assert_stderr_has "denied read $H/.gitconfig"
	HOME=$H cordon --read "$H/.gitconfig" -- sh -c "$probe"
	assert_stdout_has '^present$'
	assert_stdout_has '^\[user\]$'
	# a directory shown on the way to a root (the home, for its
	# .profile) is refused, not absent
	echo : > "$H/.profile"
	HOME=$H cordon -- ls "$H"
	assert_stderr_has "Permission denied"
	assert_content "$H/.gitconfig" '[user]'
}

test_tools_scrubbed_variable_named_with_its_option() {
	tool_home
	# the twin: bare, the program gets it
	PKG_CONFIG_PATH=/opt/pc plain "$HELPERS/getenv" PKG_CONFIG_PATH
	assert_stdout_has '^PKG_CONFIG_PATH=/opt/pc$'
	PKG_CONFIG_PATH=/opt/pc HOME=$H cordon -- "$HELPERS/getenv" PKG_CONFIG_PATH HOME
	assert_status 0
	assert_stdout_has '^PKG_CONFIG_PATH unset$'
	assert_stdout_has "^HOME=$H\$"
	assert_stderr_has 'denied variable PKG_CONFIG_PATH \[getenv\].*; allow with -e PKG_CONFIG_PATH$'
	assert_stderr_has '^cordon: allow all of it with: -e PKG_CONFIG_PATH$'
	# once, however often it asks
	PKG_CONFIG_PATH=/opt/pc HOME=$H cordon -- "$HELPERS/getenv" PKG_CONFIG_PATH PKG_CONFIG_PATH
	[ "$(grep -c 'denied variable PKG_CONFIG_PATH' "$T/stderr")" -eq 1 ] ||
		{ show; fail "more than one line"; }
	# secure_getenv too
	PKG_CONFIG_PATH=/opt/pc HOME=$H cordon -- "$HELPERS/getenv" -s PKG_CONFIG_PATH
	assert_stderr_has 'denied variable PKG_CONFIG_PATH'
	# pasted: passed
	PKG_CONFIG_PATH=/opt/pc HOME=$H cordon -e PKG_CONFIG_PATH -- "$HELPERS/getenv" PKG_CONFIG_PATH
	assert_stdout_has '^PKG_CONFIG_PATH=/opt/pc$'
	assert_stderr_lacks 'denied variable'
	# full-dev passes the build variables
	PKG_CONFIG_PATH=/opt/pc HOME=$H cordon -m full-dev -- "$HELPERS/getenv" PKG_CONFIG_PATH
	assert_stdout_has '^PKG_CONFIG_PATH=/opt/pc$'
	# a variable never set says nothing
	HOME=$H cordon -- "$HELPERS/getenv" CORDON_IT_NEVER_SET
	assert_stderr_lacks 'denied variable'
}

test_tools_learned_variable_passes_next_run() {
	tool_home
	PKG_CONFIG_PATH=/opt/pc HOME=$H cordon learn -o "$T/out/p.json" -- "$HELPERS/getenv" PKG_CONFIG_PATH
	assert_status 0
	python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p.get("env") == ["PKG_CONFIG_PATH"], p' "$T/out/p.json" ||
		{ cat "$T/out/p.json"; fail "no env entry learned"; }
	PKG_CONFIG_PATH=/opt/pc HOME=$H cordon -p "$T/out/p.json" -- "$HELPERS/getenv" PKG_CONFIG_PATH
	assert_stdout_has '^PKG_CONFIG_PATH=/opt/pc$'
}

test_tools_profiles_keep_what_the_shell_runs_read_only() {
	tool_home
	mkdir -p "$H/.cargo/bin" "$H/.cargo/registry" "$H/.local/bin"
	echo 'export PATH=$HOME/.cargo/bin:$PATH' > "$H/.cargo/env"
	HOME=$H cordon -p cargo -p local -- sh -c "
		echo evil >> '$H/.cargo/env'
		echo evil > '$H/.cargo/bin/cargo'
		echo evil > '$H/.local/bin/pip'
		echo crate > '$H/.cargo/registry/c'"
	assert_content "$H/.cargo/env" 'export PATH=$HOME/.cargo/bin:$PATH'
	assert_absent "$H/.cargo/bin/cargo"
	assert_absent "$H/.local/bin/pip"
	# the twin: the profile's cache is written
	assert_content "$H/.cargo/registry/c" crate
	# full-dev neither
	HOME=$H cordon -m full-dev -- sh -c "echo evil >> '$H/.cargo/env'"
	assert_content "$H/.cargo/env" 'export PATH=$HOME/.cargo/bin:$PATH'
}

test_tools_npm_runs_what_npx_fetches() {
	tool_home
	local b=$H/.npm/_npx/0a1b/node_modules/.bin
	local run="mkdir -p '$b' && printf '#!/bin/sh\necho ran\n' > '$b/tool' && chmod +x '$b/tool' && '$b/tool'"
	HOME=$H cordon -p npm -- sh -c "$run"
	assert_status 0
	assert_stdout_has '^ran$'
	# the twin: without the profile, nothing is made
	rm -rf "$H/.npm"
	mkdir -p "$H/.npm"
	HOME=$H cordon -- sh -c "$run"
	assert_status_not 0
	assert_absent "$H/.npm/_npx"
}

test_tools_cache_made_on_first_use() {
	tool_home
	HOME=$H cordon -p ccache -- sh -c "echo obj > '$H/.cache/ccache/o'"
	assert_status 0
	assert_content "$H/.cache/ccache/o" obj
}

test_tools_learn_keeps_files_exact() {
	tool_home
	mkdir -p "$H/.demo"
	echo conf > "$H/.demo/config"
	echo s3cr3t > "$H/.demo/credentials"
	HOME=$H cordon learn -o "$T/out/p.json" -- cat "$H/.demo/config"
	assert_status 0
	python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p.get("read") == ["~/.demo/config"], p' "$T/out/p.json" ||
		{ cat "$T/out/p.json"; fail "not the file itself"; }
	HOME=$H cordon -p "$T/out/p.json" -- cat "$H/.demo/config"
	assert_stdout_has '^conf$'
	HOME=$H cordon -p "$T/out/p.json" -- cat "$H/.demo/credentials"
	assert_stdout_lacks s3cr3t
}

# pyenv_shims NAME...: the user's own NAME in ~/.pyenv/shims, each
# saying "the user's NAME".
pyenv_shims() {
	local n
	mkdir -p "$H/.pyenv/shims"
	for n in "$@"; do
		printf '#!/bin/sh\necho "the user'"'"'s %s"\n' "$n" > "$H/.pyenv/shims/$n"
		chmod +x "$H/.pyenv/shims/$n"
	done
}

test_tools_shadowed_command_said_at_start() {
	tool_home
	# id: a program in /usr/bin, no shell's builtin
	pyenv_shims id
	local p="$H/.pyenv/shims:/usr/bin:/bin"
	# the twin: bare, the user's runs
	HOME=$H PATH=$p plain /bin/sh -c id
	assert_stdout_has "^the user's id\$"
	HOME=$H PATH=$p cordon -- /bin/sh -c id
	assert_status 0
	assert_stdout_lacks "the user's id"
	local sys
	sys=$(cd /usr/bin && pwd -P)
	assert_stderr_has "^cordon: note: PATH's $H/.pyenv/shims is not granted: id will run from $sys instead of the user's; allow with --exec $H/.pyenv\$"
	HOME=$H PATH=$p cordon --exec "$H/.pyenv" -- /bin/sh -c id
	assert_stdout_has "^the user's id\$"
	assert_stderr_lacks "note: PATH's"
	# quiet: nothing
	HOME=$H PATH=$p cordon -q -- /bin/sh -c id
	assert_stderr_lacks "note: PATH's"
}

# Many shadowed: three named, "(and more)", and the note said once
# (the reading of the entry ends past the third).
test_tools_shadowed_many_commands_named_three_and_more() {
	tool_home
	pyenv_shims id env cat true false
	local p="$H/.pyenv/shims:/usr/bin:/bin"
	HOME=$H PATH=$p plain /bin/sh -c id
	assert_stdout_has "^the user's id\$"
	HOME=$H PATH=$p cordon -- /bin/sh -c id
	assert_status 0
	assert_stdout_lacks "the user's id"
	assert_stderr_has "^cordon: note: PATH's $H/.pyenv/shims is not granted: [a-z]*, [a-z]*, [a-z]* (and more) will run from .* and later entries instead of the user's; allow with --exec $H/.pyenv\$"
	[ "$(grep -c "note: PATH's" "$T/stderr")" -eq 1 ] ||
		fail "the note is not said once"
	HOME=$H PATH=$p cordon --exec "$H/.pyenv" -- /bin/sh -c id
	assert_stdout_has "^the user's id\$"
	assert_stderr_lacks "note: PATH's"
}

# cordon's own report socket is reached whatever the home and the
# working directory: the denial is in the summary and the log.
test_tools_own_state_never_refused() {
	tool_home
	echo s3cr3t > "$T/out/secret"
	# the run started in $HOME (the workspace holds cordon's state)
	cd "$H" || fail "cd"
	HOME=$H cordon -- cat "$T/out/secret"
	cd "$T/ws" || fail "cd"
	assert_stdout_lacks s3cr3t
	assert_stderr_has "^cordon: allow all of it with: --read $T/out/secret\$"
	assert_stderr_lacks "cordon's supervisor"
	grep -q "\"resolved\":\"$T/out/secret\"" "$H/.local/state/cordon/audit.jsonl" ||
		fail "the denial is not in the log"
	# HOME unset: the user's home from the password database
	env -u HOME "$CORDON" -- cat "$T/out/secret" > "$T/stdout" 2> "$T/stderr"
	assert_stderr_has "^cordon: allow all of it with: --read $T/out/secret\$"
	assert_stderr_lacks "cordon's supervisor"
	# HOME=/: root alone can make /.local; a user's run says it cannot
	[ "$(id -u)" -eq 0 ] || return 0
	local made=
	[ -e /.local ] || made=1
	HOME=/ cordon -- cat "$T/out/secret"
	[ -z "$made" ] || rm -rf /.local
	assert_stderr_has "^cordon: allow all of it with: --read $T/out/secret\$"
	assert_stderr_lacks "cordon's supervisor"
	assert_stderr_lacks "//"
}

# A program granted alone whose run path ($ORIGIN/../lib, as rustup's
# rustc) names a library beside it: the loader cannot map it, before
# any hook runs; the shim names it before the exec, with its option.
test_tools_library_a_program_cannot_map_is_named() {
	command -v gcc > /dev/null || skip "SKIP: no gcc"
	local tc=$T/out/tc
	mkdir -p "$tc/bin" "$tc/lib"
	echo 'const char *demo(void) { return "lib mapped"; }' > "$T/lib.c"
	printf '#include <stdio.h>\nconst char *demo(void);\nint main(void) { puts(demo()); return 0; }\n' > "$T/main.c"
	gcc -shared -fPIC -o "$tc/lib/libdemo.so" "$T/lib.c" &&
		gcc -o "$tc/bin/prog" "$T/main.c" -L"$tc/lib" -ldemo \
			-Wl,-rpath,'$ORIGIN/../lib' || fail "cannot build"
	# the twin: bare, it runs
	plain sh -c "'$tc/bin/prog'"
	assert_stdout_has '^lib mapped$'
	cordon --exec "$tc/bin/prog" -- sh -c "'$tc/bin/prog'"
	assert_status_not 0
	assert_stdout_lacks 'lib mapped'
	assert_stderr_has "^cordon: denied exec $tc/lib/libdemo.so \[execve\] (a library the program's run path names, which the loader maps: it runs nothing where it is); allow with --exec $tc/lib/libdemo.so\$"
	# pasted as printed
	cordon --exec "$tc/bin/prog" --exec "$tc/lib/libdemo.so" -- sh -c "'$tc/bin/prog'"
	assert_status 0
	assert_stdout_has '^lib mapped$'
	assert_stderr_lacks 'denied'
}
