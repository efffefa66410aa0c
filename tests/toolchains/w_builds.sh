# The workflows (sourced by suite.sh).  Each NAME has:
#   wf_NAME_setup   makes the workspace (the working directory), bare
#   wf_NAME_run     the workflow: one command under `wf` (bare, or under
#                   cordon with the configuration's options), printing
#                   "WF_VERSION ..." for what must be the same as bare
#   wf_NAME_check   from outside, after the run: did it work?
#   WF_NAME_PROFILE the obvious built-in profile or mode
# A setup that cannot be made here (the tool is missing) fails, and the
# workflow is SKIP with its last line.

WORKFLOWS="cargo_build cargo_fmt pyenv_venv pytest npm_install npx_run
node_file_dep cmake_ninja make_check git_hooks git_daemon java_jar bash_pty
config_reader ccache_build perl_makemaker pkgconfig_env"

need() { command -v "$1" > /dev/null || { echo "no $1 here"; return 1; }; }

# ---- rustup's cargo: a build script, a doctest ----------------------
wf_cargo_build_setup() {
	[ -x "$HOME/.cargo/bin/cargo" ] || { echo "no rustup-style toolchain"; return 1; }
	mkdir -p src
	printf '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2018"\n' > Cargo.toml
	printf 'fn main() {\n    let out = std::env::var("OUT_DIR").unwrap();\n    std::fs::write(format!("{}/msg.txt", out), "built by build.rs").unwrap();\n}\n' > build.rs
	printf '/// ```\n/// assert_eq!(demo::two(), 2);\n/// ```\npub fn two() -> i32 { 2 }\npub const MSG: &str = include_str!(concat!(env!("OUT_DIR"), "/msg.txt"));\n' > src/lib.rs
	printf 'fn main() { println!("{} {}", demo::MSG, demo::two()); }\n' > src/main.rs
}
wf_cargo_build_run() {
	wf bash -c 'echo "WF_VERSION cargo $(command -v cargo)"; rustc --print sysroot | sed "s/^/WF_VERSION sysroot /"; cargo --version | sed "s/^/WF_VERSION /"; cargo build --offline && cargo test --offline 2>&1 | tee test.log'
}
wf_cargo_build_check() {
	[ "$(./target/debug/demo)" = "built by build.rs 2" ] && grep -q "test result: ok" test.log &&
		grep -q "Doc-tests demo" test.log
}
WF_cargo_build_PROFILE="-p cargo"

# cargo fmt, through rustup's proxy (Debian's rustfmt in the toolchain)
wf_cargo_fmt_setup() {
	[ -x "$HOME/.cargo/bin/cargo-fmt" ] || { echo "no rustfmt in the toolchain"; return 1; }
	mkdir -p src
	printf '[package]\nname = "fmtdemo"\nversion = "0.1.0"\nedition = "2018"\n' > Cargo.toml
	printf 'fn main() {\n    println!("formatted");\n}\n' > src/main.rs
}
wf_cargo_fmt_run() {
	wf bash -c 'echo "WF_VERSION rustfmt $(command -v rustfmt)"; cargo fmt -- --check && echo fmt-ok'
}
wf_cargo_fmt_check() { grep -q '^fmt-ok$' "$W/stdout"; }
WF_cargo_fmt_PROFILE="-p cargo"

