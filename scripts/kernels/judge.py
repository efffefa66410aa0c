#!/usr/bin/env python3
"""judge.py - the kernel matrix's verdicts: reads each guest's console
(guest.sh's @@ lines), holds them to what issue 29 requires, prints the
tables and one line per failure, and writes doc/kernels.md.

    judge.py RUNS OUT.md [README.md]
    judge.py --selftest     show each expectation failing on a forged
                            console, and a good one passing

With README.md, its lines between README_BEGIN and README_END (or a
line KERNEL-TABLE) become readme_table()'s short guarantee table.
RUNS has one line per booted row: "KEY LOG SECONDS" (matrix.sh writes
it); KEY is boot.sh's (5.10, 6.1, 6.1-nolandlock, 6.12, 7).  Exit 1 when
any expectation fails, 0 otherwise.

The expectations, per row (kernel) and user:
  - the guest finished, and said every result;
  - the bare twin reached everything outside (else the test is broken);
  - as root and as cordon-test: `cordon -- true` runs (0), `cordon -- cc`
    builds, and the containment attempt under `cordon --` with no
    options ran and reached nothing outside ("held");
  - as cordon-test without user namespaces: under `cordon --`, either
    refused (125, nothing reached) or held; under `cordon --best-effort
    --`, every breach is one the banner named as not enforced;
  - under --best-effort, the same for root and cordon-test;
  - as each user, where probe --json has guarantees: `cordon -- true`
    does not run while probe says a needed guarantee is not held; the
    banner names every such guarantee and none probe says is held; a
    refusal names the same as the banner.
And what issue 30 requires, per row:
  - the integration tests of the kernel-dependent mechanisms (guest.sh's
    IT_TESTS) ran to their count, as root and as cordon-test, and none
    failed;
  - the transparent capture's test (CAPTURE_PROOF) passed, not skipped,
    on every row, as root and as cordon-test;
  - for each of Landlock's rights past ABI 7 the kernel has (@@LLHAVE),
    the tests that prove it (IT_PROOF) passed, not skipped;
  - where it has RESOLVE_UNIX (UDP), probe says Landlock holds the late
    pathname UNIX sockets (UDP beyond the grant), as root and as a user.
"""
import json
import re
import sys
import time
import os

USERS = [("root", "root"), ("cordon-test", "cordon-test"),
         ("cordon-test-nouserns", "cordon-test, no userns")]
REQUIRED = ("root", "cordon-test")
TESTS = ("probe", "run", "best-effort", "build", "contain", "contain-be",
         "twin")

# What a breach is, and the words of a banner (or refusal) entry that
# name it as not enforced (the entry's name, its "(needs ...)" removed).
NAMED_BY = {
    "created-outside": r"\bcreat|\bwrite\b",
    "wrote-outside": r"\bwrite\b",
    "copied-secret": r"\bread\b",
    "truncated": r"truncat",
    "tcp": r"(?<!non-)\btcp\b|\bnetwork\b",
    "udp": r"\budp\b|non-tcp|\bnetwork\b",
    "signalled": r"\bsignal",
}

ROW_NAMES = {"6.1-nolandlock": "without Landlock in `lsm=`"}

