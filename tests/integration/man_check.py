#!/usr/bin/env python3
"""Compare what `cordon --help` lists with what the man page documents,
both ways.

    man_check.py HELP_FILE MAN_FILE

HELP_FILE holds the output of `cordon --help`; MAN_FILE is the roff
source of cordon(1).  Compared, each in both directions:

- options: from the help, every option of a definition line (an
  indented line starting with '-': "  -r, --read PATH   allow ...") and
  of the usage block (up to the first empty line); from the man page,
  every option of a .TP tag that starts with one and of the SYNOPSIS;
- subcommands ("probe", "session start"): those the usage lines name
  ("cordon probe") and the Commands: section lists, against those the
  SYNOPSIS names (".B cordon probe"); each must also have a section of
  its own (.SH PROBE, .SH SESSION);
- the synopses: the usage lines of the help against the SYNOPSIS
  entries, and the options each names ("probe --mode" in one and not
  the other); a subcommand the Commands: section lists has a usage line;
- modes: the names of the help's "Modes" section against the .TP tags
  of the man page's MODES;
- built-in profiles: the names of the help's "Built-in profiles"
  section against the .TP tags of BUILT-IN PROFILES.

Prints what each side lacks and exits 1 when they differ; prints the
sets ("options: ...", "subcommands: ...", "modes: ...", "profiles:
...") and exits 0 when they agree; 2 when a file is unusable (nothing
found of a kind: a parser that finds nothing proves nothing).
"""
import re
import sys

OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
NAMES = re.compile(r"^  ([a-z][a-z-]*(?:, [a-z][a-z-]*)*)(?: {2,}|$)")


def options_in(text):
    return set(OPTION.findall(text))


def sub_of(words):
    """The subcommand a synopsis names after "cordon": "" (a run),
    "probe", "session start"."""
    key = []
    for w in words:
        if not re.fullmatch(r"[a-z]+", w) or len(key) == 2:
            break
        if key and key[0] != "session":
            break
        key.append(w)
    return " ".join(key)


def parse_help(text):
    opts, cmds, usage = set(), set(), {}
    modes, profiles = set(), set()
    in_usage, section, entry = True, None, None
    for line in text.split("\n"):
        if in_usage:
            # the usage block: up to the first empty line, continuation
            # lines (not naming cordon) with the entry above
            if not line.strip():
                in_usage = False
                continue
            m = re.match(r"^(?:usage:)?\s+cordon\s+(.*)", line)
            if m:
                entry = sub_of(m.group(1).split())
                if entry:
                    cmds.add(entry)
                usage.setdefault(entry, set())
            if entry is not None:
                usage[entry] |= options_in(line)
            opts |= options_in(line)
            continue
        if re.match(r"^\S.*:$", line):
            section = line
            continue
        m = NAMES.match(line)
        if m and section and section.startswith("Modes"):
            modes |= set(m.group(1).split(", "))
            continue
        if m and section and section.startswith("Built-in profiles"):
            profiles |= set(m.group(1).split(", "))
            continue
        m = re.match(r"^ {2,}(-.*?)(?: {2,}|$)", line)
        if m:
            opts |= options_in(m.group(1))
            continue
        m = re.match(r"^  ([a-z]+(?: [a-z]+)?)(?= |$)", line)
        if m and section == "Commands:":
            cmds.add(sub_of(m.group(1).split()))
    return opts, cmds, usage, modes, profiles


def unroff(line):
    """The text of a roff line: font escapes dropped, \\- a hyphen."""
    line = re.sub(r"\\f(?:\[[^]]*\]|\(..|.)", "", line)
    line = line.replace("\\-", "-").replace("\\(em", "-")
    line = re.sub(r"^\.(?:B|I|BR|IR|BI|IB|RB|RI)\s+", "", line)
    return line.replace('"', "")


def parse_man(text):
    opts, cmds, sections, usage = set(), set(), set(), {}
    modes, profiles = set(), set()
    lines = text.split("\n")
    section, entry = None, None
    for i, line in enumerate(lines):
        if line.startswith(".SH"):
            section = unroff(line[3:]).strip()
            sections.add(section)
            continue
        if line.startswith(".TP") and i + 1 < len(lines):
            tag = unroff(lines[i + 1]).strip()
            if tag.startswith("-"):
                opts |= options_in(tag)
            names = [w for w in tag.split(", ")
                     if re.fullmatch(r"[a-z][a-z-]*", w)]
            if section == "MODES":
                modes |= set(names)
            elif section == "BUILT-IN PROFILES":
                profiles |= set(names)
        if section == "SYNOPSIS":
            if line.startswith(".br"):
                entry = None
                continue
            words = unroff(line).split()
            if line.startswith(".B") and words[:1] == ["cordon"]:
                entry = sub_of(words[1:])
                if entry:
                    cmds.add(entry)
                usage.setdefault(entry, set())
            if entry is not None:
                usage[entry] |= options_in(unroff(line))
            opts |= options_in(unroff(line))
    return opts, cmds, sections, usage, modes, profiles


def differ(kind, help_set, man_set, bad):
    for x in sorted(help_set - man_set):
        bad.append(f"{kind} {x}: in --help, not in the man page")
    for x in sorted(man_set - help_set):
        bad.append(f"{kind} {x}: in the man page, not in --help")


def main(argv):
    if len(argv) != 2:
        print("usage: man_check.py HELP_FILE MAN_FILE")
        return 2
    with open(argv[0], encoding="utf-8") as f:
        h_opts, h_cmds, h_usage, h_modes, h_profiles = parse_help(f.read())
    with open(argv[1], encoding="utf-8") as f:
        m_opts, m_cmds, sections, m_usage, m_modes, m_profiles = \
            parse_man(f.read())
    if not (h_opts and m_opts and h_cmds and h_modes and m_modes and
            h_profiles and m_profiles):
        print("man_check: found nothing of a kind: "
              f"help {sorted(h_opts)} {sorted(h_cmds)} {sorted(h_modes)} "
              f"{sorted(h_profiles)}, man {sorted(m_opts)} "
              f"{sorted(m_modes)} {sorted(m_profiles)}")
        return 2
    bad = []
    differ("option", h_opts, m_opts, bad)
    differ("subcommand", h_cmds, m_cmds, bad)
    for c in sorted(m_cmds & h_cmds):
        if c.split()[0].upper() not in sections:
            bad.append(f"subcommand {c}: no section "
                       f"{c.split()[0].upper()} in the man page")
    differ("synopsis", {c or "cordon" for c in h_usage},
           {c or "cordon" for c in m_usage}, bad)
    for c in sorted(h_cmds - set(h_usage)):
        bad.append(f"subcommand {c}: in --help's Commands, not in its usage")
    for c in sorted(set(h_usage) & set(m_usage)):
        differ(f"synopsis '{c or 'cordon'}': option", h_usage[c],
               m_usage[c], bad)
    differ("mode", h_modes, m_modes, bad)
    differ("profile", h_profiles, m_profiles, bad)
    for b in bad:
        print(b)
    if not bad:
        print("options:", " ".join(sorted(h_opts)))
        print("subcommands:", ", ".join(sorted(h_cmds)))
        print("modes:", " ".join(sorted(h_modes)))
        print("profiles:", " ".join(sorted(h_profiles)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
