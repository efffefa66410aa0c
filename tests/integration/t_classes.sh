# Every class of refusal, under the real cordon, in three places: a
# directory outside every root ($T/out), a root granted read only
# ($T/ro, -r), and a directory outside reached through a symbolic link
# in the workspace (ws/lnk -> $T/far), where the shim's lexical check
# lets the call through and the read-only mount refuses it (EROFS).
# For each: the action fails, stderr has exactly one "cordon: denied"
# line for that operation and path (the resolved one), the audit log
# (--log) has its record, and from outside nothing changed.  The twin:
# the same command with the options the lines suggest succeeds, checked
# from outside.  As root, a fourth place: a directory that root inside
# the sandbox cannot look up (it has no capabilities), behind a link.
#
# A row is "NAME|WORD|TARGET|COMMAND|EFFECT": WORD is the line's verb
# (read, write, exec), TARGET the path the line names (under the place
# @), COMMAND runs inside (@ is the place as the command names it, SD
# the change driver, SN the network driver, FD the driver that calls a
# libc name through its hook, ffidrive), EFFECT a test run outside
# that holds once the action took place.

cls_rows=(
	"read|read|@/f|cat @/f|grep -qx old \"\$T/stdout\""
	"list|read|@/d|python3 -c 'import os,sys; print(*os.listdir(sys.argv[1]))' @/d|grep -qx x \"\$T/stdout\""
	"write|write|@/f|sh -c 'echo new >> @/f'|grep -qx new @/f"
	"create|write|@/new|sh -c 'echo new > @/new'|[ -e @/new ]"
	"otrunc|write|@/f|sh -c ': > @/f'|[ ! -s @/f ]"
	"truncate|write|@/f|python3 -c 'import os,sys; os.truncate(sys.argv[1], 0)' @/f|[ ! -s @/f ]"
	"unlink|write|@/f|SD unlink @/f|[ ! -e @/f ]"
	"rmdir|write|@/e|SD rmdir @/e|[ ! -e @/e ]"
	"rename|write|@/f|SD rename @/f @/g|[ -e @/g ] && [ ! -e @/f ]"
	"link|write|@/f|SD link @/f @/h|[ @/h -ef @/f ]"
	"symlink|write|@/s|SD symlink x @/s|[ -L @/s ]"
	"mkdir|write|@/n|SD mkdir @/n|[ -d @/n ]"
	"mkfifo|write|@/p|SD mkfifo @/p|[ -p @/p ]"
	"mknod|write|@/p|SD mknod @/p|[ -p @/p ]"
	"chmod|write|@/f|SD chmod @/f 600|[ \"\$(stat -c %a @/f)\" = 600 ]"
	"chown|write|@/f|SD chown @/f IDS|[ \"\$(stat -c %.9Z @/f)\" != \"\$cls_ctime\" ]"
	"utimes|write|@/f|SD utimes @/f 5|[ \"\$(stat -c %Y @/f)\" = 5 ]"
	"setxattr|write|@/f|SD setxattr @/f user.a b|cls_xattr @/f user.a"
	"removexattr|write|@/f|SD removexattr @/f user.x|! cls_xattr @/f user.x"
	"exec|exec|@/prog|sh -c '@/prog'|[ -e \"\$T/ws/ran\" ]"
	"bind|write|@/sock|SN bind-unix @/sock|[ -S @/sock ]"
	"dlopen|exec|@/lib.so|python3 -c 'import ctypes,sys; ctypes.CDLL(sys.argv[1]); print(\"loaded\")' @/lib.so|grep -qx loaded \"\$T/stdout\""
)

