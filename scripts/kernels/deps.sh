#!/bin/sh
# deps.sh - install what the kernel matrix needs beyond the build's own
# (scripts/install-deps.sh): QEMU (large with its libraries, hence
# not in every developer's install), busybox-static, cpio, xz, zstd
# and kmod's depmod.  Idempotent: installs only what is missing.
set -eu

pkgs="qemu-system-x86 busybox-static cpio xz-utils zstd kmod curl"
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