# ---- pyenv's Python: a venv, a local wheel --------------------------
wf_pyenv_venv_setup() {
	[ -x "$HOME/.pyenv/shims/python3" ] || { echo "no pyenv-style Python"; return 1; }
	mkdir -p dist
	"$HOME/.pyenv/shims/python3" - << 'PY'
import zipfile
with zipfile.ZipFile("dist/demo-0.1-py3-none-any.whl", "w") as z:
    z.writestr("demo/__init__.py", "X = 'wheel ok'\n")
    z.writestr("demo-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 0.1\n")
    z.writestr("demo-0.1.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("demo-0.1.dist-info/RECORD", "")
PY
}
wf_pyenv_venv_run() {
	wf bash -c 'echo "WF_VERSION python3 $(command -v python3)"; python3 --version | sed "s/^/WF_VERSION /"; python3 -m venv .venv && .venv/bin/pip install --no-index --no-cache-dir dist/demo-0.1-py3-none-any.whl > pip.log 2>&1 && .venv/bin/python -c "import demo, sys; print(demo.X); print(\"WF_VERSION base\", sys.base_prefix)"'
}
wf_pyenv_venv_check() {
	grep -q '^wheel ok$' "$W/stdout" && grep -q "^home = $HOME/.pyenv/versions/" .venv/pyvenv.cfg
}
WF_pyenv_venv_PROFILE="-p pyenv"

# ---- pytest (Debian's) ----------------------------------------------
wf_pytest_setup() {
	/usr/bin/python3 -c 'import pytest' || { echo "no pytest"; return 1; }
	printf 'def test_one():\n    assert 1 + 1 == 2\n\ndef test_tmp(tmp_path):\n    (tmp_path / "x").write_text("y")\n' > test_demo.py
}
wf_pytest_run() {
	wf bash -c '/usr/bin/python3 -m pytest -q -p no:cacheprovider > pytest.log 2>&1; r=$?; cat pytest.log; exit $r'
}
wf_pytest_check() { grep -q '2 passed' pytest.log; }
WF_pytest_PROFILE="-m workspace-write"

# ---- npm: the registry, npx, a file: dependency --------------------
# The registry npm is set to use, by name (no host is written here).
npm_host() { npm config get registry 2> /dev/null | sed -E 's#^[a-z]+://([^/:]+).*#\1#'; }

wf_npm_install_setup() {
	need npm || return 1
	printf '{"name": "app", "version": "1.0.0", "private": true}\n' > package.json
}
wf_npm_install_run() {
	wf bash -c 'node --version | sed "s/^/WF_VERSION /"; npm install --no-audit --no-fund is-number@7.0.0 > npm.log 2>&1; r=$?; cat npm.log; exit $r'
}
wf_npm_install_check() { node -e 'if (!require("./node_modules/is-number")(5)) process.exit(1)'; }
WF_npm_install_PROFILE="-p npm"

wf_npx_run_setup() { need npx; }
wf_npx_run_run() { wf npx --yes cowsay@1.5.0 moo; }
wf_npx_run_check() { grep -q '< moo >' "$W/stdout"; }
WF_npx_run_PROFILE="-p npm"

wf_node_file_dep_setup() {
	need npm || return 1
	mkdir -p lib app
	printf '{"name": "lib", "version": "1.0.0", "main": "index.js"}\n' > lib/package.json
	echo 'module.exports = () => "from lib";' > lib/index.js
	printf '{"name": "app", "version": "1.0.0", "private": true, "dependencies": {"lib": "file:../lib"}}\n' > app/package.json
}
wf_node_file_dep_run() { wf bash -c 'cd app && npm install --offline --no-audit --no-fund && node -e "console.log(require(\"lib\")())"'; }
wf_node_file_dep_check() { grep -q '^from lib$' "$W/stdout"; }
WF_node_file_dep_PROFILE="-p npm"

# ---- cmake, ninja, ctest ---------------------------------------------
wf_cmake_ninja_setup() {
	need cmake && need ninja || return 1
	printf 'cmake_minimum_required(VERSION 3.13)\nproject(demo C)\nenable_testing()\nadd_executable(demo main.c)\nadd_test(NAME runs COMMAND demo)\n' > CMakeLists.txt
	printf 'int main(void) { return 0; }\n' > main.c
}
wf_cmake_ninja_run() { wf bash -c 'cmake -G Ninja -B build . && ninja -C build && ctest --test-dir build'; }
wf_cmake_ninja_check() { [ -x build/demo ] && grep -q '100% tests passed' "$W/stdout"; }
WF_cmake_ninja_PROFILE="-m workspace-write"

# ---- make check --------------------------------------------------------
wf_make_check_setup() {
	need make && need cc || return 1
	printf 'all: demo\ndemo: demo.c\n\t$(CC) -o $@ $<\ncheck: demo\n\t./demo > out.txt && grep -q ok out.txt\n' > Makefile
	printf '#include <stdio.h>\nint main(void) { puts("ok"); return 0; }\n' > demo.c
}
wf_make_check_run() { wf make check; }
wf_make_check_check() { grep -q '^ok$' out.txt; }
WF_make_check_PROFILE="-m workspace-write"

# ---- git: a hook, a file:// clone --------------------------------------
wf_git_hooks_setup() {
	need git || return 1
	git init -q repo && echo one > repo/f &&
		printf '#!/bin/sh\necho hook ran > "$(git rev-parse --show-toplevel)/../hook.txt"\n' > repo/.git/hooks/pre-commit &&
		chmod +x repo/.git/hooks/pre-commit
}
wf_git_hooks_run() {
	wf bash -c 'git --version | sed "s/^/WF_VERSION /"; cd repo && git add f && git commit -q -m one && cd .. && git clone -q "file://$PWD/repo" clone'
}
wf_git_hooks_check() {
	[ -f hook.txt ] && [ "$(cat clone/f)" = one ] &&
		[ "$(git -C repo log -1 --format=%an)" = Dev ]
}
WF_git_hooks_PROFILE="-m full-dev"

# ---- git daemon: a clone over git://, the daemon outside -------------
wf_git_daemon_setup() {
	need git || return 1
	local port
	[ -x /usr/lib/git-core/git-daemon ] || { echo "no git-daemon"; return 1; }
	git init -q --bare "$W/served.git" && git -C "$W/served.git" config daemon.uploadpack true &&
		git clone -q "$W/served.git" "$W/seed" 2> /dev/null; echo data > "$W/seed/f" &&
		git -C "$W/seed" add f && git -C "$W/seed" commit -qm one && git -C "$W/seed" push -q origin HEAD 2> /dev/null || return 1
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	git daemon --reuseaddr --export-all --listen=127.0.0.1 --port="$port" --base-path="$W" "$W" > /dev/null 2>&1 &
	echo "$!" > "$W/daemon.pid"
	echo "$port" > "$W/daemon.port"
	for _ in $(seq 50); do
		git ls-remote "git://127.0.0.1:$port/served.git" > /dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "git daemon did not start"
	return 1
}
wf_git_daemon_run() { wf git clone -q "git://127.0.0.1:$(cat "$W/daemon.port")/served.git" cloned; }
wf_git_daemon_check() { [ "$(cat cloned/f 2> /dev/null)" = data ]; }
WF_git_daemon_PROFILE="-m full-dev"

# ---- java ------------------------------------------------------------
wf_java_jar_setup() {
	need javac && need jar && need java || return 1
	printf 'public class Hello { public static void main(String[] a) { System.out.println("hello java"); } }\n' > Hello.java
}
wf_java_jar_run() { wf bash -c 'javac Hello.java && jar cf hello.jar Hello.class && java -cp hello.jar Hello'; }
wf_java_jar_check() { grep -q '^hello java$' "$W/stdout"; }
WF_java_jar_PROFILE="-m workspace-write"

# ---- an interactive bash in a pty --------------------------------------
wf_bash_pty_setup() { need script; }
wf_bash_pty_run() { wf script -qec "bash -i -c 'echo interactive \$-; exit 0'" /dev/null; }
wf_bash_pty_check() { grep -q 'interactive .*i' "$W/stdout"; }
WF_bash_pty_PROFILE="-m workspace-write"

# ---- a tool reading ~/.config ------------------------------------------
wf_config_reader_setup() { [ -f "$HOME/.config/demo/config.toml" ]; }
wf_config_reader_run() { wf bash -c 'cat "$HOME/.config/demo/config.toml" > got.txt'; }
wf_config_reader_check() { grep -q 'hello from config' got.txt; }
WF_config_reader_PROFILE="--read $HOME/.config/demo/config.toml"

# ---- ccache, first use: its cache not there yet -------------------------
wf_ccache_build_setup() {
	need ccache && need gcc || return 1
	rm -rf "$HOME/.cache/ccache" "$HOME/.ccache"
	printf 'int f(void) { return 1; }\n' > f.c
}
wf_ccache_build_run() { wf bash -c 'ccache gcc -c f.c -o f.o && ccache -s > stats.txt'; }
wf_ccache_build_check() { [ -f f.o ] && [ -d "$HOME/.cache/ccache" ] || [ -d "$HOME/.ccache" ]; }
WF_ccache_build_PROFILE="-p ccache"

# ---- perl's MakeMaker ------------------------------------------------
wf_perl_makemaker_setup() {
	need perl && perl -MExtUtils::MakeMaker -e 1 || return 1
	mkdir -p lib/Demo t
	printf 'use ExtUtils::MakeMaker;\nWriteMakefile(NAME => "Demo", VERSION => "0.1");\n' > Makefile.PL
	printf 'package Demo;\nsub two { 2 }\n1;\n' > lib/Demo.pm
	printf 'use Test::More tests => 1;\nuse Demo;\nis(Demo::two(), 2);\n' > t/basic.t
}
wf_perl_makemaker_run() { wf bash -c 'perl Makefile.PL && make && make test'; }
wf_perl_makemaker_check() { grep -q 'Result: PASS' "$W/stdout"; }
WF_perl_makemaker_PROFILE="-m workspace-write"

# ---- a Makefile that uses an exported PKG_CONFIG_PATH -----------------
# (a library the user installed under ~/.local, as `make install
# PREFIX=~/.local` puts it)
wf_pkgconfig_env_setup() {
	need pkg-config && need make || return 1
	mkdir -p "$HOME/.local/lib/pkgconfig"
	printf 'Name: tcdemo\nDescription: demo\nVersion: 1.0\nCflags: -DTCDEMO=1\n' > "$HOME/.local/lib/pkgconfig/tcdemo.pc"
	printf 'all:\n\tpkg-config --cflags tcdemo > flags.txt\n' > Makefile
}
wf_pkgconfig_env_run() { PKG_CONFIG_PATH=$HOME/.local/lib/pkgconfig wf make; }
wf_pkgconfig_env_check() { grep -q -- '-DTCDEMO=1' flags.txt; }
WF_pkgconfig_env_PROFILE="-m full-dev"