# Metadata changed through a descriptor (fchmod, fchown, futimens,
# futimes, fsetxattr, fremovexattr, futimesat with no path): the
# program opens the file for reading first (ffidrive's "f" argument),
# so they are rows where the file is readable (cls_fd_rows below).
cls_fd_rows=(
	"fchmod|write|@/f|FD fchmod @/f 0600|[ \"\$(stat -c %a @/f)\" = 600 ]"
	"fchown|write|@/f|FD fchown @/f IDS|[ \"\$(stat -c %.9Z @/f)\" != \"\$cls_ctime\" ]"
	"futimens|write|@/f|FD futimens @/f|[ \"\$(stat -c %.9Z @/f)\" != \"\$cls_ctime\" ]"
	"futimes|write|@/f|FD futimes @/f|[ \"\$(stat -c %.9Z @/f)\" != \"\$cls_ctime\" ]"
	"fsetxattr|write|@/f|FD fsetxattr @/f user.a b 1 0|cls_xattr @/f user.a"
	"fremovexattr|write|@/f|FD fremovexattr @/f user.x|! cls_xattr @/f user.x"
	"futimesat-fd|write|@/f|FD futimesat/fd @/f|[ \"\$(stat -c %.9Z @/f)\" != \"\$cls_ctime\" ]"
)

cls_xattr() { # FILE NAME: FILE has the extended attribute NAME
	python3 -c 'import os, sys; os.getxattr(sys.argv[1], sys.argv[2])' \
		"$1" "$2" 2> /dev/null
}

cls_is_root() {
	[ "$(id -u)" = 0 ]
}

# cls_fixture DIR: what every row acts on.
cls_fixture() {
	rm -rf "$1"
	mkdir -p "$1/d" "$1/e"
	echo old > "$1/f"
	echo x > "$1/d/x"
	printf '#!/bin/sh\n: > "%s"\n' "$T/ws/ran" > "$1/prog"
	chmod 755 "$1/prog"
	change_library "$1/lib.so" # t_shim_change.sh
	python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.x", b"1")' \
		"$1/f" 2> /dev/null || true
	rm -f "$T/ws/ran"
	# shellcheck disable=SC2034 # the chown row's effect reads it
	cls_ctime=$(stat -c %.9Z "$1/f")
}

# What the place holds, seen from outside: names, modes, owners, times,
# contents, extended attributes.
cls_snapshot() { # DIR
	(
		cd "$1" || exit 1
		find . -exec stat -c '%n %F %a %u %g %.9Y %.9Z %s' {} + | sort
		cat f d/x prog 2> /dev/null
		python3 -c 'import os; print(os.listxattr("f"))' 2> /dev/null
		echo "ran: $([ -e "$T/ws/ran" ] && echo yes)"
	) | md5sum
}