# The integration tests that prove each of Landlock's rights past ABI 7
# where the kernel has it (llhave's names), and the users they must pass
# as ("root", "user": run.sh's labels).
IT_PROOF = {
    "resolve_unix": [
        ("test_unix_late_socket_outside_is_unreachable", ("root", "user")),
        ("test_unix_late_socket_in_a_read_only_root_is_unreachable",
         ("root", "user")),
        ("test_unix_late_socket_in_the_workspace_is_reached",
         ("root", "user")),
        ("test_unix_late_socket_in_shared_tmp_of_a_process_outside_is_"
         "unreachable", ("root", "user")),
        ("test_unix_late_no_broker_under_another_supervisor",
         ("root", "user")),
        ("test_unix_late_shared_tmp_refusal_explained_and_pasted",
         ("root", "user")),
        ("test_unix_late_socket_bound_again_at_a_granted_path",
         ("root", "user")),
    ],
    "udp": [
        ("test_udp_other_port_granted_gets_nothing", ("root", "user")),
        ("test_udp_datagram_outside_gets_nothing_with_network_off",
         ("root", "user")),
        ("test_udp_denial_line_pasted_works", ("root", "user")),
        ("test_udp_bind_only_the_granted_port", ("root", "user")),
    ],
    "tsync": [
        ("test_standalone_threads_started_before_the_library_are_held",
         ("root", "user")),
    ],
    "quiet": [
        ("test_kaudit_probe_and_shim_refusals_stay_out_the_raw_denial_in",
         ("root",)),
    ],
}
# The transparent capture (--allow-host for every program) on every row:
# it needs nf_tables with NAT, which each of Debian's kernels has as
# modules (initramfs.sh loads them, and libcrc32c's crc32c before them).
CAPTURE_PROOF = [
    ("test_capture_loopback_grants_reach_the_hosts_loopback",
     ("root", "user")),
]
# What probe must say holds, where the kernel has the right.
IT_HOLDER = {
    "resolve_unix": "no pathname UNIX socket outside bound after the start",
    "udp": "no UDP beyond the grant",
}
IT_COUNT = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")
IT_LINE = re.compile(r"^(PASS|FAIL|SKIP) \[(\w+)\] (test_\w+)(?:: (.*))?$")


def console(path):
    """The @@ lines of a console log."""
    try:
        with open(path, errors="replace") as f:
            text = f.read().replace("\r", "")
    except OSError:
        return []
    return [l[2:] for l in text.split("\n") if l.startswith("@@")]


