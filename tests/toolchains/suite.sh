#!/usr/bin/env bash
# One pass of the toolchain suite as the current user; see run.sh.
#   suite.sh STAGE LABEL RESULTS [FILTER]
# Appends one line per workflow and configuration to RESULTS:
#   LABEL WORKFLOW CONFIG RESULT DETAIL
# RESULT is ok, fail, skip or bad (a grant the assertions forbid).
set -u
stage=$1 label=$2 results=$3 filter=${4:-}
CORDON=$stage/cordon
export CORDON
. "$stage/home.sh"
for f in "$stage"/w_*.sh; do
	. "$f"
done

say() { echo "$label $1 $2 $3 ${4:-}" >> "$results"; echo "[$label] $1 $2: $3 ${4:-}"; }

# The options of the summary's last line in $1 (a stderr), one a line,
# as a shell would split them (no option of cordon's holds a space but
# in a quoted path).
pasted() {
	python3 - "$1" << 'PY'
import shlex, sys
line = ""
for l in open(sys.argv[1], errors="replace"):
    if l.startswith("cordon: allow all of it with: "):
        line = l[len("cordon: allow all of it with: "):].strip()
for w in shlex.split(line):
    print(w)
PY
}

# Is a grant among the words of $1 (a file, one word a line) too wide:
# /, $HOME, /proc, --net, or a protected path (toolroot.h's and the
# shell's startup files)?  Prints the first such.
too_wide() {
	python3 - "$1" "$HOME" << 'PY'
import os, sys
words = [w.rstrip("\n") for w in open(sys.argv[1])]
home = os.path.realpath(sys.argv[2])
protected = [".cargo/env", ".cargo/bin", ".local/bin", ".pyenv/shims",
             ".pyenv/bin", ".nvm/nvm.sh", ".sdkman/bin", ".gitconfig",
             ".config/git", ".npmrc", "go/bin", ".bashrc", ".profile",
             ".bash_profile", ".zshrc"]
for i, w in enumerate(words):
    if w in ("--net", "-m", "--mode"):
        if w == "--net" or (i + 1 < len(words) and words[i + 1] in ("workspace-net", "full-dev")):
            print(w); sys.exit(0)
    if w in ("--read", "--write", "--exec", "--create", "-r", "-w", "-x") and i + 1 < len(words):
        p = os.path.realpath(os.path.expanduser(words[i + 1]))
        if p in ("/", home, "/proc") or home.startswith(p + "/"):
            print(w, words[i + 1]); sys.exit(0)
        # a grant above a protected path keeps it protected; one at
        # it or below lifts the protection
        if w in ("--write", "-w", "--create"):
            for q in protected:
                q = os.path.join(home, q)
                if p == q or p.startswith(q + "/"):
                    print(w, words[i + 1]); sys.exit(0)
PY
}

# Same for a learned profile (JSON).
profile_too_wide() {
	python3 - "$1" "$HOME" << 'PY'
import json, os, sys
p = json.load(open(sys.argv[1]))
home = os.path.realpath(sys.argv[2])
if p.get("net"):
    print("net"); sys.exit(0)
for key in ("read", "write", "exec", "create"):
    for x in p.get(key, []):
        r = os.path.realpath(os.path.expanduser(x))
        if r in ("/", home, "/proc") or home.startswith(r + "/"):
            print(key, x); sys.exit(0)
        if key in ("write", "create"):
            for q in (".cargo/env", ".cargo/bin", ".local/bin", ".pyenv/shims",
                      ".bashrc", ".profile", ".gitconfig"):
                q = os.path.join(home, q)
                if r == q or r.startswith(q + "/"):
                    print(key, x); sys.exit(0)
PY
}

# run_wf NAME CONFIG [OPTIONS...]: the workflow's run in a fresh copy of
# its workspace, under cordon with OPTIONS (none: "bare" runs it
# without).  Status of the check; the run's stderr in $W/stderr.
run_wf() {
	local name=$1 config=$2
	shift 2
	rm -rf "$W/ws" && cp -a "$W/ws.clean" "$W/ws" || return 1
	cd "$W/ws" || return 1
	unset WF_CORDON
	[ "$config" = bare ] || WF_CORDON=("$CORDON" "$@" --)
	"wf_${name}_run" > "$W/stdout" 2> "$W/stderr"
	unset WF_CORDON
	"wf_${name}_check" > "$W/check" 2>&1 && same_versions
}

