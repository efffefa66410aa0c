#!/bin/sh
# initramfs.sh - the kernel matrix's initramfs for one unpacked kernel:
# busybox-static, the modules that mount the host's root (virtio, 9p,
# overlay) from that kernel's own tree in dependency order, and init;
# and unix_diag, which the broker asks, and nf_tables' NAT, which capture
# needs (the guest cannot load a module later: its root is the host's,
# without the guest kernel's modules).
#
#   initramfs.sh KERNEL_DIR OUT.cpio.gz
#
# The order comes from modules.dep (depmod's, see fetch.sh): each module
# after all it depends on.  A module modules.dep does not list is built
# in (modules.builtin, where the package has it, says so; if it is
# absent, the guest's mount fails and says so).  Compressed modules
# (.ko.xz, .ko.zst) are decompressed here: busybox's insmod reads plain ones.
set -eu

kdir=${1:?usage: initramfs.sh KERNEL_DIR OUT}
out=${2:?usage: initramfs.sh KERNEL_DIR OUT}
here=$(cd "$(dirname "$0")" && pwd)
kver=$(ls "$kdir/lib/modules" | head -n1)
mdir="$kdir/lib/modules/$kver"
# busybox-static's (make deps installs it; it replaces the dynamic one).
bb=$(command -v busybox) || { echo "initramfs.sh: no busybox (make deps)" >&2; exit 1; }

# beside the kernel, not in the shared /tmp (make compat counts its entries)
tmp=$(mktemp -d "$kdir/.initramfs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/lib/modules" "$tmp/proc" "$tmp/sys" "$tmp/dev" \
	"$tmp/lower" "$tmp/rw" "$tmp/newroot"
cp "$bb" "$tmp/bin/busybox"
cp "$here/init" "$tmp/init"
chmod 755 "$tmp/init"

# The path in modules.dep of module NAME (- and _ are the same).
path_of() {
	n=$(echo "$1" | tr - _)
	awk -F: -v n="$n" '{
		b = $1; sub(/.*\//, "", b); sub(/\.ko(\.[a-z]+)?$/, "", b)
		gsub(/-/, "_", b)
		if (b == n) { print $1; exit }
	}' "$mdir/modules.dep"
}

# The module an alias NAME (a softdep's) names: the generic one where
# there are several (crc32c's: crc32c_intel needs SSE4.2, which TCG's
# CPU lacks).
alias_of() {
	[ -f "$mdir/modules.alias" ] || return 0
	awk -v n="$1" '$1 == "alias" && $2 == n { m[++k] = $3 }
		END { for (i = 1; i <= k; i++) if (m[i] ~ /generic/) { print m[i]; exit }
		      if (k) print m[1] }' "$mdir/modules.alias"
}

seen=" "
order=""
# Add module PATH after what it depends on, and after the modules its
# softdep "pre:" names (libcrc32c's crc32c: without it libcrc32c, and
# with it nf_tables and NAT, fail to load, and capture with them).
add() {
	case $seen in *" $1 "*) return ;; esac
	seen="$seen$1 "
	for d in $(awk -F: -v p="$1" '$1 == p { print $2; exit }' "$mdir/modules.dep"); do
		add "$d"
	done
	b=${1##*/}
	b=${b%%.ko*}
	for s in $(awk -v m="$b" '$1 == "softdep" && $2 == m {
		for (i = 3; i <= NF; i++) { if ($i == "post:") break; if ($i != "pre:") print $i } }' \
		"$mdir/modules.softdep" 2>/dev/null); do
		sp=$(path_of "$s")
		[ -n "$sp" ] || sp=$(path_of "$(alias_of "$s")")
		[ -z "$sp" ] || add "$sp"
	done
	order="$order $1"
}

# nf_tables with NAT and reject: --allow-host's transparent capture
# (enforce/linux/netcap.c), which a Debian system loads on first use
for m in virtio_pci 9pnet_virtio 9p overlay unix_diag \
	nf_tables nft_chain_nat nft_redir nft_reject_inet; do
	p=$(path_of "$m")
	if [ -n "$p" ]; then
		add "$p"
	elif [ -f "$mdir/modules.builtin" ] &&
		! tr - _ <"$mdir/modules.builtin" | grep -q "/$m\.ko"; then
		echo "initramfs.sh: $kver has no $m, as a module or built in" >&2
	fi
done

: >"$tmp/modules"
for p in $order; do
	b=${p##*/}
	b=${b%.xz}
	b=${b%.zst}
	b=${b%.gz}
	case $p in
	*.xz) xz -dc "$mdir/$p" >"$tmp/lib/modules/$b" ;;
	*.zst) zstd -qdc "$mdir/$p" >"$tmp/lib/modules/$b" ;;
	*.gz) gzip -dc "$mdir/$p" >"$tmp/lib/modules/$b" ;;
	*) cp "$mdir/$p" "$tmp/lib/modules/$b" ;;
	esac
	echo "$b" >>"$tmp/modules"
done

(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
