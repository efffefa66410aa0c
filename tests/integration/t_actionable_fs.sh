# The rows of the differential harness (t_actionable.sh) for files:
# one row a class of denial, refused, explained and fixed by the options
# cordon prints.
declare -F act_row > /dev/null ||
	. "$(dirname "${BASH_SOURCE[0]}")/t_actionable.sh"

# The rows.  Files: read, list, write, create, remove, rename, link.
act_row read_file \
	'echo secret > @O/f' \
	'cat @O/f > @W/copy' \
	'[ "$(cat @W/copy)" = secret ]' \
	'@O/f' \
	'least=@O/f'
act_row read_relative_path \
	'echo secret > @O/f' \
	'cat ../out/f > copy' \
	'[ "$(cat @W/copy)" = secret ]' \
	'@O/f' \
	'least=@O/f'
act_row list_dir \
	'mkdir @O/d && touch @O/d/entry' \
	'ls @O/d > @W/list' \
	'grep -qx entry @W/list' \
	'@O/d' \
	'least=@O/d'
act_row write_file \
	'echo old > @O/f' \
	'echo new > @O/f' \
	'[ "$(cat @O/f)" = new ]' \
	'@O/f' \
	'least=@O/f'
act_row create_file \
	'mkdir @O/d' \
	'echo new > @O/d/n' \
	'[ "$(cat @O/d/n)" = new ]' \
	'@O/d/n' \
	'least=@O/d'
act_row rm_file \
	'mkdir @O/d && echo x > @O/d/f' \
	'rm @O/d/f' \
	'[ ! -e @O/d/f ] && [ -d @O/d ]' \
	'@O/d/f' \
	'least=@O/d'
act_row rmdir \
	'mkdir -p @O/d/e' \
	'rmdir @O/d/e' \
	'[ ! -e @O/d/e ] && [ -d @O/d ]' \
	'@O/d/e' \
	'least=@O/d'
act_row mv_within_outside \
	'mkdir @O/d && echo x > @O/d/a' \
	'mv @O/d/a @O/d/b' \
	'[ ! -e @O/d/a ] && [ "$(cat @O/d/b)" = x ]' \
	'@O/d/a' \
	'least=@O/d'
act_row mv_outside_into_ws \
	'mkdir @O/d && echo x > @O/d/a' \
	'mv @O/d/a @W/a' \
	'[ ! -e @O/d/a ] && [ "$(cat @W/a)" = x ]' \
	'@O/d/a' \
	'least=@O/d'
act_row mv_ws_to_outside \
	'mkdir @O/d && echo x > @W/a' \
	'mv @W/a @O/d/a' \
	'[ ! -e @W/a ] && [ "$(cat @O/d/a)" = x ]' \
	'@O/d/a' \
	'least=@O/d'
act_row hardlink \
	'mkdir @O/d && echo x > @O/d/a' \
	'ln @O/d/a @O/d/b' \
	'[ @O/d/a -ef @O/d/b ]' \
	'@O/d/b' \
	'least=@O/d'
# A hard link from the workspace to a directory outside: each root is a
# mount of its own, and a link cannot cross mounts, so no option allows
# it (with --write of the directory, or of a directory above both ends,
# it fails with EXDEV); the line says so and names none.
act_row hardlink_ws_to_outside \
	'mkdir @O/d && echo x > @W/a' \
	'ln @W/a @O/d/b' \
	'[ @W/a -ef @O/d/b ]' \
	'@O/d/b' \
	'none=--write @O/d --write @T'
act_row symlink \
	'mkdir @O/d' \
	'ln -s target @O/d/l' \
	'[ "$(readlink @O/d/l)" = target ]' \
	'@O/d/l' \
	'least=@O/d'
act_row truncate \
	'echo hello > @O/f' \
	'truncate -s 0 @O/f' \
	'[ -f @O/f ] && [ ! -s @O/f ]' \
	'@O/f' \
	'least=@O/f'
act_row truncate_path \
	'echo hello > @O/f' \
	'python3 -c "import os; os.truncate(\"@O/f\", 0)"' \
	'[ -f @O/f ] && [ ! -s @O/f ]' \
	'@O/f' \
	'least=@O/f'

# Metadata and special files.
# chmod(2) itself: coreutils' chmod first stats the file through fts,
# and a path outside every root is not seen (the shim's refusal), so it
# takes two rounds of pasting (--read, then --write): open, issue 17.
act_row chmod \
	'echo x > @O/f && chmod 644 @O/f' \
	'python3 -c "import os, sys; os.chmod(sys.argv[1], 0o600)" @O/f' \
	'[ "$(stat -c %a @O/f)" = 600 ]' \
	'@O/f' \
	'least=@O/f'
act_row utimes \
	'echo x > @O/f' \
	'touch -m -d "2001-02-03 04:05:06 UTC" @O/f' \
	'[ "$(stat -c %Y @O/f)" = 981173106 ]' \
	'@O/f' \
	'least=@O/f'
