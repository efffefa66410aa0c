# The 15 pitfalls of a preloaded shim (research/preload-catalog.md, D),
# D-1 to D-8 here, D-9 to D-15 in t_shim_edges.sh,
# each with the test the catalog gives to prove it is handled.  Effects
# are checked from outside; every denial has its twin without cordon.
# D-2, D-3, D-13, D-14 and D-15 are tested in depth by the exec, stat and
# net families' own files; here they are checked end to end, through
# cordon.

pit_secret() {
	echo s3cr3t > "$T/out/secret"
}

# pit_has_record KEY=VALUE...: $T/log holds a record with every KEY at
# VALUE ("*SUFFIX" matches a value ending in SUFFIX).
pit_has_record() {
	python3 - "$T/log" "$@" <<'PY' && return 0
import json, sys
try:
    recs = [json.loads(l) for l in open(sys.argv[1])]
except OSError:
    recs = []
want = dict(a.split("=", 1) for a in sys.argv[2:])
def ok(r):
    for k, v in want.items():
        x = str(r.get(k, ""))
        if v.startswith("*"):
            if not x.endswith(v[1:]):
                return False
        elif x != v:
            return False
    return True
sys.exit(0 if any(ok(r) for r in recs) else 1)
PY
	show
	echo "--- audit log:"
	head -c 3000 "$T/log" 2>/dev/null
	fail "no audit record with $*"
}

# pit_run SECONDS CMD...: CMD under timeout, keeping status and output.
pit_run() {
	local secs=$1
	shift
	timeout "$secs" "$@" > "$T/stdout" 2> "$T/stderr"
	status=$?
	[ "$status" -ne 124 ] || { show; fail "no end after $secs s: $*"; }
	return 0
}

pit_need_gcc() {
	command -v gcc > /dev/null || skip "SKIP: no gcc to build the test program"
}

# --- D-1: inner-call blindness and variant names ---------------------

