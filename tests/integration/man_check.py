#!/usr/bin/env python3
"""Compare the options and subcommands `cordon --help` lists with those
the man page documents.

    man_check.py HELP_FILE MAN_FILE

HELP_FILE holds the output of `cordon --help`; MAN_FILE is the roff
source of cordon(1).  From the help: every option of a definition line
(an indented line starting with '-': "  -r, --read PATH   allow ...")
and of the usage block ("cordon probe [--json]", up to the first empty line), and
the subcommands the usage lines name ("cordon probe") and the Commands:
section lists.  From
the man page: every option of a .TP tag that starts with one and of the
SYNOPSIS, and the subcommands the SYNOPSIS names (".B cordon probe"),
each of which must also have a section of its own (.SH PROBE).

Prints what each side lacks and exits 1 when they differ; prints the
two sets and exits 0 when they agree; 2 when a file is unusable (no
option found at all: a parser that finds nothing proves nothing).
"""
import re
import sys

OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")


def options_in(text):
    return set(OPTION.findall(text))


def parse_help(text):
    opts, cmds = set(), set()
    usage = True
    section = None
    for line in text.split("\n"):
        if usage:
            # the usage block: up to the first empty line, continuation
            # lines included
            if not line.strip():
                usage = False
                continue
            m = re.match(r"^(?:usage:)?\s+cordon\s+(\S+)", line)
            if m and re.fullmatch(r"[a-z]+", m.group(1)):
                cmds.add(m.group(1))
            opts |= options_in(line)
            continue
        if re.match(r"^\S.*:$", line):
            section = line
            continue
        m = re.match(r"^ {2,}(-.*?)(?: {2,}|$)", line)
        if m:
            opts |= options_in(m.group(1))
            continue
        m = re.match(r"^  ([a-z]+) {2,}\S", line)
        if m and section == "Commands:":
            cmds.add(m.group(1))
    return opts, cmds


def unroff(line):
    """The text of a roff line: font escapes dropped, \\- a hyphen."""
    line = re.sub(r"\\f(?:\[[^]]*\]|\(..|.)", "", line)
    line = line.replace("\\-", "-").replace("\\(em", "-")
    line = re.sub(r"^\.(?:B|I|BR|IR|BI|IB|RB|RI)\s+", "", line)
    return line.replace('"', "")


def parse_man(text):
    opts, cmds, sections = set(), set(), set()
    lines = text.split("\n")
    section = None
    for i, line in enumerate(lines):
        if line.startswith(".SH"):
            section = unroff(line[3:]).strip()
            sections.add(section)
            continue
        if line.startswith(".TP") and i + 1 < len(lines):
            tag = unroff(lines[i + 1]).strip()
            if tag.startswith("-"):
                opts |= options_in(tag)
        if section == "SYNOPSIS" and not line.startswith(".br"):
            words = unroff(line).split()
            if line.startswith(".B") and words[:1] == ["cordon"] and \
                    len(words) > 1:
                cmds.add(words[1])
            opts |= options_in(unroff(line))
    return opts, cmds, sections


def main(argv):
    if len(argv) != 2:
        print("usage: man_check.py HELP_FILE MAN_FILE")
        return 2
    with open(argv[0], encoding="utf-8") as f:
        h_opts, h_cmds = parse_help(f.read())
    with open(argv[1], encoding="utf-8") as f:
        m_opts, m_cmds, sections = parse_man(f.read())
    if not h_opts or not m_opts or not h_cmds:
        print("man_check: found no option or no subcommand: "
              f"help {sorted(h_opts)} {sorted(h_cmds)}, man {sorted(m_opts)}")
        return 2
    bad = []
    for o in sorted(h_opts - m_opts):
        bad.append(f"option {o}: in --help, not in the man page")
    for o in sorted(m_opts - h_opts):
        bad.append(f"option {o}: in the man page, not in --help")
    for c in sorted(h_cmds - m_cmds):
        bad.append(f"subcommand {c}: in --help, not in the man page")
    for c in sorted(m_cmds - h_cmds):
        bad.append(f"subcommand {c}: in the man page, not in --help")
    for c in sorted(m_cmds & h_cmds):
        if c.upper() not in sections:
            bad.append(f"subcommand {c}: no section {c.upper()} in the "
                       "man page")
    for b in bad:
        print(b)
    if not bad:
        print("options:", " ".join(sorted(h_opts)))
        print("subcommands:", " ".join(sorted(h_cmds)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