act_row xattr \
	'echo x > @O/f' \
	'python3 -c "import os; os.setxattr(\"@O/f\", \"user.cordon\", b\"v\")"' \
	'[ "$(python3 -c "import os; print(os.getxattr(\"@O/f\", \"user.cordon\").decode())")" = v ]' \
	'@O/f' \
	'least=@O/f' \
	'need=touch @O/probe && python3 -c "import os; os.setxattr(\"@O/probe\", \"user.p\", b\"1\")" ||
	 { echo "SKIP: no user xattrs here (or no python3 to set one)"; false; }'
act_row mkfifo \
	'mkdir @O/d' \
	'mkfifo @O/d/p' \
	'[ -p @O/d/p ]' \
	'@O/d/p' \
	'least=@O/d'
act_row bind_unix_socket \
	'mkdir @O/d' \
	'python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"@O/d/s\")"' \
	'[ -S @O/d/s ]' \
	'@O/d/s' \
	'least=@O/d'

# Exec of a program outside the exec roots (a copied binary).
act_row exec_outside \
	'mkdir @O/bin && cp "$(command -v touch)" @O/bin/mytouch' \
	'@O/bin/mytouch @W/ran' \
	'[ -e @W/ran ]' \
	'@O/bin/mytouch' \
	'least=@O/bin'
act_row exec_script_outside \
	'mkdir @O/bin && printf "#!/bin/sh\necho ran > @W/ran\n" > @O/bin/tool &&
	 chmod +x @O/bin/tool' \
	'@O/bin/tool' \
	'[ "$(cat @W/ran)" = ran ]' \
	'@O/bin/tool' \
	'least=@O/bin'

# Names that must be quoted or escaped to be pasted.
act_row path_with_space \
	'mkdir "@O/my dir" && echo old > "@O/my dir/f"' \
	'echo new > "@O/my dir/f"' \
	'[ "$(cat "@O/my dir/f")" = new ]' \
	'@O/my dir/f' \
	'least=@O/my dir/f'
act_row path_with_quote \
	'mkdir "@O/it'\''s" && echo old > "@O/it'\''s/f"' \
	'echo new > "@O/it'\''s/f"' \
	'[ "$(cat "@O/it'\''s/f")" = new ]' \
	'@O/it' \
	'least=@O/it'\''s/f'
act_row path_with_newline \
	$'mkdir "@O/nl\ncordon: FORGED d"' \
	$'touch "@O/nl\ncordon: FORGED d/f"' \
	$'[ -f "@O/nl\ncordon: FORGED d/f" ]' \
	'@O/nl' \
	$'least=@O/nl\ncordon: FORGED d'
act_row path_with_control \
	$'mkdir "@O/e\033[31mred\tt"' \
	$'touch "@O/e\033[31mred\tt/f"' \
	$'[ -f "@O/e\033[31mred\tt/f" ]' \
	'@O/e' \
	$'least=@O/e\033[31mred\tt'

# Through a symlink in the workspace to a directory outside: the line
# names the target.
act_row read_via_symlink_in_ws \
	'echo secret > @O/f && ln -s @O/f @W/link' \
	'cat @W/link > @W/copy' \
	'[ "$(cat @W/copy)" = secret ]' \
	'@O/f' \
	'least=@O/f'
act_row symlink_in_ws_to_outside \
	'mkdir @O/d && ln -s @O/d @W/link' \
	'echo new > @W/link/f' \
	'[ "$(cat @O/d/f)" = new ]' \
	'@O/d/f' \
	'least=@O/d'

# A protected path: git's config in a repository in the workspace.
act_row git_config \
	'git init -q @W/repo' \
	'git -C @W/repo config cordon.key val' \
	'[ "$(git -C @W/repo config cordon.key)" = val ]' \
	'@W/repo/.git/config' \
	'least=@W/repo/.git' \
	'need=command -v git || { echo "SKIP: no git"; false; }'
act_row git_hook \
	'git init -q @W/repo' \
	'printf "#!/bin/sh\\n" > @W/repo/.git/hooks/post-checkout' \
	'[ -s @W/repo/.git/hooks/post-checkout ]' \
	'@W/repo/.git/hooks' \
	'least=@W/repo/.git/hooks' \
	'need=command -v git || { echo "SKIP: no git"; false; }'

# /proc/PID: with --no-defaults /proc is not granted; the line must not
# suggest a pid-specific path (the next run has another pid).
act_row proc_self_no_defaults \
	':' \
	'cat /proc/self/status > @W/status' \
	'grep -q "^Pid:" @W/status' \
	'/proc/self/status' \
	'least=/proc' \
	'base=--no-defaults -x /usr -x /bin -x /lib -x /lib64 -w @W'
