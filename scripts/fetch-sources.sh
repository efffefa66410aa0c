#!/bin/sh
# Fetch and unpack the Debian source packages of GNU hello and zlib, the
# real builds that tests/integration/t_realbuild.sh runs under cordon.
#
#   scripts/fetch-sources.sh [DEST [APT_DIR]]
#
# DEST (default build/sources) receives one unpacked tree per package,
# named as dpkg-source names it: hello-2.10, zlib-1.2.13.dfsg.  A tree
# already there is kept: the script is idempotent, and a tree appears
# only once complete (unpacked aside, then renamed).
#
# It never changes the machine's apt: apt runs on a private state in
# APT_DIR (default $XDG_CACHE_HOME/cordon/apt, else ~/.cache/cordon/apt):
# its own sources.list, holding deb-src lines derived from the machine's
# Debian entries (same URIs, suites, components and keys), its own lists
# and caches, no lock on the system's.  The machine's apt.conf.d still
# applies (proxies, validity checks), without its update hooks.
# Unpacking needs dpkg-source: as root the script installs dpkg-dev with
# the machine's apt when it is missing; without root it must be there.
# On failure: one line "fetch-sources: ..." on stderr, exit 1.
set -u

PACKAGES="hello zlib"

die() {
	echo "fetch-sources: $*" >&2
	exit 1
}

case ${1:-} in
-h | --help)
	sed -n '2,20s/^# \{0,1\}//p' "$0"
	exit 0
	;;
esac
dest=${1:-build/sources}
apt_dir=${2:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/cordon/apt}
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
codename=${codename:-bookworm}

# Which packages still lack a tree in $dest.
missing() {
	for p in $PACKAGES; do
		set -- "$dest/$p"-[0-9]*/
		[ -d "$1" ] || printf '%s ' "$p"
	done
}

# The machine's Debian entries as deb-src lines, one-line format, from
# sources.list and sources.list.d (*.list and deb822 *.sources).  Kept:
# suites of this release (bookworm, bookworm-updates, ...) whose key, if
# named, is Debian's archive key; third-party repositories have no
# deb-src and would fail the update.
derive_sources() {
	list='' parts=''
	eval "$(apt-config shell list Dir::Etc::sourcelist/f \
		parts Dir::Etc::sourceparts/d)"
	for f in "$list" "$parts"*.list "$parts"*.sources; do
		[ -f "$f" ] || continue
		case $f in
		*.sources) deb822 "$f" ;;
		*) oneline "$f" ;;
		esac
	done | awk -v c="$codename" '
		NF < 5 { next }
		$4 != c && index($4, c "-") != 1 && index($4, c "/") != 1 { next }
		$2 != "-" && $2 !~ /debian-archive/ { next }
		{
			o = $2 == "-" ? "" : "[signed-by=" $2 "] "
			$1 = $2 = ""; sub(/^ +/, "")
			print "deb-src " o $0
		}' | sort -u
}

# Both parsers print: TYPE KEY URI SUITE COMPONENT..., with KEY "-"
# when the entry names none.
oneline() {
	sed 's/#.*//' "$1" | awk '
		$1 != "deb" && $1 != "deb-src" { next }
		{
			key = "-"; i = 2
			if ($2 ~ /^\[/) {
				for (; i <= NF; i++) {
					o = $i; gsub(/[][]/, "", o)
					if (o ~ /^signed-by=/) key = substr(o, 11)
					if ($i ~ /\]$/) { i++; break }
				}
			}
			line = "deb " key
			for (; i <= NF; i++) line = line " " $i
			print line
		}'
}

deb822() {
	awk '
		function flush(   u, s, nu, ns, U, S, c) {
			if (types ~ /(^| )deb( |$)/ && enabled !~ /^no$/) {
				nu = split(uris, U, " "); ns = split(suites, S, " ")
				c = comps; gsub(/ +/, " ", c); sub(/^ /, "", c)
				for (u = 1; u <= nu; u++)
					for (s = 1; s <= ns; s++)
						print "deb", (key == "" ? "-" : key),
							U[u], S[s], c
			}
			types = uris = suites = comps = key = enabled = ""
		}
		/^#/ { next }
		/^[ \t]*$/ { flush(); next }
		/^[ \t]/ { next }	# continuation: an inline key block
		{
			f = tolower($1); v = $0; sub(/^[^:]*:[ \t]*/, "", v)
			if (f == "types:") types = v
			else if (f == "uris:") uris = v
			else if (f == "suites:") suites = v
			else if (f == "components:") comps = v
			else if (f == "signed-by:") key = v
			else if (f == "enabled:") enabled = tolower(v)
		}
		END { flush() }' "$1"
}