# cls_command ROW-COMMAND PLACE: the command with its words filled in.
cls_command() {
	# its own ids: root inside has no CAP_CHOWN to give a file away
	local ids c=$1
	ids="$(id -u) $(id -g)"
	c=${c//SD/\"\$T/bin/shimdrive_change\"}
	c=${c//SN/\"\$T/bin/shimdrive_net\"}
	c=${c//FD/\"\$T/bin/ffidrive\"}
	c=${c//IDS/$ids}
	printf '%s' "${c//@/$2}"
}

# The options the lines of $T/stderr suggest, in cls_grants (an array):
# each "allow with OPTION PATH", as a shell word list.
cls_suggested() {
	local opt
	cls_grants=()
	while IFS= read -r opt; do
		eval "cls_grants+=($opt)" || fail "cannot parse '$opt'"
	done < <(sed -n 's/^cordon: denied .*; allow with \(--[a-z]* .*\)$/\1/p' \
		"$T/stderr")
	[ "${#cls_grants[@]}" -gt 0 ] || { show; fail "no option suggested"; }
}

# cls_lines WORD PATH: how many lines deny WORD on PATH (as resolved:
# the path itself, or in parentheses after the path as given).
cls_lines() {
	grep "^cordon: denied $1 " "$T/stderr" |
		grep -c -F -e "denied $1 $2 [" -e "($2) ["
}

# cls_has_record NEED PATH: a record of a denial of PATH in $T/log,
# NEED (1 read, 2 write, 4 exec) among the rights it missed.
cls_has_record() {
	python3 - "$T/log" "$1" "$2" << 'EOF'
import json, sys
log, need, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for line in open(log):
    r = json.loads(line)
    if (r.get("resolved") == path and r.get("verdict") == "deny"
            and r.get("need", 0) & need == need):
        sys.exit(0)
sys.exit(1)
EOF
}

cls_need() {
	case $1 in
	read) echo 1 ;;
	write) echo 2 ;;
	exec) echo 4 ;;
	esac
}

cls_setup() {
	mkdir -p "$T/bin" "$T/far" "$T/ro"
	cp "$HELPERS/shimdrive_change" "$HELPERS/shimdrive_net" \
		"$HELPERS/ffidrive" "$T/bin/"
	ln -s "$T/far" "$T/ws/lnk"
}

# cls_case ROW PLACE-DIR NAMED [OPTION...]: the row refused in PLACE-DIR
# (named NAMED inside), then its twin with the options suggested.
cls_case() {
	local row=$1 dir=$2 named=$3 name word target cmd effect before
	shift 3
	IFS='|' read -r name word target cmd effect <<< "$row"
	echo "== $name in $named"
	cls_fixture "$dir"
	case $name in *xattr)
		cls_xattr "$dir/f" user.x ||
			{ echo "SKIP $name: no user xattrs in $dir" && return 0; } ;;
	esac
	target=${target//@/$dir}
	cmd=$(cls_command "$cmd" "$named")
	effect=${effect//@/$dir}
	before=$(cls_snapshot "$dir")
	rm -f "$T/log"
	eval "cordon --log \"\$T/log\" -x \"\$T/bin\" $* -- $cmd"
	[ "$status" -ne 0 ] || { show; fail "$name: not refused"; }
	[ "$(cls_lines "$word" "$target")" = 1 ] ||
		{ show; fail "$name: not one line denying $word $target"; }
	[ -z "$(grep '^cordon: denied' "$T/stderr" | sort | uniq -d)" ] ||
		{ show; fail "$name: a line said twice"; }
	cls_has_record "$(cls_need "$word")" "$target" ||
		{ show; cat "$T/log"; fail "$name: no record of $target"; }
	[ "$(cls_snapshot "$dir")" = "$before" ] ||
		{ show; fail "$name: $dir changed"; }
	! eval "$effect" || fail "$name: took effect"
	cls_suggested
	cls_fixture "$dir"
	eval "cordon -x \"\$T/bin\" $* \"\${cls_grants[@]}\" -- $cmd"
	[ "$status" -eq 0 ] ||
		{ show; fail "$name: refused with ${cls_grants[*]}"; }
	eval "$effect" || { show; fail "$name: no effect with ${cls_grants[*]}"; }
}

cls_all() { # DIR NAMED [OPTION...]
	local row
	for row in "${cls_rows[@]}"; do
		cls_case "$row" "$@"
	done
}

test_classes_outside_the_roots_each_explained_once() {
	cls_setup
	cls_all "$T/out" "$T/out"
}

test_classes_in_a_read_only_root_each_explained_once() {
	local row
	cls_setup
	for row in "${cls_rows[@]}"; do
		case $row in read\|* | list\|*) continue ;; esac # granted
		# shellcheck disable=SC2016 # expanded by cls_case's eval
		cls_case "$row" "$T/ro" "$T/ro" -r '"$T/ro"'
	done
}

# Through a descriptor: in a root granted read only, and through the
# workspace link to a directory granted read only, the line names the
# file the descriptor is open on.  The twin: with the option suggested,
# the change is made (checked from outside).
test_classes_fd_metadata_in_a_read_only_root_explained_once() {
	local row
	cls_setup
	for row in "${cls_fd_rows[@]}"; do
		# shellcheck disable=SC2016 # expanded by cls_case's eval
		cls_case "$row" "$T/ro" "$T/ro" -r '"$T/ro"'
	done
}

test_classes_fd_metadata_through_a_workspace_link_explained_once() {
	local row
	cls_setup
	for row in "${cls_fd_rows[@]}"; do
		# shellcheck disable=SC2016 # expanded by cls_case's eval
		cls_case "$row" "$T/far" lnk -r '"$T/far"'
	done
}

# The lexical check lets ws/lnk/... through; the read-only mount (or
# Landlock) refuses it: the line is the kernel's, and names the target.
test_classes_through_a_workspace_link_each_explained_once() {
	cls_setup
	cls_all "$T/far" lnk
}

# Every public name of the change family, through ws/lnk: each says so
# once, naming the target outside, and changes nothing there.
cls_variants=(
	"mkfifo @/p" "mknod @/p" "__xmknod @/p" "mkdir @/n" "unlink @/f"
	"remove @/f" "rmdir @/e" "remove @/e" "mkfifoat @ p" "mknodat @ p"
	"__xmknodat @ p" "mkdirat @ n" "unlinkat @ f" "unlinkat-rmdir @ e"
	"rename @/f @/g" "renameat2 @/f @/g" "renameat2-noreplace @/f @/g"
	"link @/f @/h" "linkat @/f @/h" "linkat-follow @/f @/h"
	"symlink x @/s" "chmod @/f 600" "lchmod @/f 600" "fchmodat @/f 600"
	"fchmodat-nofollow @/f 600" "chown @/f IDS" "lchown @/f IDS"
	"fchownat @/f IDS" "fchownat-nofollow @/f IDS" "utime @/f 5"
	"utimes @/f 5" "lutimes @/f 5" "utimensat @/f 5"
	"utimensat-nofollow @/f 5" "setxattr @/f user.a b"
	"lsetxattr @/f user.a b" "removexattr @/f user.x"
	"lremovexattr @/f user.x"
)

test_classes_every_change_name_through_a_workspace_link() {
	local v cmd before target
	cls_setup
	for v in "${cls_variants[@]}"; do
		echo "== $v"
		cls_fixture "$T/far"
		before=$(cls_snapshot "$T/far")
		cmd=$(cls_command "SD $v" lnk)
		# the first path the call names, resolved
		# shellcheck disable=SC2086
		target=$(set -- $v; case $1 in
			mk*at | __xmknodat | unlinkat*) echo "$2/$3" ;;
			symlink) echo "$3" ;;
			*) echo "$2" ;;
			esac)
		target=${target//@/$T/far}
		eval "cordon -x \"\$T/bin\" -- $cmd"
		assert_status 1
		[ "$(cls_lines write "$target")" = 1 ] ||
			{ show; fail "$v: not one line for $target"; }
		[ "$(cls_snapshot "$T/far")" = "$before" ] ||
			{ show; fail "$v changed $T/far"; }
		# the twin: the same call on the same place without cordon
		cls_fixture "$T/far"
		eval "plain $cmd"
		[ "$status" -eq 0 ] || { show; fail "$v fails without cordon"; }
		[ "$(cls_snapshot "$T/far")" != "$before" ] ||
			fail "$v did nothing without cordon"
	done
}

