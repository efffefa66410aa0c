#!/bin/sh
# deps.sh - install what the kernel matrix needs beyond the build's own
# (scripts/install-deps.sh): QEMU (large with its libraries, hence
# not in every developer's install), busybox-static, cpio, xz, zstd
# and kmod's depmod.  Idempotent: installs only what is missing.
set -eu

exec "$(dirname "$0")/../install-deps.sh" qemu-system-x86 busybox-static \
	cpio xz-utils zstd kmod curl