# dpkg-source unpacks and patches; as root, install it when missing.
need_dpkg_source() {
	command -v dpkg-source >/dev/null 2>&1 && return 0
	[ "$(id -u)" -eq 0 ] ||
		die "dpkg-source not found: install dpkg-dev (as root: apt-get install dpkg-dev)"
	echo "fetch-sources: installing dpkg-dev"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends dpkg-dev >"$log" 2>&1 ||
		{ apt-get update -qq >>"$log" 2>&1 &&
		  apt-get install -y -qq --no-install-recommends dpkg-dev \
			>>"$log" 2>&1; } ||
		die "cannot install dpkg-dev: $(last_error) (log: $log)"
}

last_error() {
	grep -E '^(E|Err|W: Failed)' "$log" | tail -n 1 | cut -c1-300 || true
}

# The private configuration: the machine's apt.conf.d and apt.conf, then
# the update hooks cleared (they refresh the machine's own caches).
write_config() {
	confparts='' confmain=''
	eval "$(apt-config shell confparts Dir::Etc::parts/d \
		confmain Dir::Etc::main/f)"
	{
		[ -d "$confparts" ] && echo "#include \"$confparts\";"
		[ -f "$confmain" ] && echo "#include \"$confmain\";"
		echo 'Dir::Etc::parts "/dev/null";'
		echo 'Dir::Etc::main "/dev/null";'
		echo '#clear APT::Update::Pre-Invoke;'
		echo '#clear APT::Update::Post-Invoke;'
		echo '#clear APT::Update::Post-Invoke-Success;'
	} >"$apt_dir/apt.conf"
}

apt_private() {
	apt_with apt-get -q "$@"
}

# apt-get or apt-cache on the private state.
apt_with() {
	tool=$1
	shift
	APT_CONFIG="$apt_dir/apt.conf" "$tool" \
		-o Dir::Etc::sourcelist="$apt_dir/sources.list" \
		-o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$apt_dir/lists" \
		-o Dir::Cache="$apt_dir/cache" \
		-o Debug::NoLocking=1 "$@"
}

# apt-get source NAME of an older version, the newest first: a mirror
# may lack the newest one's files (a security suite's, seen here: 404).
older_source() {
	for v in $(apt_with apt-cache showsrc "$1" 2>>"$log" |
		awk '/^Version:/ { print $2 }' | sort -uVr | tail -n +2); do
		rm -rf "${work:?}"/* 2>/dev/null
		(cd "$work" && apt_private source "$1=$v") >>"$log" 2>&1 &&
			return 0
	done
	return 1
}

# Download and unpack one package aside, then rename it into place.
fetch_one() {
	work=$(mktemp -d "$dest/.fetch-$1.XXXXXX" 2>/dev/null) ||
		die "cannot create a directory in '$dest'"
	# As root apt downloads as _apt: let it write here.
	[ "$(id -u)" -eq 0 ] && chown _apt "$work" 2>/dev/null
	(cd "$work" && apt_private source "$1") >>"$log" 2>&1 ||
		older_source "$1" || {
		rm -rf "$work"
		die "apt-get source $1 failed: $(last_error) (log: $log)"
	}
	set -- "$1" "$work/$1"-[0-9]*/
	[ -d "$2" ] || {
		rm -rf "$work"
		die "apt-get source $1 left no source tree (log: $log)"
	}
	tree=$(basename "$2")
	chmod -R a+rX "$2"
	mv "$2" "$dest/$tree" 2>/dev/null || die "cannot move $tree into '$dest'"
	rm -rf "$work"
	echo "fetch-sources: $dest/$tree"
}

main() {
	for d in "$dest" "$apt_dir/lists/partial" \
		"$apt_dir/cache/archives/partial"; do
		err=$(mkdir -p "$d" 2>&1) || die "cannot create '$d': ${err##*: }"
	done
	[ -z "$(missing)" ] && exit 0
	log="$apt_dir/log"
	# One fetch at a time per destination (flock is util-linux); the
	# shell dies on a failed exec redirection, hence the test first.
	lock="$dest/.fetch.lock"
	: 2>/dev/null >>"$lock" || die "cannot write '$lock'"
	if command -v flock >/dev/null 2>&1; then
		exec 9>>"$lock" && flock 9 || die "cannot lock '$lock'"
	fi
	todo=$(missing)
	[ -z "$todo" ] && exit 0
	: >"$log" || die "cannot write '$log'"
	need_dpkg_source
	derive_sources >"$apt_dir/sources.list"
	[ -s "$apt_dir/sources.list" ] ||
		die "no Debian $codename entry in the apt sources to derive deb-src lines from"
	write_config
	apt_private update >>"$log" 2>&1 &&
		! grep -q '^W: Failed to fetch' "$log" ||
		die "apt-get update failed (no network?): $(last_error) (log: $log)"
	for p in $todo; do
		fetch_one "$p"
	done
}

main