def fields(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def parse(path):
    """A guest's results: {user: {test: fields}}, guarantees, banners."""
    g = {"results": {}, "guar": {}, "notheld": {}, "meta": {},
         "it": {}, "it_count": None}
    for l in console(path):
        tag, _, rest = l.partition(" ")
        if tag in ("KERNEL", "LSM", "LANDLOCK", "USERNS", "DONE",
                   "LLHAVE"):
            g["meta"].setdefault(tag, rest)
        elif tag == "IT":
            m = IT_LINE.match(rest)
            c = IT_COUNT.match(rest)
            if m:
                g["it"][(m.group(2), m.group(3))] = (m.group(1),
                                                      m.group(4) or "")
            elif c:
                g["it_count"] = tuple(int(x) for x in c.groups())
        elif tag == "BOOT" and rest.startswith("FAIL"):
            g["meta"].setdefault("FAIL", rest[5:])
        elif tag == "RESULT":
            f = fields(rest)
            g["results"].setdefault(f.get("user"), {}).setdefault(
                f.get("test"), f)
        elif tag == "GUAR":
            who, _, js = rest.partition(" ")
            try:
                g["guar"][who] = None if js == "none" else json.loads(js)
            except ValueError:
                g["guar"][who] = None
        elif tag == "NOTHELD":
            who, test, line = rest.split(" ", 2)
            g["notheld"].setdefault((who, test.rstrip(":")), []).append(line)
    return g


def norm(s):
    """@s lower case, without what is in parentheses or brackets."""
    while True:
        t = re.sub(r"\([^()]*\)|\[[^][]*\]", "", s)
        if t == s:
            return " ".join(s.split()).lower()
        s = t


def named(lines):
    """The entries cordon named as not enforced (a --best-effort banner's,
    or refusal lines'), each norm()ed: without its "(needs ...)"."""
    out = []
    for line in lines:
        if "NOT ENFORCED:" in line:
            s = norm(line.split("NOT ENFORCED:", 1)[1])
            out += [e.strip() for e in s.split(";") if e.strip()]
        m = re.search(r"refusing to run: (.*?): nothing here holds it", line)
        if m:
            out.append(norm(m.group(1)))
    return out


def agree(key, user, r, gs, notheld):
    """Failures where what cordon did or said disagrees with what its
    probe says holds (@gs: probe --json's guarantees)."""
    fails = []
    unheld = {norm(g["guarantee"]) for g in gs
              if g.get("needed") and not g.get("held")}
    held = {norm(g["guarantee"]) for g in gs if g.get("held")}
    if r.get("run", {}).get("status") == "0" and unheld:
        fails.append(f"{key} {user}: `cordon -- true` ran, though probe "
                     f"says nothing holds: {'; '.join(sorted(unheld))}")
    banner = set(named(notheld.get((user, "contain-be"), [])))
    for g in sorted(unheld - banner):
        fails.append(f"{key} {user}: probe says nothing holds '{g}'; the "
                     "--best-effort banner does not name it")
    for g in sorted(held & banner):
        fails.append(f"{key} {user}: the --best-effort banner names "
                     f"'{g}', which probe says is held")
    refusal = set(named(notheld.get((user, "contain"), [])))
    if r.get("contain", {}).get("status") == "125" and refusal != banner:
        fails.append(f"{key} {user}: the refusal and the banner name "
                     f"different things: {'; '.join(sorted(refusal ^ banner))}")
    return fails


def judge_it(key, g):
    """Issue 30's expectations of row @key: the integration tests."""
    fails = []
    if "DONE" not in g["meta"]:
        return fails  # said already: the guest did not finish
    have = g["meta"].get("LLHAVE", "").split()
    if g["it_count"] is None:
        fails.append(f"{key}: the integration tests did not finish "
                     "(no count)")
    for (label, test), (st, _) in sorted(g["it"].items()):
        if st == "FAIL":
            fails.append(f"{key} {label}: {test} failed")
    def must_pass(proof, why):
        for test, labels in proof:
            for label in labels:
                st = g["it"].get((label, test), ("none", ""))[0]
                if st != "PASS":
                    fails.append(f"{key} {label}: {test}: {st}{why}")

    must_pass(CAPTURE_PROOF, ": the capture must hold on every kernel")
    for right in have:
        must_pass(IT_PROOF.get(right, []),
                  f", but the kernel has {right}: it must pass")
        holder = IT_HOLDER.get(right)
        for user in REQUIRED:
            gs = g["guar"].get(user)
            if not holder or not isinstance(gs, list):
                continue
            e = next((x for x in gs if x.get("guarantee") == holder), {})
            if "Landlock" not in e.get("held_by", []):
                fails.append(f"{key} {user}: the kernel has {right}, but "
                             f"probe says '{holder}' is held by "
                             f"{e.get('held_by')}, not Landlock")
    return fails


def it_table(rows):
    """Per row: Landlock's rights past ABI 7, the counts, the skips."""
    out = ("| kernel | Landlock's rights tried | as root | as cordon-test | "
           "skipped, and why |\n| --- | --- | --- | --- | --- |\n")
    for key, g, _, _ in rows:
        counts = {}
        skips = {}
        for (label, test), (st, why) in g["it"].items():
            c = counts.setdefault(label, [0, 0, 0])
            c[("PASS", "FAIL", "SKIP").index(st)] += 1
            if st == "SKIP":
                skips.setdefault(why.removeprefix("SKIP: "), []).append(
                    f"{test.removeprefix('test_')} ({label})")
        cell = {lab: "{} passed, {} failed, {} skipped".format(*c)
                for lab, c in counts.items()}
        why = "; ".join(f"{', '.join(sorted(t))}: {w}"
                        for w, t in sorted(skips.items())) or "none"
        out += (f"| {row_label(key, g)} | "
                f"{g['meta'].get('LLHAVE', '').strip() or 'none'} | "
                f"{cell.get('root', 'none')} | {cell.get('user', 'none')} | "
                f"{why} |\n")
    return out


def breaches(verdict):
    if verdict and verdict.startswith("BREACHED:"):
        return verdict[len("BREACHED:"):].split(",")
    return []


def unnamed(verdict, lines):
    """The breaches of @verdict that no line of @lines named."""
    entries = named(lines)
    return [b for b in breaches(verdict)
            if not any(re.search(NAMED_BY.get(b, re.escape(b)), e)
                       for e in entries)]


def judge(key, g, booted):
    """One line per failed expectation of row @key."""
    fails = []
    res = g["results"]
    if not booted or "DONE" not in g["meta"]:
        why = g["meta"].get("FAIL", "no @@DONE on the console")
        fails.append(f"{key}: the guest did not finish ({why})")
    for user, _ in USERS:
        r = res.get(user, {})
        missing = [t for t in TESTS if t not in r]
        if missing:
            fails.append(f"{key} {user}: no result for {', '.join(missing)}")
        tw = r.get("twin", {}).get("twin")
        if tw and tw != "ok":
            fails.append(f"{key} {user}: the bare twin did not reach "
                         f"everything ({tw}): the test is broken here")
        c = r.get("contain", {})
        cv, cs = c.get("verdict"), c.get("status")
        if user in REQUIRED:
            st = r.get("run", {}).get("status")
            if st is not None and st != "0":
                fails.append(f"{key} {user}: `cordon -- true` exited {st}"
                             " (it must run)")
            b = r.get("build", {})
            if b and (b.get("status") != "0" or b.get("built") != "yes"):
                fails.append(f"{key} {user}: `cordon -- cc` exited "
                             f"{b.get('status')}, built={b.get('built')}")
            if cv and cv != "held":
                fails.append(f"{key} {user}: the attempt under `cordon --` "
                             f"was {cv} (status {cs}), not held")
        elif cv and not (cv == "held" or (cv == "refused" and cs == "125")):
            fails.append(f"{key} {user}: the attempt under `cordon --` was "
                         f"{cv} (status {cs}): neither refused (125) nor "
                         "held")
        be = r.get("contain-be", {}).get("verdict")
        if be:
            left = unnamed(be, g["notheld"].get((user, "contain-be"), []))
            if left:
                fails.append(f"{key} {user}: under --best-effort "
                             f"{','.join(left)} got through, and the "
                             "banner did not name it")
            if be in ("refused", "did-not-run"):
                fails.append(f"{key} {user}: the attempt under "
                             f"--best-effort {be}")
        if isinstance(g["guar"].get(user), list):
            fails += agree(key, user, r, g["guar"][user], g["notheld"])
    return fails + judge_it(key, g)


def row_label(key, g):
    k = g["meta"].get("KERNEL", key)
    return f"{k}, {ROW_NAMES[key]}" if key in ROW_NAMES else k


def cell_status(r, t):
    return r.get(t, {}).get("status", "none")


def main_table(rows):
    head = ("| kernel | Landlock ABI | user | `probe` | `-- true` | "
            "`--best-effort -- true` | `-- cc` | attempt under `--` | "
            "under `--best-effort --` | twin | boot |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | "
            "--- |\n")
    out = head
    for key, g, secs, _ in rows:
        label = row_label(key, g)
        abi = g["meta"].get("LANDLOCK", "?")
        if not g["results"]:
            why = g["meta"].get("FAIL", "see the console log")
            out += (f"| {label} | {abi} | - | no boot: {why} | | | | | | "
                    f"| {secs} s |\n")
            continue
        for user, name in USERS:
            r = g["results"].get(user, {})
            b = r.get("build", {})
            built = ("built" if b.get("built") == "yes" else "not built")
            c = r.get("contain", {})
            be = r.get("contain-be", {})
            bev = be.get("verdict", "none")
            if breaches(bev):
                left = unnamed(bev, g["notheld"].get((user, "contain-be"),
                                                     []))
                bev += " (named)" if not left else " (NOT NAMED: " + \
                    ",".join(left) + ")"
            out += (f"| {label} | {abi} | {name} | {cell_status(r, 'probe')}"
                    f" | {cell_status(r, 'run')} | "
                    f"{cell_status(r, 'best-effort')} | "
                    f"{b.get('status', 'none')}, {built} | "
                    f"{c.get('verdict', 'none')} ({c.get('status', '?')}) | "
                    f"{bev} ({be.get('status', '?')}) | "
                    f"{r.get('twin', {}).get('twin', 'none')} | {secs} s |\n")
    return out


def short(key, g):
    m = re.match(r"\d+\.\d+", g["meta"].get("KERNEL", ""))
    return (m.group(0) if m else key.split("-")[0]) + \
        (" no Landlock" if key in ROW_NAMES else "")


def mechanism(m):
    """A mechanism's name, short: "the mount namespace": "mount ns"."""
    return re.sub(r"^the ", "", m).replace(" namespace", " ns")


def guarantee_table(rows):
    """Rows: guarantees; columns: kernel/user; cells: what holds it."""
    cols, names = [], []
    for key, g, _, _ in rows:
        for user, name in USERS:
            gs = g["guar"].get(user)
            cols.append((f"{short(key, g)} {name.replace('cordon-test', 'user')}",
                         gs, bool(g["results"])))
            for e in gs or []:
                if e.get("guarantee") not in names:
                    names.append(e.get("guarantee"))
    if not any(c[1] is not None for c in cols):
        return ("The probe has no \"guarantees\" (probe without guarantees): "
                "no guarantee table.\n")
    out = "| guarantee | " + " | ".join(c[0] for c in cols) + " |\n"
    out += "| --- |" + " --- |" * len(cols) + "\n"
    for n in names:
        cells = []
        for _, gs, ran in cols:
            if not ran:
                cells.append("no boot")
                continue
            if gs is None:
                cells.append("probe without guarantees")
                continue
            e = next((x for x in gs if x.get("guarantee") == n), None)
            if e is None:
                cells.append("-")
            elif e.get("held"):
                cells.append(" + ".join(mechanism(m) for m in
                                        e.get("held_by") or []) or "held")
            elif e.get("needed"):
                cells.append("NOT HELD")
            else:
                cells.append("not needed")
        out += f"| {n} | " + " | ".join(cells) + " |\n"
    return out


SHORT = {"Landlock": "LL", "the mount namespace": "mnt",
         "the network namespace": "net", "the PID namespace": "pid",
         "the IPC namespace": "ipc", "the seccomp filter": "filter",
         "the broker": "broker", "the capability drop": "caps"}
README_BEGIN = "<!-- make kernels: the table below is judge.py's -->"
README_END = "<!-- make kernels: end -->"


def readme_table(rows):
    """The guarantee table, short, for the README: as cordon-test, and as
    cordon-test without user namespaces, on each kernel."""
    cols, names = [], []
    for key, g, _, _ in rows:
        for user, tag in (("cordon-test", ""),
                          ("cordon-test-nouserns", ", no userns")):
            gs = g["guar"].get(user)
            cols.append((short(key, g) + tag, gs))
            for e in gs or []:
                if e.get("guarantee") not in names:
                    names.append(e.get("guarantee"))
    out = ("| guarantee (as a user) | " +
           " | ".join(c[0] for c in cols) + " |\n")
    out += "| --- |" + " --- |" * len(cols) + "\n"
    for n in names:
        cells = []
        for _, gs in cols:
            e = next((x for x in gs or [] if x.get("guarantee") == n), None)
            if e is None:
                cells.append("?")
            elif e.get("held"):
                cells.append("+".join(SHORT.get(m, mechanism(m))
                                      for m in e.get("held_by") or []))
            else:
                cells.append("**no**" if e.get("needed") else "-")
        out += f"| {n} | " + " | ".join(cells) + " |\n"
    return (out + "\nLL: Landlock; mnt, net, pid, ipc: namespaces; "
            "filter: seccomp; **no**: nothing holds it.\n")


def put_readme(path, rows):
    """Replace the README's table (between the markers) with this run's."""
    with open(path) as f:
        text = f.read()
    block = f"{README_BEGIN}\n\n{readme_table(rows)}\n{README_END}"
    if README_BEGIN in text and README_END in text:
        a = text.index(README_BEGIN)
        b = text.index(README_END) + len(README_END)
        text = text[:a] + block + text[b:]
    elif "\nKERNEL-TABLE\n" in text:
        text = text.replace("\nKERNEL-TABLE\n", "\n" + block + "\n", 1)
    else:
        print(f"judge.py: {path}: no table to replace", file=sys.stderr)
        return
    with open(path, "w") as f:
        f.write(text)


DOC = """# The kernel matrix

Generated by `make kernels` (scripts/kernels/matrix.sh, judged by
scripts/kernels/judge.py); do not edit.  Each of Debian's own generic
amd64 kernels is booted under QEMU without KVM, with this machine's root
shared read-only (9p) under a tmpfs overlay, and runs this tree's
`build/cordon` as root, as the unprivileged `cordon-test`, and as
`cordon-test` again with `user.max_user_namespaces` at 0 ("no userns").
One row boots 6.1 with Landlock left out of `lsm=`: a kernel without
Landlock but with `mount_setattr`.

## Guarantees

What `cordon probe --json` says holds each guarantee, as each user
("user": `cordon-test`): the mechanisms ("ns": namespace), or NOT HELD
(needed, and nothing holds it).

{guar}
## Runs

Statuses are cordon's exit statuses (125: refused); `-- cc` builds a
hello world in the workspace ("built": the program is there after).
The attempt is a static binary (scripts/kernels/contain.c) that creates
a file outside the writable roots, appends to one, copies a secret from
`~/.ssh` into the workspace, truncates a file outside by name, reaches a
TCP and a UDP listener outside and signals a process outside; each is
checked from outside after cordon exits ("held": it ran and nothing
reached outside; "BREACHED:" what did).  It runs under `cordon --` with
no options and under `cordon --best-effort --`, where "(named)" means
the banner named every breach as not enforced.  Its twin, the same run
bare in the same guest, must reach everything.

{table}
## The late UNIX socket, UDP, thread, audit and capture tests

The integration tests of the mechanisms whose holder depends on the
kernel (tests/integration/t_unix_late.sh, t_unix_shared.sh, t_udp.sh,
t_shim_standalone.sh's threads, t_kaudit.sh, and t_capture.sh's
loopback test: curl and a static binary reach the loopback's origin
through nf_tables' capture only where granted), run in each guest as root
and as `cordon-test` by tests/integration/run.sh: each checks its
effect from outside, with its twin.  "Landlock's rights tried": what
`tests/helpers/llhave` found this kernel takes (landlock: any ABI; tcp:
ABI 4; resolve_unix: ABI 9; udp and quiet: ABI 10; tsync: ABI 8);
where a right is missing, the test proves what holds instead (the
broker, the network namespace and the filter, the world) or says SKIP
with why.

{it}
## Expectations

As root and as `cordon-test`, on every kernel: `cordon -- true` runs,
`cordon -- cc` builds, the attempt under `cordon --` is held.  Without
user namespaces: under `cordon --` refused (125) or held; under
`--best-effort` no breach the banner did not name.  As each user,
cordon agrees with its probe: `cordon -- true` does not run while a
needed guarantee is NOT HELD, the banner names exactly those, and a
refusal names the same as the banner.  Every twin reaches everything;
every guest finishes.  The integration tests above finish and none
fails; the transparent capture's test passes (not skips) on every
kernel; where the kernel has a right past ABI 7, the tests that prove it
pass (not skip), and probe says Landlock holds the late pathname UNIX
sockets (RESOLVE_UNIX) and UDP beyond the grant (UDP).  `make kernels` exits 1 on any failure
(`judge.py --selftest` first shows each of these failing on a forged
console).

{fails}
Last run: {when}, {total} s for the whole matrix on {cpus} cores (TCG).
Rows: {keys}.
"""


def forged(edit=None):
    """A console where every expectation holds, then @edit(lines)."""
    lines = ["@@KERNEL 6.1.0-50-amd64", "@@LANDLOCK 2"]
    for user, _ in USERS:
        lines.append(f"@@GUAR {user} none")
        for t in ("probe", "run", "best-effort"):
            lines.append(f"@@RESULT user={user} test={t} status=0")
        lines.append(f"@@RESULT user={user} test=build status=0 built=yes")
        for t in ("contain", "contain-be"):
            lines.append(f"@@RESULT user={user} test={t} status=1 "
                         "verdict=held")
        lines.append(f"@@RESULT user={user} test=twin status=0 twin=ok")
    lines.append("@@LLHAVE tsync")
    for label in ("root", "user"):
        lines.append(f"@@IT PASS [{label}] test_standalone_threads_started"
                     "_before_the_library_are_held")
        lines.append(f"@@IT SKIP [{label}] test_udp_bind_only_the_granted"
                     "_port: SKIP: UDP ports need Landlock ABI 10")
        for t, labs in CAPTURE_PROOF:
            if label in labs:
                lines.append(f"@@IT PASS [{label}] {t}")
    lines.append("@@IT 4 passed, 0 failed, 2 skipped")
    lines.append("@@DONE")
    return "\n".join(edit(lines) if edit else lines) + "\n"


def sub(old, new):
    return lambda ls: [l.replace(old, new) for l in ls]


def selftest():
    """Each way a row can fail must fail it; the good row must pass."""
    import tempfile
    nu = "user=cordon-test-nouserns"
    banner = (f"@@NOTHELD cordon-test-nouserns contain-be: cordon: WARNING: "
              "--best-effort: NOT ENFORCED: truncate only under the "
              "writable roots (needs Landlock ABI 3 (Linux 6.2)); no signal"
              " to processes outside (needs x) [Linux 6.1]")
    signal = {"guarantee": "no signal to processes outside",
              "needed": True, "held": False, "held_by": [],
              "would_hold": "x"}

    def guar(unheld, held=("no udp",)):
        gs = [signal] + [{"guarantee": n, "needed": True, "held": False,
                          "held_by": [], "would_hold": "y"} for n in unheld]
        gs += [{"guarantee": n, "needed": True, "held": True,
                "held_by": ["the seccomp filter"], "would_hold": None}
               for n in held]
        return f"@@GUAR cordon-test-nouserns {json.dumps(gs)}"

    def refusal(n):
        return (f"@@NOTHELD cordon-test-nouserns contain: cordon: refusing "
                f"to run: {n}: nothing here holds it; it needs z (this is "
                "Linux 6.1)")

    def with_udp(held_by):
        """The kernel has UDP, its proofs pass, probe says @held_by."""
        def edit(ls):
            ls = [l.replace("@@LLHAVE tsync", "@@LLHAVE tsync udp")
                  for l in ls]
            ls += [f"@@IT PASS [{lab}] {t}" for t, labs in IT_PROOF["udp"]
                   for lab in labs]
            gs = json.dumps([{"guarantee": IT_HOLDER["udp"],
                              "needed": True, "held": True,
                              "held_by": held_by, "would_hold": None}])
            return [l for l in ls if not l.startswith(("@@GUAR root",
                                                       "@@GUAR cordon-test "))
                    ] + [f"@@GUAR root {gs}", f"@@GUAR cordon-test {gs}"]
        return edit

    refused = sub(f"{nu} test=run status=0", f"{nu} test=run status=125")
    refused_c = sub(f"{nu} test=contain status=1 verdict=held",
                    f"{nu} test=contain status=125 verdict=refused")
    refused = (lambda r, c: lambda ls: c(r(ls)))(refused, refused_c)
    be_breach = sub(f"{nu} test=contain-be status=1 verdict=held",
                    f"{nu} test=contain-be status=1 "
                    "verdict=BREACHED:truncated,signalled")
    cases = [
        ("good", None, 0),
        ("no @@DONE", lambda ls: ls[:-1], 1),
        ("a result missing",
         lambda ls: [l for l in ls if "user=root test=build" not in l], 1),
        ("a twin failed", sub("user=root test=twin status=0 twin=ok",
                              "user=root test=twin status=0 "
                              "twin=FAILED:tcp"), 1),
        ("refused as root", sub("user=root test=run status=0",
                                "user=root test=run status=125"), 1),
        ("not built as a user",
         sub("user=cordon-test test=build status=0 built=yes",
             "user=cordon-test test=build status=0 built=no"), 1),
        ("breached as a user",
         sub("user=cordon-test test=contain status=1 verdict=held",
             "user=cordon-test test=contain status=1 verdict=BREACHED:udp"),
         1),
        ("did not run as root",
         sub("user=root test=contain status=1 verdict=held",
             "user=root test=contain status=1 verdict=did-not-run"), 1),
        ("no userns: ran, breached",
         sub(f"{nu} test=contain status=1 verdict=held",
             f"{nu} test=contain status=1 verdict=BREACHED:tcp"), 1),
        ("no userns: refused", sub(f"{nu} test=contain status=1 "
                                   "verdict=held", f"{nu} test=contain "
                                   "status=125 verdict=refused"), 0),
        ("no userns: breaches, no banner", be_breach, 1),
        ("no userns: breaches the banner names",
         lambda ls: be_breach(ls) + [banner], 0),
        ("no userns: a breach the banner does not name",
         lambda ls: be_breach(ls) + [banner.replace("truncate", "chmod")],
         1),
        ("no userns: probe agrees", lambda ls: refused(ls) + [
            guar(["truncate only under the writable roots"]), banner,
            refusal("truncate only under the writable roots"),
            refusal("no signal to processes outside")], 0),
        ("no userns: ran, probe says not held", lambda ls: ls + [
            guar(["truncate only under the writable roots"]), banner], 1),
        ("no userns: the banner leaves out what probe says is not held",
         lambda ls: refused(ls) + [
             guar(["no udp", "truncate only under the writable roots"], ()),
             banner, refusal("truncate only under the writable roots"),
             refusal("no signal to processes outside")], 1),
        ("no userns: the banner names what probe says is held",
         lambda ls: refused(ls) + [
             guar([], ("truncate only under the writable roots",)),
             banner, refusal("truncate only under the writable roots"),
             refusal("no signal to processes outside")], 1),
        ("no userns: the refusal leaves out what the banner names",
         lambda ls: refused(ls) + [
             guar(["truncate only under the writable roots"]), banner,
             refusal("truncate only under the writable roots")], 1),
        ("an integration test failed",
         sub("@@IT SKIP [user] test_udp_bind", "@@IT FAIL [user] test_udp_bind"),
         1),
        ("the integration tests did not finish",
         lambda ls: [l for l in ls if "passed, 0 failed" not in l], 1),
        ("a right's proof skipped where the kernel has it",
         sub("@@IT PASS [root] test_standalone", "@@IT SKIP [root] test_standalone"),
         1),
        ("the capture's proof skipped",
         sub("@@IT PASS [user] test_capture_", "@@IT SKIP [user] test_capture_"),
         1),
        ("the capture's proof missing",
         lambda ls: [l for l in ls if "[root] test_capture_" not in l], 1),
        ("a right's proof skipped where the kernel lacks it", sub(
            "@@LLHAVE tsync", "@@LLHAVE "), 0),
        ("the kernel has UDP, probe says Landlock holds it",
         with_udp(["Landlock", "the seccomp filter"]), 0),
        ("the kernel has UDP, probe says not Landlock",
         with_udp(["the seccomp filter"]), 1),
    ]
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        for name, edit, want in cases:
            log = os.path.join(d, "log")
            with open(log, "w") as f:
                f.write(forged(edit))
            got = 1 if judge("6.1", parse(log), True) else 0
            if got != want:
                print(f"judge.py: selftest: {name}: "
                      f"{'failed' if got else 'passed'}, should have "
                      f"{'failed' if want else 'passed'}", file=sys.stderr)
                bad = 1
    print(f"judge.py: selftest: {len(cases)} cases, "
          f"{'FAILED' if bad else 'ok'}")
    return bad


def main():
    if sys.argv[1:] == ["--selftest"]:
        sys.exit(selftest())
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: judge.py RUNS OUT.md [README.md] | "
                 "judge.py --selftest")
    rows = []
    with open(sys.argv[1]) as f:
        for line in f:
            key, log, secs, booted = line.split()
            rows.append((key, parse(log), int(secs), booted == "0"))
    fails = []
    for key, g, _, booted in rows:
        fails += judge(key, g, booted)
    table = main_table(rows)
    guar = guarantee_table(rows)
    total = sum(r[2] for r in rows)
    print(table)
    print(guar)
    for f in fails:
        print("kernels: FAIL: " + f, file=sys.stderr)
    print(f"whole matrix: {total} s; "
          f"{len(fails) or 'no'} failure{'s' if len(fails) != 1 else ''}")
    flist = "".join(f"- FAIL: {f}\n" for f in fails) or "All held.\n"
    with open(sys.argv[2], "w") as f:
        f.write(DOC.format(
            guar=guar, table=table, fails=flist, it=it_table(rows),
            when=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            total=total, cpus=os.cpu_count(),
            keys=" ".join(r[0] for r in rows)))
    if len(sys.argv) == 4 and any(g["guar"] for _, g, _, _ in rows):
        put_readme(sys.argv[3], rows)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
