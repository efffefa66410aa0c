#!/bin/sh
# boot.sh - boot one of Debian's kernels under QEMU (TCG, no KVM) with
# this machine's root shared read-only, run guest.sh in it, and keep its
# console.
#
#   boot.sh KEY BUILD LOG      KEY as fetch.sh takes it, or KEY-nolandlock
#                              (that kernel with Landlock left out of
#                              lsm=); BUILD the build directory whose
#                              cordon the guest runs
#
# Exit 0 when the guest booted and said @@DONE, 1 otherwise; the console
# is in LOG either way.  $CORDON_KERNEL_TIMEOUT (seconds, default 900)
# bounds the whole boot; $CORDON_KERNEL_APPEND adds to the command line.
set -eu

key=${1:?usage: boot.sh KEY BUILD LOG}
build=$(cd "${2:?usage: boot.sh KEY BUILD LOG}" && pwd)
log=${3:?usage: boot.sh KEY BUILD LOG}
here=$(cd "$(dirname "$0")" && pwd)

# Landlock is not in Debian's default list of LSMs on every kernel;
# capability is always there.
lsm=landlock,lockdown,capability,yama,apparmor
case $key in
*-nolandlock) key=${key%-nolandlock} lsm=lockdown,capability,yama,apparmor ;;
esac
kdir=$("$here/fetch.sh" "$key")
initrd="$kdir/kmatrix-initramfs.cpio.gz"
if [ ! -f "$initrd" ] || [ "$here/init" -nt "$initrd" ] ||
	[ "$here/initramfs.sh" -nt "$initrd" ]; then
	"$here/initramfs.sh" "$kdir" "$initrd.new"
	mv "$initrd.new" "$initrd"
fi

# audit=1: the kernel's audit on, without auditd (its records in the
# kernel's log: t_kaudit.sh reads them)
append="console=ttyS0 panic=-1 loglevel=4 lsm=$lsm audit=1"
append="$append cordon.run=$here/guest.sh cordon.build=$build"
append="$append ${CORDON_KERNEL_APPEND:-}"

set +e
timeout "${CORDON_KERNEL_TIMEOUT:-900}" qemu-system-x86_64 -accel tcg \
	-m 1G -smp 2 -nographic -no-reboot -nic none \
	-kernel "$kdir/vmlinuz" -initrd "$initrd" -append "$append" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	</dev/null >"$log" 2>&1
set -e
grep -q '^@@DONE' "$log" 2>/dev/null || tr -d '\r' <"$log" | grep -q '^@@DONE'
