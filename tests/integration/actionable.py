#!/usr/bin/env python3
"""The options cordon suggests, read from its own stderr as a user would
paste them (used by t_actionable.sh).

    actionable.py CORDON STDERR OUTDIR
    actionable.py --least CORDON OPTIONS_FILE BOUND
    actionable.py --record RECORDS NAMES

Reads the option table from `CORDON --help` (which options take an
argument), then the STDERR of a run, and writes three sets of options
to OUTDIR:
  - opts.lines: the union (in order, each (option, value) once) of the
    "; allow with OPTIONS" tails of the denial lines ("cordon: denied");
  - opts.groups: the same for the other lines of cordon's that have
    such a tail (the summary's entries), if any;
  - opts.summary: the options of the summary's final line, "cordon:
    allow all of it with: OPTIONS".
Each output file holds the option words NUL-terminated, ready for the
rerun.  The words are split as a POSIX shell (and bash, for $'...')
would split a pasted line; a word that the shell would not take as it
is (an unquoted ; | & < > ( ) ` $ * ? [ or a word that is not an
option or its argument) is an error: pasted, it would not do what the
line says.  Nothing is evaluated.

Exit status: 0 every set parsed (and neither denial lines nor the
final line missing); 1 otherwise, with one line per problem on stdout,
naming the set (lines, groups, summary) and quoting the offending
text.  A set that failed is written empty.

With --least, checks that the options in OPTIONS_FILE (as written
above) grant no more than BOUND needs: with a path, no --read, --write
or --exec names a strict ancestor of it; with "--connect" or "--bind",
no option opens the whole network (--net, a mode with network).
Status 1 and one line per option that grants more.

With --record, checks that one of the audit records in RECORDS (JSON
Lines) names one of NAMES (a file, one fixed string a line): a string
value of the record holds it (not the program, the rule or the grant:
the object itself), or for "[OP]" its operation is OP.
Status 1 when none does.
"""
import json
import os
import re
import subprocess
import sys

TAIL = "; allow with "
FINAL = re.compile(r"^cordon: allow all of it with:? (.*)$")
META = set(";|&<>()`*?[")
ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b",
        "e": "\x1b", "E": "\x1b", "f": "\f", "v": "\v", "\\": "\\",
        "'": "'", '"': '"', "?": "?"}


class Unpasteable(Exception):
    pass


def ansi_c(s, i):
    """Decode a bash $'...' body from s[i]; return (text, index after
    the closing quote)."""
    out = []
    while i < len(s):
        c = s[i]
        if c == "'":
            return "".join(out), i + 1
        if c != "\\":
            out.append(c)
            i += 1
            continue
        i += 1
        if i >= len(s):
            break
        c = s[i]
        if c in ANSI:
            out.append(ANSI[c])
            i += 1
        elif c == "x":
            m = re.match(r"[0-9A-Fa-f]{1,2}", s[i + 1:])
            if not m:
                raise Unpasteable("bad \\x escape in $'...'")
            out.append(chr(int(m.group(0), 16)))
            i += 1 + len(m.group(0))
        elif c in "01234567":
            m = re.match(r"[0-7]{1,3}", s[i:])
            out.append(chr(int(m.group(0), 8) & 0xFF))
            i += len(m.group(0))
        else:
            out.append("\\" + c)
            i += 1
    raise Unpasteable("unterminated $'...'")


def split_words(s, home):
    """Split s as the shell splits a command line, without expanding
    anything but a leading ~ (which cordon expands too)."""
    words, cur, started, i = [], [], False, 0
    while i < len(s):
        c = s[i]
        if c in " \t":
            if started:
                words.append("".join(cur))
                cur, started = [], False
            i += 1
        elif c == "'":
            j = s.find("'", i + 1)
            if j < 0:
                raise Unpasteable("unterminated '...'")
            cur.append(s[i + 1:j])
            started, i = True, j + 1
        elif c == '"':
            i += 1
            while i < len(s) and s[i] != '"':
                if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in '$`"\\':
                    i += 1
                elif s[i] in "$`":
                    raise Unpasteable("unescaped %r inside \"...\"" % s[i])
                cur.append(s[i])
                i += 1
            if i >= len(s):
                raise Unpasteable('unterminated "..."')
            started, i = True, i + 1
        elif c == "$" and s[i + 1:i + 2] == "'":
            text, i = ansi_c(s, i + 2)
            cur.append(text)
            started = True
        elif c == "\\":
            if i + 1 >= len(s):
                raise Unpasteable("a trailing backslash")
            cur.append(s[i + 1])
            started, i = True, i + 2
        elif c in META or c == "$" or c == "#" and not started:
            raise Unpasteable("unquoted %r" % c)
        elif c == "~" and not started:
            cur.append(home)
            started, i = True, i + 1
        else:
            cur.append(c)
            started, i = True, i + 1
    if started:
        words.append("".join(cur))
    return words