# The versions the workflow printed ("WF_VERSION ..." lines) against bare's.
same_versions() {
	[ "$config" = bare ] && { grep '^WF_VERSION' "$W/stdout" > "$W/versions.bare"; return 0; }
	diff <(grep '^WF_VERSION' "$W/stdout") "$W/versions.bare" > /dev/null
}

# wf COMMAND...: how a workflow runs a command: bare, or under cordon.
wf() {
	if [ "${WF_CORDON+set}" ]; then
		"${WF_CORDON[@]}" "$@"
	else
		"$@"
	fi
}

one() {
	local name=$1 profile opts=() round
	W=$(mktemp -d -p "$HOME" "wf-$name.XXXXXX") || return
	mkdir -p "$W/ws.clean"
	if ! (cd "$W/ws.clean" && "wf_${name}_setup") > "$W/setup.log" 2>&1; then
		say "$name" setup skip "$(tail -n 1 "$W/setup.log" | tr -s ' \t' ' ' | cut -c1-120)"
		[ ! -f "$W/daemon.pid" ] || kill "$(cat "$W/daemon.pid")" 2> /dev/null
		return
	fi
	if ! run_wf "$name" bare; then
		say "$name" bare skip "fails bare: $(tail -n 1 "$W/check" "$W/stderr" 2>/dev/null | tail -n 1 | cut -c1-100)"
		return
	fi
	say "$name" bare ok
	if run_wf "$name" default; then say "$name" default ok; else say "$name" default fail; fi
	# pasted: at most twice
	for round in 1 2 3; do
		if run_wf "$name" pasted "${opts[@]}"; then
			say "$name" pasted ok "$((round - 1)) paste(s): ${opts[*]}"
			break
		fi
		[ "$round" -eq 3 ] && { say "$name" pasted fail "after 2 pastes: ${opts[*]}"; break; }
		pasted "$W/stderr" > "$W/words"
		[ -s "$W/words" ] || { say "$name" pasted fail "nothing to paste after $((round - 1)): $(grep -m1 '^cordon: denied' "$W/stderr" | cut -c1-120)"; break; }
		wide=$(too_wide "$W/words")
		[ -z "$wide" ] || { say "$name" pasted bad "suggested $wide"; break; }
		mapfile -t -O "${#opts[@]}" opts < "$W/words"
	done
	eval "profile=(\${WF_${name}_PROFILE[@]})"
	if run_wf "$name" profile "${profile[@]}"; then
		say "$name" profile ok "${profile[*]}"
	else
		say "$name" profile fail "${profile[*]}: $(grep -m1 '^cordon: denied' "$W/stderr" | cut -c1-140)"
	fi
	# learned, then the profile on a fresh workspace
	rm -f "$W/learned.json"
	run_wf "$name" learn-run learn -o "$W/learned.json" > /dev/null 2>&1
	# (learn runs the command under cordon learn: WF_CORDON with learn)
	if [ ! -s "$W/learned.json" ]; then
		say "$name" learned fail "no profile written: $(tail -n 1 "$W/stderr" | cut -c1-120)"
	elif wide=$(profile_too_wide "$W/learned.json") && [ -n "$wide" ]; then
		say "$name" learned bad "learned $wide"
	elif run_wf "$name" learned -p "$W/learned.json"; then
		say "$name" learned ok
	else
		say "$name" learned fail "$(grep -m1 '^cordon: denied' "$W/stderr" | cut -c1-140)"
	fi
	[ ! -f "$W/daemon.pid" ] || kill "$(cat "$W/daemon.pid")" 2> /dev/null
	cd "$HOME" && rm -rf "$W"
}

tc_home_setup > "$HOME/.tc-setup.log" 2>&1 || { echo "home setup failed"; tail "$HOME/.tc-setup.log"; }
for name in $WORKFLOWS; do
	[[ $name =~ $filter ]] || continue
	one "$name"
done