# cls_one_end CALL OLD NEW PATH END: CALL (rename, link) of OLD to NEW
# is refused with exactly one line, for PATH, naming END.
cls_one_end() {
	cordon -x "$T/bin" -- "$T/bin/shimdrive_change" "$1" "$2" "$3"
	assert_status 1
	assert_stderr_has "^cordon: denied write .*$4.* \\[$1 $5[],]"
	[ "$(grep -c '^cordon: denied' "$T/stderr")" = 1 ] ||
		{ show; fail "$1: not one line"; }
}

# A rename or link refused at one end only: the line names that end.
# The twin: with the option suggested, mv (which copies across the
# mounts of two roots, as across two file systems) moves it; a link is
# made without cordon.  A link from the workspace to a directory outside
# crosses mounts: no option, and the line says so.
test_classes_rename_and_link_name_the_refused_end() {
	cls_setup
	cls_fixture "$T/out"
	echo w > "$T/ws/w"
	cls_one_end rename w "$T/out/g" "$T/out/g" destination
	assert_absent "$T/out/g"
	assert_content "$T/ws/w" w
	cls_suggested
	cordon "${cls_grants[@]}" -- mv w "$T/out/g"
	assert_status 0
	assert_content "$T/out/g" w
	assert_absent "$T/ws/w"
	cls_one_end rename "$T/out/f" g "$T/out/f" source
	assert_content "$T/out/f" old
	assert_absent "$T/ws/g"
	echo w > "$T/ws/w"
	cls_one_end link w "$T/out/h" "$T/out/h" destination
	assert_absent "$T/out/h"
	cls_one_end link "$T/out/f" h "$T/out/f" source
	assert_absent "$T/ws/h"
	plain "$T/bin/shimdrive_change" link "$T/out/f" "$T/ws/h"
	assert_status 0
	[ "$T/ws/h" -ef "$T/out/f" ] || fail "no link without cordon"
	# through ws/lnk: the kernel refuses (EXDEV, EROFS), the line says
	# which end, and names the target
	cls_fixture "$T/far"
	echo w > "$T/ws/w"
	cls_one_end rename w lnk/g "$T/far/g" destination
	assert_stderr_has "by the kernel"
	assert_absent "$T/far/g"
	cls_one_end rename lnk/f g "$T/far/f" source
	assert_content "$T/far/f" old
	cls_one_end link w lnk/h "$T/far/h" destination
	assert_absent "$T/far/h"
	# from the workspace's mount to another: no option, and it says so
	assert_stderr_has "; no option allows this: a hard link cannot cross mounts"
	! grep -q 'allow with' "$T/stderr" || { show; fail "a link across mounts names an option"; }
	# a rename keeps its option (mv copies), and says what it leaves
	cls_one_end rename w lnk/g "$T/far/g" destination
	assert_stderr_has "its ends stay on two mounts: rename(2) says EXDEV, mv copies); allow with --write "
	cls_suggested
	# as it says: rename(2) itself fails across the two mounts
	cordon -x "$T/bin" "${cls_grants[@]}" -- \
		"$T/bin/shimdrive_change" rename w lnk/g
	assert_status 1
	assert_stdout_has "EXDEV"
	assert_absent "$T/far/g"
	cordon "${cls_grants[@]}" -- mv w lnk/g
	assert_status 0
	assert_content "$T/far/g" w
}

