#!/bin/sh
# Install what cordon's build and tests need on Debian 12 (run as root,
# or with sudo available).  Idempotent: installs only what is missing.
set -eu

# nftables: transparent capture of --allow-host (nft, run in the
# namespace); openssh: the capture tests' sshd and ssh (git over ssh).
# The last line is the kernel matrix's (make kernels, run by CI): QEMU,
# busybox-static for its initramfs, and what unpacks Debian's kernels.
pkgs="build-essential pkg-config clang libseccomp-dev libjansson-dev \
libffi-dev uthash-dev libcriterion-dev python3 util-linux passwd \
clang-format strace libjemalloc2 dpkg-dev gcc-multilib \
libcap-ng-dev liburing-dev libevent-dev tmux git python3-jsonschema groff-base \
curl hostname nftables openssh-server openssh-client \
qemu-system-x86 busybox-static cpio xz-utils zstd kmod"

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

as_root=""
[ "$(id -u)" -eq 0 ] || as_root=sudo
echo "installing:$missing"
$as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq \
	--no-install-recommends $missing
