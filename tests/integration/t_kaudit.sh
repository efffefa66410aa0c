# The kernel's audit of Landlock's denials (ABI 7) carries the denials
# worth a look, not cordon's noise: `cordon probe`'s own attempts are
# quiet (Landlock ABI 10's quiet flags, shim/core/landlock.c), and a
# refusal the shim makes never reaches the kernel; a denial nothing
# explained (a raw read outside, which no shim sees) is logged.  Read
# from the kernel's log (root's; audit on, as the matrix boots with
# audit=1, without auditd: the records go to the kernel's log).

# kmark NAME: a line in the kernel's log to count from.
kmark() {
	echo "cordon-it-$$-$1" > /dev/kmsg
}

# krecords FROM TO [PATTERN]: Landlock's denial records (type 1423)
# between two marks, matching PATTERN.
krecords() {
	dmesg | sed -n "/cordon-it-$$-$1/,/cordon-it-$$-$2/p" |
		grep 'type=1423' | grep -c -- "${3:-.}"
}

test_kaudit_probe_and_shim_refusals_stay_out_the_raw_denial_in() {
	local n
	[ "$(id -u)" = 0 ] || skip "SKIP: the kernel's log is root's to read and mark"
	kernel_has quiet || skip "SKIP: no quiet flags here (Landlock ABI 10, Linux 7.2)"
	echo secret > "$T/out/secret"
	echo raw-secret > "$T/out/raw"
	# the twin: a read outside by a raw system call, which no shim
	# sees: refused by Landlock (reads are its alone), and logged
	kmark a
	cordon -- "$HELPERS/escape" read "$T/out/raw"
	assert_status_not 0
	assert_stdout_lacks raw-secret
	sleep 0.5
	kmark b
	n=$(krecords a b "path=\"$T/out/raw\"")
	[ "$n" -ge 1 ] || skip "SKIP: no Landlock record for a raw denial: the kernel's audit is off here (boot with audit=1)"
	# cordon probe: its attempts are expected, kept out
	cordon probe
	sleep 0.5
	kmark c
	n=$(krecords b c)
	[ "$n" = 0 ] || { dmesg | grep type=1423 | tail -n 5; fail "cordon probe left $n Landlock records"; }
	# a read the shim refuses never reaches the kernel
	cordon -- cat "$T/out/secret"
	assert_status_not 0
	assert_stderr_has "cordon: denied read $T/out/secret"
	sleep 0.5
	kmark d
	n=$(krecords c d "$T/out/secret")
	[ "$n" = 0 ] || fail "the shim's refusal reached the kernel's audit ($n records)"
}