# Root inside the sandbox has no capabilities: a directory of another
# user's that it may not search hides what a link in the workspace
# points to.  The walk cannot see the target; the line names it from
# the link and the rest of the path.  The twin: without cordon, root
# does it.  (With --write it still cannot: no capability to search.)
test_classes_link_to_a_directory_root_cannot_search_is_named() {
	local c before
	cls_is_root || skip "SKIP: needs root (a user meets the same EACCES without cordon)"
	cls_setup
	mkdir -p "$T/hid"
	cls_fixture "$T/hid/in"
	chown -R 65534:65534 "$T/hid"
	chmod 700 "$T/hid"
	ln -s "$T/hid/in" "$T/ws/lh"
	for c in "read|@/f|cat lh/f" "write|@/new|sh -c 'echo x > lh/new'" \
		"write|@/f|sh -c 'echo x >> lh/f'" "write|@/n|SD mkdir lh/n" \
		"write|@/f|SD unlink lh/f" "write|@/f|SD chmod lh/f 600" \
		"exec|@/prog|sh -c lh/prog"; do
		IFS='|' read -r word target cmd <<< "$c"
		echo "== $cmd"
		target=${target//@/$T/hid/in}
		before=$(cls_snapshot "$T/hid/in")
		rm -f "$T/log"
		eval "cordon --log \"\$T/log\" -x \"\$T/bin\" -- $(cls_command "$cmd" x)"
		assert_status_not 0
		[ "$(cls_lines "$word" "$target")" = 1 ] ||
			{ show; fail "not one line denying $word $target"; }
		cls_has_record "$(cls_need "$word")" "$target" ||
			{ show; fail "no record of $target"; }
		[ "$(cls_snapshot "$T/hid/in")" = "$before" ] ||
			{ show; fail "$T/hid/in changed"; }
		eval "plain $(cls_command "$cmd" x)"
		assert_status 0
		cls_fixture "$T/hid/in"
		chown -R 65534:65534 "$T/hid"
	done
}
