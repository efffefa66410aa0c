#!/bin/sh
# fetch.sh - bring one of Debian's own generic amd64 kernels into the
# kernel cache, unpacked, for the kernel matrix (scripts/kernels/matrix.sh).
#
#   fetch.sh KEY      prints the unpacked kernel's directory
#
# KEY is one of 5.10 (bullseye), 6.1 (bookworm), 6.12 (bookworm-backports'
# newest), 7 (sid's newest).  The kernel comes from this machine's own apt
# mirror (read from the apt configuration; $CORDON_DEBIAN_MIRROR overrides
# it), through the suite's Packages index, and its .deb is checked against
# the index's SHA256 before it is unpacked.  The generic flavour, never
# -cloud- (no 9p there).  Cache: $CORDON_KERNEL_CACHE, by default
# ~/.cache/cordon-kernels; what is there is reused.
set -eu

key=${1:?usage: fetch.sh 5.10|6.1|6.12|7}
cache=${CORDON_KERNEL_CACHE:-$HOME/.cache/cordon-kernels}

case $key in
5.10) suite=bullseye prefix=5.10. ;;
6.1) suite=bookworm prefix=6.1. ;;
6.12) suite=bookworm-backports prefix= ;;
7) suite=sid prefix= ;;
*) echo "fetch.sh: unknown kernel '$key' (5.10, 6.1, 6.12, 7)" >&2; exit 2 ;;
esac

# The first archive (not a -security one) that apt is configured with.
mirror() {
	if [ -n "${CORDON_DEBIAN_MIRROR:-}" ]; then
		echo "$CORDON_DEBIAN_MIRROR"
		return
	fi
	{
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
			awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }'
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
			2>/dev/null | awk '$1 == "deb" {
				for (i = 2; i <= NF; i++)
					if ($i !~ /^\[/ && $i !~ /\]$/) { print $i; break }
			}'
	} | grep -v -- '-security' | grep -E '^(https?|file):' | head -n1
}

uri=$(mirror)
[ -n "$uri" ] || { echo "fetch.sh: no Debian mirror in the apt configuration" >&2; exit 1; }
uri=${uri%/}
mkdir -p "$cache"

idx="$cache/Packages-$suite"
# The index is refreshed once a day at most.
if [ -z "$(find "$idx" -mtime -1 2>/dev/null)" ]; then
	curl -fsS "$uri/dists/$suite/main/binary-amd64/Packages.xz" |
		xz -d >"$idx.new"
	mv "$idx.new" "$idx"
fi

# The newest generic image of the suite (with the prefix), as "VERSION PACKAGE".
pick=$(awk -v prefix="$prefix" '
	/^Package: / { p = $2 } /^Version: / { v = $2 }
	/^$/ {
		if (p ~ /^linux-image-[0-9][^ ]*-amd64$/ && p !~ /-(cloud|rt)-amd64$/ &&
		    (prefix == "" || index(v, prefix) == 1))
			print v, p
		p = v = ""
	}' "$idx" | sort -V | tail -n1)
[ -n "$pick" ] || { echo "fetch.sh: no generic amd64 kernel in $suite" >&2; exit 1; }
set -- $pick
ver=$1 pkg=$2
dir="$cache/${pkg}_$ver"

# FIELD of package NAME version $ver in the index.
field() {
	awk -v name="$1" -v ver="$ver" -v want="$2:" '
		/^Package: / { p = $2 } /^Version: / { v = $2 }
		$1 == want { sub(/^[^ ]+ /, ""); f = $0 }
		/^$/ { if (p == name && v == ver) { print f; exit } f = "" }' "$idx"
}

# Download NAME, check it against the index, unpack it into $dir.
unpack() {
	file=$(field "$1" Filename)
	sum=$(field "$1" SHA256)
	[ -n "$file" ] && [ -n "$sum" ] ||
		{ echo "fetch.sh: $1 $ver is not in $suite's index" >&2; exit 1; }
	deb="$cache/$1_$ver.deb"
	echo "fetching $1 $ver ($suite)" >&2
	curl -fsS -o "$deb.part" "$uri/$file"
	got=$(sha256sum "$deb.part" | cut -d' ' -f1)
	if [ "$got" != "$sum" ]; then
		rm -f "$deb.part"
		echo "fetch.sh: $1: SHA256 $got, the index says $sum" >&2
		exit 1
	fi
	dpkg-deb -x "$deb.part" "$dir"
	rm -f "$deb.part"
}

if [ ! -f "$dir/.ok" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	unpack "$pkg"
	# Newer suites split the image: the kernel and its modules are the
	# image's own dependencies, linux-binary-* and linux-modules-*.
	for dep in $(field "$pkg" Depends | tr ',|' '\n\n' | awk '{ print $1 }' |
		grep -E '^linux-(binary|modules)-'); do
		unpack "$dep"
	done
	# Newer ones put all under /usr/lib/modules/VERSION (the kernel too):
	# $dir/lib/modules and $dir/vmlinuz are where the others look.
	[ -d "$dir/lib" ] || ln -s usr/lib "$dir/lib"
	kver=$(ls "$dir/lib/modules" 2>/dev/null | head -n1)
	for k in "$dir"/boot/vmlinuz-* "$dir/lib/modules/$kver/vmlinuz"; do
		[ -f "$k" ] && ln -sf "${k#"$dir"/}" "$dir/vmlinuz"
	done
	[ -n "$kver" ] && [ -f "$dir/vmlinuz" ] ||
		{ echo "fetch.sh: $pkg: no kernel or no modules in the package" >&2; exit 1; }
	# Debian's packages carry no modules.dep: depmod writes it.
	depmod -b "$dir" "$kver"
	touch "$dir/.ok"
fi
echo "$dir"
