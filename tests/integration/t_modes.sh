# The modes full-dev and ci: each one's grant and its refusal, from
# outside, beside the modes that differ.

test_mode_full_dev_network() {
	start_listener
	cordon -m full-dev -q -- bash -c "$tcp_connect" "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections"
}

test_mode_full_dev_toolchain_caches() {
	local h="$T/home"
	mkdir -p "$h/.cache/pip" "$h/.cargo/bin" "$h/other"
	HOME="$h" cordon -m full-dev -q -- touch "$h/.cache/pip/f" "$h/.cargo/c"
	assert_status 0
	assert_exists "$h/.cache/pip/f"
	assert_exists "$h/.cargo/c"
	# not the rest of the home
	HOME="$h" cordon -m full-dev -q -- touch "$h/other/f"
	assert_status_not 0
	assert_absent "$h/other/f"
	# the twin: workspace-net has the network, not the caches
	HOME="$h" cordon -m workspace-net -q -- touch "$h/.cache/pip/g"
	assert_status_not 0
	assert_absent "$h/.cache/pip/g"
	# a variable of a toolchain passes, as with -p pip
	PIP_INDEX_URL=x HOME="$h" cordon -m full-dev -q -- env
	assert_stdout_has '^PIP_INDEX_URL=x$'
}

test_mode_ci_no_network() {
	start_listener
	cordon -m ci -q -- bash -c "$tcp_connect" "$port"
	assert_status_not 0
	# the twin: full-dev reaches it
	cordon -m full-dev -q -- bash -c "$tcp_connect" "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 1 ] || fail "the listener saw $contacts connections"
}

test_mode_ci_no_home() {
	local h="$T/home"
	mkdir -p "$h"
	echo dotfile > "$h/.profile"
	HOME="$h" cordon -m ci -q -- cat "$h/.profile"
	assert_status_not 0
	assert_stdout_lacks dotfile
	# the twin: workspace-write reads the shell's dotfiles
	HOME="$h" cordon -q -- cat "$h/.profile"
	assert_status 0
	assert_stdout_has dotfile
}

test_mode_ci_fixed_environment_and_fresh_temp_dir() {
	SECRET=s MY_TOKEN=t LANG=fr_FR.UTF-8 cordon -m ci -q -e MY_TOKEN -- \
		sh -c 'env; echo x > "$TMPDIR/f" && echo x > "$HOME/f" &&
			echo "dirs $TMPDIR $HOME"'
	assert_status 0
	assert_stdout_lacks '^SECRET='
	assert_stdout_has '^MY_TOKEN=t$'
	assert_stdout_has '^LANG=C.UTF-8$'
	assert_stdout_has '^CI=true$'
	assert_stdout_has '^TZ=UTC$'
	local tmp home
	tmp=$(sed -n 's/^dirs \([^ ]*\) .*/\1/p' "$T/stdout")
	home=$(sed -n 's/^dirs [^ ]* \(.*\)/\1/p' "$T/stdout")
	# in cordon's state directory (t_deputy_tmp.sh: no sandbox writes it)
	local ci="$HOME/.local/state/cordon/ci/"
	case "$tmp" in "$ci"*/tmp) ;; *) show; fail "TMPDIR $tmp" ;; esac
	case "$home" in "$ci"*/home) ;; *) show; fail "HOME $home" ;; esac
	# removed after the run
	assert_absent "$tmp"
	assert_absent "${tmp%/tmp}"
	# the host's /tmp is not writable in ci; it is in workspace-write
	cordon -m ci -q -- touch "/tmp/cordon-it-ci-$$"
	assert_status_not 0
	assert_absent "/tmp/cordon-it-ci-$$"
	cordon -q -- touch "/tmp/cordon-it-ci-$$"
	assert_exists "/tmp/cordon-it-ci-$$"
	rm -f "/tmp/cordon-it-ci-$$"
}

test_mode_profiles_and_bad_name() {
	start_listener
	cordon -p full-dev -q -- bash -c "$tcp_connect" "$port"
	assert_status 0
	cordon -p ci --net -q -- bash -c "$tcp_connect" "$port"
	assert_status 0
	wait_listener
	[ "$contacts" = 2 ] || fail "the listener saw $contacts connections"
	cordon -m ci-strict -- true
	assert_status 125
	assert_stderr_has "full-dev or ci"
}

probe_mode_is() { # enforcement exit-status
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["enforcement"] == sys.argv[2], d
assert d["mode"] == "ci" and isinstance(d["missing"], list), d
assert (d["missing"] == []) == (sys.argv[2] == "full"), d' \
		"$T/stdout" "$1" || { show; fail "not $1"; }
	assert_status "$2"
}

test_probe_mode_answers() {
	cordon probe --json --mode ci
	probe_mode_is full 0
	"$HELPERS/fakeabi" 3 -- "$CORDON" probe --json --mode ci --connect 443 \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	probe_mode_is partial 1
	# without Landlock, the world (the granted roots alone) holds it
	"$HELPERS/nolandlock" -- "$CORDON" probe --json --mode ci \
		> "$T/stdout" 2> "$T/stderr"
	status=$?
	probe_mode_is full 0
}

test_schema_probe_mode_json() {
	schema_docs
	cordon probe --json --mode full-dev
	schema_valid probe-mode "$T/stdout"
	"$HELPERS/fakeabi" 3 -- "$CORDON" probe --json --mode ci > "$T/pm.json" 2> /dev/null
	schema_valid probe-mode "$T/pm.json"
	echo '{"mode":"ci","enforcement":"full","host":"x","missing":[{"layer":"a","feature":"b","needs":"c"}]}' > "$T/bad.json"
	schema_invalid probe-mode "$T/bad.json"
}