# d1_check TRACE_PREFIX DIR LOG: every system call on a path inside DIR
# that the program itself made (strace -ff without cordon) is explained
# by an audit record of the cordon run, and each refused path is
# recorded exactly once.
d1_check() {
	python3 - "$@" <<'PY'
import glob, json, os, re, sys
prefix, d, log = sys.argv[1:4]
inside = re.compile(re.escape(d) + r'/[^"\s)]*')
lines = []
# the lowest pid is the program strace started
files = sorted(glob.glob(prefix + ".*"), key=lambda f: int(f.rsplit(".", 1)[1]))
for i, f in enumerate(files):
    own = open(f).read().splitlines()
    root = i == 0
    for j, l in enumerate(own):
        if root and j == 0:
            continue          # the exec of the program itself
        lines.append(l)
        if l.startswith(("execve(", "execveat(")) and l.endswith("= 0"):
            break             # another program from here on
recs = []
if os.path.exists(log):
    recs = [json.loads(l) for l in open(log)]
def explains(r, p):
    for k in ("path", "resolved"):
        v = r.get(k, "")
        if v and (p == v or p.startswith(v + "/")):
            return True
        if "XXXXXX" in v and re.fullmatch(re.escape(v).replace("XXXXXX", ".{6}"), p):
            return True
    return False
ours = [r for r in recs if any(r.get(k, "") == d or r.get(k, "").startswith(d + "/")
                               or d + "/" in r.get(k, "") for k in ("path", "resolved"))]
bad = []
for l in lines:
    paths = inside.findall(l)
    if paths and not any(explains(r, p) for r in ours for p in paths):
        bad.append("not seen by the shim: " + l[:200])
# once: one record for each path refused (a rename has two ends)
seen = {}
for r in ours:
    seen.setdefault(r.get("resolved"), []).append(r.get("operation"))
for p, ops in seen.items():
    if len(ops) != 1:
        bad.append("%s recorded %d times: %s" % (p, len(ops), ops))
if not ours:
    bad.append("no record at all")
if not any(inside.findall(l) for l in lines):
    bad.append("strace saw no call on the path: is the fixture right?")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

# d1_prepare: a fresh fixture before each run (d1_fix, d1_lib), with a
# listener when the sub-command connects.
d1_prepare() {
	[ -n "${d1_fix:-}" ] || return 0
	unlisten_unix
	"$HELPERS/pit_tree" fixture "$d1_fix" $d1_lib || fail "no fixture"
	[ "$d1_sock" = 1 ] && listen_unix "$d1_fix/sock"
	return 0
}

# d1_compare LABEL DIR CMD...: CMD under strace without cordon, then under
# cordon; d1_check on the two.  Output on failure only.
d1_compare() {
	local label=$1 dir=$2
	shift 2
	rm -rf "$T/st" && mkdir -p "$T/st"
	rm -f "$T/log"
	d1_prepare
	timeout 120 strace -ff -qq -s 4096 -e trace=%file,connect \
		-o "$T/st/tr" "$@" > "$T/stdout" 2> "$T/stderr" < /dev/null
	d1_prepare
	timeout 120 "$CORDON" --log "$T/log" -- "$@" > "$T/cordon.out" \
		2>&1 < /dev/null
	unlisten_unix
	d1_check "$T/st/tr" "$dir" "$T/log" > "$T/d1.out" 2>&1 && return 0
	echo "--- $label: $*"
	sed 's/^/    /' "$T/d1.out"
	sed 's/^/    cordon: /' "$T/cordon.out" | head -5
	return 1
}

# d1_variant DRIVER SUB...: each sub-command of pit_d1 built one way.
d1_variant() {
	local drv=$1 sub target failed= d1_fix d1_lib d1_sock
	shift
	command -v strace > /dev/null || skip "SKIP: no strace"
	for sub in "$@"; do
		target=$("$HELPERS/$drv" --list | awk -v s="$sub" '$1 == s {print $2}')
		[ -n "$target" ] || fail "$drv has no sub-command $sub"
		d1_fix=$T/out/$sub d1_lib= d1_sock=0
		[ "$target" = lib.so ] && d1_lib=lib
		[ "$target" = sock ] && d1_sock=1
		d1_compare "$drv $sub" "$d1_fix" "$HELPERS/$drv" "$sub" "$d1_fix" ||
			failed="$failed $sub"
	done
	[ -z "$failed" ] || fail "$drv: blind to:$failed"
}

d1_subs() {
	"$HELPERS/pit_d1" --list | awk '{print $1}' |
		grep -vx -e nftw -e glob -e scandir -e connect
}

test_pitfall_D1_plain_build_is_seen() {
	d1_variant pit_d1 $(d1_subs) connect
}

test_pitfall_D1_fortified_build_is_seen() {
	d1_variant pit_d1_fortify $(d1_subs)
}

test_pitfall_D1_lfs_build_is_seen() {
	d1_variant pit_d1_lfs $(d1_subs)
}

test_pitfall_D1_fortified_lfs_build_is_seen() {
	d1_variant pit_d1_both $(d1_subs)
}

# glob, nftw and scandir traverse inside libc: only their root is seen.
test_pitfall_D1_directory_walkers_are_seen() {
	local v failed=
	for v in pit_d1 pit_d1_lfs; do
		(d1_variant "$v" nftw glob scandir) || failed="$failed $v"
	done
	[ -z "$failed" ] || fail "walkers unseen in:$failed"
}

test_pitfall_D1_the_four_builds_import_their_variant_names() {
	local v
	for v in plain:pit_d1 fortify:pit_d1_fortify lfs:pit_d1_lfs both:pit_d1_both; do
		nm -D --undefined-only "$HELPERS/${v#*:}" | awk '{print $2}' |
			sed 's/@.*//' > "$T/${v%%:*}"
	done
	grep -qx open "$T/plain" && grep -qx realpath "$T/plain" ||
		fail "the plain build does not call open and realpath"
	! grep -q '^__open' "$T/plain" || fail "the plain build is fortified"
	for n in __open_2 __openat_2 __realpath_chk __readlink_chk; do
		grep -qx "$n" "$T/fortify" || fail "the fortified build lacks $n"
	done
	for n in open64 openat64 fopen64 creat64 stat64 lstat64 mkstemp64 truncate64; do
		grep -qx "$n" "$T/lfs" || fail "the LFS build lacks $n"
	done
	for n in __open64_2 __openat64_2 fopen64; do
		grep -qx "$n" "$T/both" || fail "the fortified LFS build lacks $n"
	done
}

test_pitfall_D1_debian_tools_are_seen() {
	local failed=
	command -v strace > /dev/null || skip "SKIP: no strace"
	# make 4.3 calls __xstat, python3 __open64_2 or open64, tar openat
	mkdir -p "$T/out/mk" "$T/out/py" "$T/out/tar"
	echo dep > "$T/out/mk/dep"
	echo data > "$T/out/py/file"
	echo data > "$T/out/tar/file"
	printf 'all: %s\n\t@echo built\n' "$T/out/mk/dep" > Makefile
	d1_compare make "$T/out/mk" make -s || failed="$failed make"
	d1_compare python3 "$T/out/py" python3 -c \
		'import sys; open(sys.argv[1]).read()' "$T/out/py/file" ||
		failed="$failed python3"
	d1_compare tar "$T/out/tar" tar -cf "$T/ws/x.tar" "$T/out/tar/file" ||
		failed="$failed tar"
	[ -z "$failed" ] || fail "blind to:$failed"
}

# --- D-2: the tree is kept when the environment is cleared ------------

d2_assert_cat_denied() {
	assert_status_not 0
	assert_stdout_lacks s3cr3t
	grep -F "cordon: denied read $T/out/secret [" "$T/stderr" |
		grep -qv 'by the kernel' ||
		{ show; fail "no shim denial line for $T/out/secret"; }
	pit_has_record "program=$(readlink -f "$(type -P cat)")" \
		"resolved=$T/out/secret" layer=shim
	plain cat "$T/out/secret"
	assert_stdout_has s3cr3t
}

test_pitfall_D2_env_i_child_is_still_shimmed() {
	pit_secret
	cordon --log "$T/log" -- env -i /bin/cat "$T/out/secret"
	d2_assert_cat_denied
}

test_pitfall_D2_python_execve_with_empty_env() {
	pit_secret
	cordon --log "$T/log" -- python3 -c \
		'import os, sys; os.execve("/bin/cat", ["cat", sys.argv[1]], {})' \
		"$T/out/secret"
	d2_assert_cat_denied
}

test_pitfall_D2_subprocess_with_empty_env() {
	pit_secret
	cordon --log "$T/log" -- python3 -c 'import subprocess, sys
sys.exit(subprocess.run(["/bin/cat", sys.argv[1]], env={}).returncode)' \
		"$T/out/secret"
	d2_assert_cat_denied
}

test_pitfall_D2_unsetenv_then_system() {
	pit_secret
	cordon --log "$T/log" -- python3 -c 'import os, sys
os.environ.pop("LD_PRELOAD", None)
os.unsetenv("LD_PRELOAD")
sys.exit(os.waitstatus_to_exitcode(os.system("cat " + sys.argv[1])))' \
		"$T/out/secret"
	d2_assert_cat_denied
}

test_pitfall_D2_unsetenv_then_execvp() {
	pit_secret
	cordon --log "$T/log" -- python3 -c 'import os, sys
os.environ.pop("LD_PRELOAD", None)
os.unsetenv("LD_PRELOAD")
os.execvp("cat", ["cat", sys.argv[1]])' "$T/out/secret"
	d2_assert_cat_denied
}

test_pitfall_D2_child_cannot_loosen_the_snapshot() {
	pit_secret
	# a policy that grants everything, set by the sandboxed program
	local loose
	loose=$("$HELPERS/snapshot" --net --inherit-env rwx /)
	cordon --log "$T/log" -- sh -c 'CORDON_POLICY="$1" exec cat "$0"' \
		"$T/out/secret" "$loose"
	d2_assert_cat_denied
}

# --- D-3: vfork children (gcc's driver) -------------------------------

test_pitfall_D3_gcc_vfork_children_under_cordon() {
	pit_need_gcc
	printf 'int f(void) { return 1; }\n' > x.c
	pit_run 300 "$CORDON" --log "$T/log" -- sh -c \
		'seq 48 | xargs -P 12 -I{} gcc -c x.c -o o{}.o'
	assert_status 0
	[ "$(ls o*.o | wc -l)" -eq 48 ] || fail "not every compile finished"
	cordon --log "$T/log" -- gcc -c x.c -o "$T/out/x.o"
	assert_status_not 0
	assert_absent "$T/out/x.o"
	assert_stderr_has "cordon: denied write $T/out/x.o"
	pit_has_record "resolved=$T/out/x.o" "program=*as" # x86_64-linux-gnu-as
	plain gcc -c x.c -o "$T/out/x.o"
	assert_status 0
	assert_exists "$T/out/x.o"
}

# --- D-4: async-signal safety ---------------------------------------

test_pitfall_D4_signal_handler_open_storm_finishes() {
	local n=100000
	pit_secret
	echo ok > "$T/ws/f"
	pit_run 60 "$CORDON" --log "$T/log" -- "$HELPERS/pit_sigopen" \
		"$T/ws/f" "$T/out/secret" "$n"
	assert_status 0
	assert_stdout_has "opens=$n handler=[1-9]"
	assert_stdout_lacks "denied=0$"
	assert_stderr_has "cordon: denied read $T/out/secret \[open\]"
	CORDON_POLICY=$(shim_policy) LD_PRELOAD="$HELPERS/libcordon.so" \
		pit_run 60 "$HELPERS/pit_sigopen" "$T/ws/f" "$T/out/secret" "$n"
	assert_status 0
	assert_stdout_has "opens=$n handler=[1-9]"
	assert_stdout_lacks "denied=0$"
	pit_run 60 "$HELPERS/pit_sigopen" "$T/ws/f" "$T/out/secret" "$n"
	assert_status 0
	assert_stdout_has "denied=0$"
}

# --- D-5: fork while other threads are inside the shim ----------------

# PIT_FORKS: fewer forks for a manual run (run.sh passes no environment).
d5_storm() { # fork|_Fork
	local n=${PIT_FORKS:-10000}
	pit_secret
	echo ok > "$T/ws/f"
	pit_run 300 "$CORDON" --log "$T/log" -- "$HELPERS/pit_forkstorm" \
		"$1" "$T/ws/f" "$T/out/secret" "$n"
	assert_status 0
	assert_stdout_has "forks=$n opened=$((n - n / 100)) denied=$((n / 100)) bad=0"
	pit_has_record "resolved=$T/out/secret" "program=*/pit_forkstorm"
	pit_run 300 "$HELPERS/pit_forkstorm" "$1" "$T/ws/f" "$T/out/secret" 1000
	assert_status 0
	assert_stdout_has "forks=1000 opened=1000 denied=0 bad=0"
}

test_pitfall_D5_fork_storm_with_fork() {
	d5_storm fork
}

test_pitfall_D5_fork_storm_with__Fork() {
	d5_storm _Fork
}

# --- D-6: initialization order, dlsym traps ---------------------------

test_pitfall_D6_library_constructor_open_is_attributed() {
	pit_need_gcc
	pit_secret
	cat > liba.c <<EOF
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
char ctor_read[64] = "nothing";
__attribute__((constructor)) static void ctor(void)
{
	int fd = open("$T/out/secret", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, ctor_read, sizeof(ctor_read) - 1);
	if (n > 0)
		ctor_read[n] = 0;
}
EOF
	printf '#include <stdio.h>\nextern char ctor_read[];\nint main(void) { printf("ctor read: %%s\\n", ctor_read); return 0; }\n' > mainA.c
	gcc -shared -fPIC -o libA.so liba.c && gcc -o mainA mainA.c -L. -lA \
		-Wl,-rpath,"$T/ws" || fail "cannot build mainA"
	cordon --log "$T/log" -- ./mainA
	assert_status 0
	assert_stdout_has "ctor read: nothing"
	grep -F "cordon: denied read $T/out/secret [open]" "$T/stderr" > /dev/null ||
		{ show; fail "the constructor's open was not seen by the shim"; }
	pit_has_record "resolved=$T/out/secret" "program=$T/ws/mainA" layer=shim
	plain ./mainA
	assert_stdout_has "ctor read: s3cr3t"
}

test_pitfall_D6_jemalloc_after_the_shim_does_not_hang() {
	local je=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
	[ -e "$je" ] || skip "SKIP: libjemalloc2 is not installed ($je); scripts/install-deps.sh should add it"
	mkdir "$T/out/d" && touch "$T/out/d/inside"
	CORDON_POLICY=$(shim_policy) LD_PRELOAD="$HELPERS/libcordon.so $je" \
		pit_run 60 ls /usr
	assert_status 0
	assert_stdout_has '^bin$'
	CORDON_POLICY=$(shim_policy) LD_PRELOAD="$HELPERS/libcordon.so $je" \
		pit_run 60 ls "$T/out/d"
	assert_status_not 0
	assert_stdout_lacks inside
	assert_stderr_has "cordon: denied .*$T/out/d"
	pit_run 60 "$CORDON" --log "$T/log" -e LD_PRELOAD="$je" -- ls "$T/out/d"
	assert_status_not 0
	assert_stdout_lacks inside
	assert_stderr_has "cordon: denied .*$T/out/d"
	LD_PRELOAD="$je" pit_run 60 ls "$T/out/d"
	assert_status 0
	assert_stdout_has inside
}

# --- D-7: canonicalization as the kernel does it ----------------------

d7_fixture() {
	mkdir -p "$T/proj" "$T/secret/sub"
	echo KEY-SECRET > "$T/secret/key"
	echo decoy > "$T/proj/key"
	ln -s ../secret/sub "$T/proj/link"
}

test_pitfall_D7_dotdot_after_a_symlink_follows_the_link() {
	d7_fixture
	cordon --log "$T/log" -r "$T/proj" -- cat "$T/proj/link/../key"
	assert_status_not 0
	assert_stdout_lacks KEY-SECRET
	assert_stdout_lacks decoy
	assert_stderr_has "cordon: denied read $T/proj/link/../key ($T/secret/key) \[open\]"
	plain cat "$T/proj/link/../key"
	assert_stdout_has KEY-SECRET
}

test_pitfall_D7_unlink_acts_on_the_link_itself() {
	d7_fixture
	cordon --log "$T/log" -w "$T/proj" -- rm "$T/proj/link"
	assert_status 0
	[ ! -L "$T/proj/link" ] || fail "the link is still there"
	assert_exists "$T/secret/sub"
	ln -s ../proj/key "$T/secret/plink"
	# secret visible but not writable: the unlink itself is refused
	cordon --log "$T/log" -w "$T/proj" -r "$T/secret" -- rm "$T/secret/plink"
	assert_status_not 0
	[ -L "$T/secret/plink" ] || fail "the link in secret was removed"
	assert_content "$T/proj/key" decoy
	assert_stderr_has "cordon: denied write $T/secret/plink \[unlink"
	! grep -q "denied write $T/secret/plink ($T/proj/key)" "$T/stderr" ||
		{ show; fail "unlink was decided on the link's target"; }
	plain rm "$T/secret/plink"
	assert_status 0
	[ ! -L "$T/secret/plink" ] || fail "the twin did not remove the link"
	assert_content "$T/proj/key" decoy
}

test_pitfall_D7_openat_on_a_directory_fd() {
	d7_fixture
	cordon --log "$T/log" -- "$HELPERS/ffidrive" openat "$T/secret" key O_RDONLY
	assert_status 1
	assert_stdout_has "errno=ENOENT"
	assert_stderr_has "cordon: denied read key ($T/secret/key) \[openat\]"
	plain "$HELPERS/ffidrive" openat "$T/secret" key O_RDONLY
	assert_status 0
}

test_pitfall_D7_proc_self_cwd_magic_link() {
	d7_fixture
	cordon --log "$T/log" -- cat /proc/self/cwd/../secret/key
	assert_status_not 0
	assert_stdout_lacks KEY-SECRET
	assert_stderr_has "cordon: denied read /proc/self/cwd/../secret/key ($T/secret/key) \[open\]"
	plain cat /proc/self/cwd/../secret/key
	assert_stdout_has KEY-SECRET
}

test_pitfall_D7_dotdot_after_a_missing_dir_is_enoent() {
	# lexically out/secret (denied); to the kernel, no such file
	pit_secret
	cordon --log "$T/log" -- cat "$T/ws/missing/../../out/secret"
	assert_status_not 0
	assert_stderr_has "No such file or directory"
	! grep -q 'cordon: denied' "$T/stderr" ||
		{ show; fail "a denial where the kernel says ENOENT"; }
	plain cat "$T/ws/missing/../../out/secret"
	assert_status_not 0
	assert_stderr_has "No such file or directory"
}

# --- D-8: TOCTOU; renames of ancestors -------------------------------

test_pitfall_D8_symlink_race_the_kernel_holds() {
	local racer
	pit_secret
	echo fine > "$T/ws/ok"
	ln -s "$T/ws/ok" "$T/ws/l"
	"$HELPERS/pit_race" swap "$T/ws/l" "$T/ws/ok" "$T/out/secret" 100000000 &
	racer=$!
	pit_run 120 "$CORDON" --log "$T/log" -- "$HELPERS/pit_race" open \
		"$T/ws/l" s3cr3t 20000
	cp "$T/stdout" "$T/sandboxed"
	pit_run 120 "$HELPERS/pit_race" open "$T/ws/l" s3cr3t 20000
	kill "$racer" 2>/dev/null
	wait "$racer" 2>/dev/null
	grep -q 'word=0 ' "$T/sandboxed" ||
		fail "the secret was read through cordon: $(cat "$T/sandboxed")"
	grep -q 'word=[1-9]' "$T/stdout" ||
		fail "the twin never read the secret: the race did not happen: $(cat "$T/stdout")"
	echo "through cordon: $(cat "$T/sandboxed");" \
		"kernel denials after a shim allow: $(grep -c '"layer":"kernel"' "$T/log")"
}

test_pitfall_D8_moving_a_parent_of_a_denied_path() {
	mkdir -p "$T/out/tree"
	echo s3cr3t > "$T/out/tree/secret"
	# the tree visible, not writable: the rename itself is refused
	cordon --log "$T/log" -r "$T/out" -- mv "$T/out/tree" "$T/ws/tree"
	assert_status_not 0
	assert_content "$T/out/tree/secret" s3cr3t
	assert_absent "$T/ws/tree"
	assert_stderr_has "cordon: denied write $T/out/tree \[rename"
	plain mv "$T/out/tree" "$T/ws/tree"
	assert_status 0
	assert_content "$T/ws/tree/secret" s3cr3t
}

test_pitfall_D8_rename_into_and_out_of_a_denied_tree() {
	mkdir -p "$T/out/tree"
	echo s3cr3t > "$T/out/tree/secret"
	echo mine > "$T/ws/f"
	cordon --log "$T/log" -r "$T/out" -- mv "$T/ws/f" "$T/out/tree/f"
	assert_status_not 0
	assert_content "$T/ws/f" mine
	assert_absent "$T/out/tree/f"
	assert_stderr_has "cordon: denied write $T/out/tree/f \[rename"
	cordon --log "$T/log" -r "$T/out" -- mv "$T/out/tree/secret" "$T/ws/s"
	assert_status_not 0
	assert_content "$T/out/tree/secret" s3cr3t
	assert_absent "$T/ws/s"
	assert_stderr_has "cordon: denied write $T/out/tree/secret \[rename"
	plain mv "$T/ws/f" "$T/out/tree/f"
	assert_status 0
	plain mv "$T/out/tree/secret" "$T/ws/s"
	assert_status 0
	assert_content "$T/out/tree/f" mine
	assert_content "$T/ws/s" s3cr3t
}
