#!/usr/bin/env python3
"""The toolchain suite's results as a table, and its assertions.

    table.py RESULTS OUT.md

RESULTS: lines "LABEL WORKFLOW CONFIG RESULT DETAIL" (suite.sh).  Writes
the table (a row per workflow, a column per configuration and user) to
OUT.md and stdout.  Exit status 1 when an assertion fails: a workflow
that works bare does not work with its profile nor with the summary
pasted at most twice, or learned then -p does not work, or a pasted
line or a learned profile granted too wide ("bad").
"""
import collections
import sys

CONFIGS = ["bare", "default", "pasted", "profile", "learned"]


BEGIN = "<!-- make toolchains: the table below is table.py's -->"
END = "<!-- make toolchains: end -->"


def write_into(path, text):
    """The table between the markers of @path (doc/toolchains.md), or the
    whole file when it has none."""
    try:
        old = open(path).read()
    except OSError:
        old = ""
    i, j = old.find(BEGIN), old.find(END)
    if i >= 0 and j > i:
        text = old[:i + len(BEGIN)] + "\n" + text + old[j:]
    with open(path, "w") as f:
        f.write(text)


def main():
    res = collections.OrderedDict()
    labels = []
    for line in open(sys.argv[1], errors="replace"):
        parts = line.rstrip("\n").split(" ", 4)
        if len(parts) < 4:
            continue
        label, wf, config, result = parts[:4]
        detail = parts[4] if len(parts) > 4 else ""
        if label not in labels:
            labels.append(label)
        res.setdefault(wf, {}).setdefault(label, {})[config] = (result, detail)
    failures = []
    rows = []
    counts = collections.Counter()
    for wf, by in res.items():
        for label in labels:
            r = by.get(label, {})
            cells = []
            for c in CONFIGS:
                v = r.get(c, (("skip", "") if "setup" in r else ("-", "")))
                if c == "pasted" and v[0] == "ok":
                    cells.append("ok (%s)" % v[1].split(":")[0])
                elif c == "profile" and v[1]:
                    cells.append("%s (`%s`)" % (v[0], v[1].split(":")[0]))
                else:
                    cells.append(v[0])
                counts[c, v[0]] += 1
            if "setup" in r:
                cells = ["skip: " + r["setup"][1]] + [""] * 4
            rows.append("| %s | %s | %s |" % (wf, label, " | ".join(cells)))
            if r.get("bare", ("",))[0] != "ok":
                continue
            if r.get("profile", ("",))[0] != "ok" and r.get("pasted", ("",))[0] != "ok":
                failures.append("%s [%s]: neither its profile nor two pastes: %s / %s"
                                % (wf, label, r.get("profile", ("", ""))[1], r.get("pasted", ("", ""))[1]))
            if r.get("learned", ("",))[0] != "ok":
                failures.append("%s [%s]: learned then -p: %s" % (wf, label, r.get("learned", ("", ""))[1]))
            for c in CONFIGS:
                if r.get(c, ("",))[0] == "bad":
                    failures.append("%s [%s] %s: %s" % (wf, label, c, r[c][1]))
    out = ["| workflow | user | " + " | ".join(CONFIGS) + " |",
           "| --- | --- | " + " | ".join(["---"] * len(CONFIGS)) + " |"] + rows
    bare = sum(v for (c, r), v in counts.items() if c == "bare" and r == "ok")
    out.append("")
    out.append("Of %d runs that work bare: %s." % (bare, ", ".join(
        "%s %d" % (c, counts[c, "ok"]) for c in CONFIGS[1:])))
    if failures:
        out.append("")
        out.append("Assertions failed:")
        out += ["- " + f for f in failures]
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if sys.argv[2] != "/dev/null":
        write_into(sys.argv[2], text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
