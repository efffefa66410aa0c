# A developer's home for the toolchain suite (sourced by suite.sh): the
# toolchains installed where and how their managers install them, made
# from what this machine has (Debian's rustc and cargo, a Python built
# by pyenv that run.sh copied, Node's npm), so that the suite needs no
# download but the npm registry's.
#
#   ~/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/{bin,lib}
#       rustc, rustdoc and cargo, their run path $ORIGIN/../lib (as
#       rustup's: librustc_driver is the toolchain's own), the sysroot's
#       rustlib beside them
#   ~/.cargo/bin/{cargo,rustc,rustdoc}  rustup's proxies (scripts here)
#   ~/.cargo/env                        what a shell sources
#   ~/.pyenv/versions/V/                a Python prefix, run path
#                                       $ORIGIN/../lib; ~/.pyenv/shims
#   ~/.gitconfig                        an identity, as users have one
#   ~/.config/demo/config.toml          a tool's configuration
# PATH puts the managers' directories first, as their installers do.

TC_RUST=stable-x86_64-unknown-linux-gnu

tc_rustup() {
	local t=$HOME/.rustup/toolchains/$TC_RUST drv
	command -v rustc > /dev/null && command -v cargo > /dev/null &&
		command -v patchelf > /dev/null || return 1
	drv=$(ls /usr/lib/x86_64-linux-gnu/librustc_driver-*.so 2> /dev/null | head -n 1)
	[ -n "$drv" ] && [ -d /usr/lib/rustlib ] || return 1
	mkdir -p "$t/bin" "$t/lib" "$HOME/.cargo/bin" || return 1
	cp "$(readlink -f /usr/bin/rustc)" "$t/bin/rustc" &&
		cp "$(readlink -f /usr/bin/rustdoc)" "$t/bin/rustdoc" &&
		cp "$(readlink -f /usr/bin/cargo)" "$t/bin/cargo" &&
		cp "$drv" "$t/lib/" &&
		ln -s /usr/lib/rustlib "$t/lib/rustlib" || return 1
	patchelf --set-rpath '$ORIGIN/../lib' "$t/bin/rustc" "$t/bin/rustdoc" || return 1
	# rustfmt and cargo-fmt, where Debian's rustfmt is there
	for p in rustfmt cargo-fmt; do
		[ -x "/usr/bin/$p" ] && cp "$(readlink -f "/usr/bin/$p")" "$t/bin/$p" &&
			patchelf --set-rpath '$ORIGIN/../lib' "$t/bin/$p"
	done
	for p in cargo rustc rustdoc rustfmt cargo-fmt; do
		[ -x "$t/bin/$p" ] || continue
		printf '#!/bin/sh\n# rustup'"'"'s proxy\nexec "$HOME/.rustup/toolchains/%s/bin/%s" "$@"\n' \
			"$TC_RUST" "$p" > "$HOME/.cargo/bin/$p"
		chmod +x "$HOME/.cargo/bin/$p"
	done
	echo 'export PATH="$HOME/.cargo/bin:$PATH"' > "$HOME/.cargo/env"
}

# The Python that run.sh copied (TC_PYTHON: the prefix's template).
tc_pyenv() {
	local v
	[ -n "${TC_PYTHON:-}" ] && [ -d "$TC_PYTHON" ] || return 1
	v=$(basename "$TC_PYTHON")
	mkdir -p "$HOME/.pyenv/versions" "$HOME/.pyenv/shims" || return 1
	cp -a "$TC_PYTHON" "$HOME/.pyenv/versions/$v" || return 1
	echo "$v" > "$HOME/.pyenv/version"
	for p in python python3 pip pip3; do
		printf '#!/bin/sh\n# pyenv'"'"'s shim\nexec "$HOME/.pyenv/versions/%s/bin/%s" "$@"\n' \
			"$v" "$p" > "$HOME/.pyenv/shims/$p"
		chmod +x "$HOME/.pyenv/shims/$p"
	done
}

tc_home_setup() {
	local path=/usr/local/bin:/usr/bin:/bin
	tc_rustup && path=$HOME/.cargo/bin:$path || echo "no rustup-style toolchain"
	tc_pyenv && path=$HOME/.pyenv/shims:$path || echo "no pyenv-style Python"
	printf '[user]\n\tname = Dev\n\temail = dev@example.org\n[init]\n\tdefaultBranch = main\n' > "$HOME/.gitconfig"
	mkdir -p "$HOME/.config/demo"
	echo 'greeting = "hello from config"' > "$HOME/.config/demo/config.toml"
	echo 'token = "s3cr3t"' > "$HOME/.config/demo/credentials"
	export PATH=$path
}
