#!/usr/bin/env bash
# make toolchains: real developer workflows, each run bare and under
# cordon four ways, compared.
#
#   tests/toolchains/run.sh BUILD_DIR [OUT.md] [FILTER]
#
# Each workflow (tests/toolchains/w_*.sh: wf_NAME_setup, wf_NAME_run,
# wf_NAME_check, and WF_NAME_PROFILE, the obvious profile or mode) runs
# in a fresh copy of its workspace, in a home of the suite's own with the
# toolchains installed the way their managers install them (home.sh: a
# rustup-style toolchain made from Debian's rustc and cargo, a
# pyenv-style interpreter copied from this machine's Python, ...), as
# root and as the unprivileged user cordon-test:
#
#   bare     the workflow without cordon: the reference (a workflow
#            that fails bare is SKIP, with its output)
#   default  cordon -- ...
#   pasted   cordon -- ..., then the summary's last line ("allow all of
#            it with: ...") pasted, round after round, at most twice
#   profile  cordon WF_NAME_PROFILE -- ...
#   learned  cordon learn -o P -- ..., the workspace made fresh, then
#            cordon -p P -- ...
#
# The check of each run is made from outside (the built program runs,
# the test log says so, the file is there), and the versions the
# workflow prints (WF_VERSION lines) must be the ones bare printed.
# The assertions (the issue's "done when"): every workflow that works
# bare works with its profile, or with the summary pasted at most twice;
# learned then -p works for every one; no pasted line and no learned
# profile grants /, $HOME, /proc, --net or a protected path
# (~/.cargo/env, ~/.cargo/bin, ~/.local/bin, a shell's startup files).
# The table of the last run goes to OUT.md (doc/toolchains.md).
set -u

build=${1:?usage: run.sh BUILD_DIR [OUT.md] [FILTER]}
out=${2:-}
filter=${3:-}
src=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$build" && pwd)
user=cordon-test

stage=$(mktemp -d /tmp/cordon-tc.XXXXXX) || exit 1
chmod 755 "$stage"
trap 'rm -rf "$stage"' EXIT
cp "$build/cordon" "$build/libcordon.so" "$stage/" || exit 1
cp "$src"/*.sh "$src"/*.py "$stage/" 2> /dev/null
chmod -R a+rX "$stage"

# What the workflows need from Debian (root: installed when missing).
if [ "$(id -u)" -eq 0 ]; then
	missing=
	for pkg in rustc cargo rustfmt patchelf ccache python3-pytest \
		ninja-build cmake pkg-config git; do
		dpkg -s "$pkg" > /dev/null 2>&1 || missing="$missing $pkg"
	done
	[ -z "$missing" ] ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $missing > "$stage/apt.log" 2>&1 ||
		echo "toolchains: could not install$missing (the workflows that need them SKIP)"
fi

# A Python built by pyenv (this machine's), copied as a template the
# homes copy again: its prefix without site-packages, tests and caches,
# its run path made $ORIGIN-relative as a relocated build's.
pyroot=${PYENV_ROOT:-/root/.pyenv}
py=$pyroot/versions/$(head -n 1 "$pyroot/version" 2> /dev/null)
[ -x "$py/bin/python3" ] ||
	py=$(ls -d "$pyroot"/versions/3.1[0-9].* 2> /dev/null | sort -V | tail -n 1)
if [ -n "$py" ] && command -v patchelf > /dev/null; then
	mkdir -p "$stage/python" &&
		tar -C "$(dirname "$py")" --exclude='*/site-packages/*' \
			--exclude='*/python3.*/test/*' --exclude='__pycache__' \
			-cf - "$(basename "$py")" | tar -C "$stage/python" -xf - &&
		for b in "$stage/python/$(basename "$py")"/bin/python3.*; do
			[ -L "$b" ] || patchelf --set-rpath '$ORIGIN/../lib' "$b" 2> /dev/null || :
		done &&
		export TC_PYTHON=$stage/python/$(basename "$py")
fi

results=$stage/results
: > "$results"
chmod a+w "$results"

# One pass as a user: HOME of the suite's own, made by home.sh.
run_as() { # run_as LABEL HOME USER [runuser -u USER --]
	local label=$1 home=$2 name=$3
	shift 3
	"$@" env -i PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TERM=dumb \
		HOME="$home" USER="$name" LOGNAME="$name" \
		TC_PYTHON="${TC_PYTHON:-}" \
		bash "$stage/suite.sh" "$stage" "$label" "$results" "$filter"
}

# The homes lie outside every default root (not under /tmp), as a
# user's does; made fresh each run.
homes=${CORDON_TC_HOMES:-/var/lib/cordon-tc}
if [ "$(id -u)" -eq 0 ]; then
	id "$user" > /dev/null 2>&1 || useradd -m -s /bin/bash "$user" || exit 1
	rm -rf "$homes" && mkdir -p "$homes/root" "$homes/user" || exit 1
	chmod 755 "$homes"
	chown "$user:" "$homes/user"
	trap 'rm -rf "$stage" "$homes"' EXIT
	run_as root "$homes/root" root
	run_as user "$homes/user" "$user" runuser -u "$user" --
else
	homes=${CORDON_TC_HOMES:-$HOME/.cache/cordon-tc}
	rm -rf "$homes" && mkdir -p "$homes/$(id -un)" || exit 1
	trap 'rm -rf "$stage" "$homes"' EXIT
	run_as user "$homes/$(id -un)" "$(id -un)"
fi

python3 "$src/table.py" "$results" "${out:-/dev/null}"