def option_table(cordon):
    """{option: takes_argument} from cordon's --help."""
    text = subprocess.run([cordon, "--help"], capture_output=True,
                          text=True).stdout
    table = {}
    for line in text.splitlines():
        m = re.match(r"^\s+(?:(-\w),\s+)?(--[\w-]+)(?:[ =]([A-Z][A-Z|]*))?"
                     r"(?:\s|$)", line)
        if not m:
            continue
        for name in (m.group(1), m.group(2)):
            if name:
                table[name] = table.get(name, False) or bool(m.group(3))
    return table


def options(words, table):
    """[(option, value or None)] from the words; every word must be an
    option cordon lists, or its argument."""
    out, i = [], 0
    while i < len(words):
        w = words[i]
        name, eq, val = w.partition("=") if w.startswith("--") else (w, "", "")
        if name not in table:
            raise Unpasteable("%r is not an option of cordon --help" % w)
        if table[name] and not eq:
            if i + 1 >= len(words):
                raise Unpasteable("%s lacks its argument" % w)
            val = words[i + 1]
            i += 1
        elif not table[name] and eq:
            raise Unpasteable("%s takes no argument" % name)
        out.append((name, val if table[name] else None))
        i += 1
    if not out:
        raise Unpasteable("no option at all")
    return out


def words_of(pairs):
    seen, out = set(), []
    for p in pairs:
        if p in seen:
            continue
        seen.add(p)
        out.append(p[0])
        if p[1] is not None:
            out.append(p[1])
    return out


def write_words(path, words):
    with open(path, "wb") as f:
        for w in words:
            f.write(w.encode("utf-8", "surrogateescape") + b"\0")


FS = {"-r", "--read", "-w", "--write", "-x", "--exec"}


def broader(pairs, bound):
    """The options among pairs that grant more than bound needs."""
    out = []
    for name, val in pairs:
        if bound in ("--connect", "--bind"):
            wide = name == "--net" or (name in ("-m", "--mode")
                                       and val.endswith("-net"))
        elif name in FS:
            p = os.path.normpath(val)
            wide = p != bound and (p == "/" or bound.startswith(p + "/"))
        else:
            wide = False
        if wide:
            out.append(name + ("" if val is None else " " + val))
    return out


def least(cordon, path, bound):
    table = option_table(cordon)
    with open(path, "rb") as f:
        words = [w.decode("utf-8", "surrogateescape")
                 for w in f.read().split(b"\0")[:-1]]
    if bound not in ("--connect", "--bind"):
        bound = os.path.normpath(bound)
    wide = broader(options(words, table), bound)
    for w in wide:
        print("%r grants more than %r needs" % (w, bound))
    return 1 if wide else 0


def tails(text, home, table, problems):
    """{set: [(option, value)]} from the tails of cordon's lines, and
    the count of denial lines with a tail."""
    sets, denials = {"lines": [], "groups": []}, 0
    for line in text:
        k = line.rfind(TAIL)
        if not line.startswith("cordon: ") or FINAL.match(line) or k < 0:
            continue
        name = "lines" if line.startswith("cordon: denied") else "groups"
        denials += name == "lines"
        try:
            sets[name] += options(split_words(line[k + len(TAIL):], home),
                                  table)
        except Unpasteable as e:
            problems.append("%s: %s in: %r" % (name, e, line))
    return sets, denials


def final_line(text, home, table, problems):
    finals = [m.group(1) for m in map(FINAL.match, text) if m]
    if len(finals) != 1:
        problems.append("summary: %d final 'cordon: allow all of it with:'"
                        " lines, expected 1" % len(finals))
        return []
    try:
        return options(split_words(finals[0], home), table)
    except Unpasteable as e:
        problems.append("summary: %s in: %r" % (e, finals[0]))
        return []


def record(path, names_path):
    with open(names_path, encoding="utf-8", errors="surrogateescape") as f:
        names = [n for n in f.read().split("\n") if n]
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if not isinstance(rec, dict):
                continue
            values = [v for k, v in rec.items() if isinstance(v, str)
                      and k not in ("allow", "rule", "program")]
            for n in names:
                if n[:1] == "[" and n[-1:] == "]":
                    if rec.get("operation") == n[1:-1]:
                        return 0
                elif any(n in v for v in values):
                    return 0
    print("no record names any of %r" % names)
    return 1


def main():
    if sys.argv[1] == "--least":
        return least(*sys.argv[2:5])
    if sys.argv[1] == "--record":
        return record(*sys.argv[2:4])
    cordon, stderr, outdir = sys.argv[1:4]
    home = os.environ.get("HOME", "")
    table = option_table(cordon)
    if "--write" not in table:
        print("cannot read the options from %s --help" % cordon)
        return 1
    with open(stderr, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read().split("\n")
    problems = []
    sets, denials = tails(text, home, table, problems)
    if not denials:
        problems.append("lines: no denial line has a '%s' tail"
                        % TAIL.strip())
    sets["summary"] = final_line(text, home, table, problems)
    for name, pairs in sets.items():
        bad = any(p.startswith(name + ":") for p in problems)
        write_words(os.path.join(outdir, "opts." + name),
                    [] if bad else words_of(pairs))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
