#!/usr/bin/env python3
"""Check the layering of the product code (shim/, enforce/) against a
declared order of its subsystems, so that the structure is checked, not
remembered.

    check-layers.py [--root DIR] [--layers FILE]

--root DIR     the tree to read (default: this repository's root)
--layers FILE  the declared order (default: DIR/scripts/layers.txt)

The layers file: '#' starts a comment, blank lines are skipped; every
other line is one layer, top to bottom: the layers declared first may
include those below them, never the reverse.  A line holds one or more
path prefixes, separated by blanks, each relative to the root: a folder
ends in '/' (everything under it, recursively), anything else names one
file.  Every product file (*.c, *.h under shim/ and enforce/) belongs to
the layer of its longest matching prefix.

Every include names its file from the top of the tree (-iquote .):
    #include "enforce/broker/broker.h"
Angle-bracket includes are the system's and are not read.  A unit is a
.c file and the .h of the same stem in the same folder (a.c + a.h);
unit a depends on unit b when a file of a includes a file of b.

Fails on, one line per problem ("file:line: what: why"):
  - a product file in no layer;
  - an include that names no file from the top of the tree;
  - an include of a file in a layer above the includer's ("back up");
  - an include, from outside a subsystem of enforce/ (a folder
    enforce/D/), of any of its files but its one interface, enforce/D/D.h;
  - a circle among units (each strongly connected component of more than
    one unit, with the includes that tie it);
  - a product file over 600 lines;
  - a platform conditional (#if, #ifdef, #ifndef, #elif testing __APPLE__,
    __MACH__, __linux__, __linux or _WIN32) inside braces (a function
    body) outside a platform file (named *_linux.[ch] or *_darwin.[ch],
    or under a folder darwin/, linux/ or compat/);
  - a prefix of the layers file that is declared twice, or owns no file.
Comments and string literals are stripped before anything is read.

Exit status: 0 clean (one summary line), 1 problems found, 2 bad usage
or an unreadable root or layers file.
"""
import argparse
import os
import re
import sys

PRODUCT_DIRS = ("shim", "enforce")
MAX_LINES = 600
PLATFORM_MACROS = re.compile(r"\b(__APPLE__|__MACH__|__linux__|__linux|_WIN32)\b")
CONDITIONAL = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef)\b(.*)$")
DIRECTIVE = re.compile(r"^\s*#")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]*)"')
PLATFORM_FILE = re.compile(r"_(linux|darwin)\.[ch]$")
PLATFORM_DIRS = {"darwin", "linux", "compat"}


def fatal(msg):
    print("check-layers: " + msg, file=sys.stderr)
    sys.exit(2)


def strip(text):
    """Two copies of text with the same lines and columns: comments made
    blanks in the first; comments and the insides of string and character
    literals made blanks in the second."""
    keep, blank = [], []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            gap = "".join(ch if ch == "\n" else " " for ch in text[i:end])
            keep.append(gap)
            blank.append(gap)
            i = end
        elif c == "/" and nxt == "/":
            j = i
            while j < n and text[j] != "\n":
                j += 2 if text[j] == "\\" and j + 1 < n else 1
            gap = "".join(ch if ch == "\n" else " " for ch in text[i:j])
            keep.append(gap)
            blank.append(gap)
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" and j + 1 < n else 1
            closed = j < n and text[j] == c
            body = text[i + 1:j]
            keep.append(text[i:j + closed])
            blank.append(c + " " * len(body) + (c if closed else ""))
            i = j + closed
        else:
            keep.append(c)
            blank.append(c)
            i += 1
    return "".join(keep).split("\n"), "".join(blank).split("\n")


def read_layers(path, root):
    """[(line number, [prefixes])] of the layers file, and its problems."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        fatal("cannot read the layers file %s: %s" % (path, e.strerror))
    except UnicodeDecodeError:
        fatal("the layers file %s is not UTF-8 text" % path)
    layers, problems, seen = [], [], {}
    for num, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        for w in words:
            if w in seen:
                problems.append((path, num, "prefix declared twice",
                                 "%s is also on line %d" % (w, seen[w])))
            seen.setdefault(w, num)
            if not w.endswith("/") and os.path.isdir(os.path.join(root, w)):
                problems.append((path, num, "folder without '/'",
                                 "%s is a folder: write %s/" % (w, w)))
        layers.append((num, words))
    if not layers:
        fatal("%s declares no layer" % path)
    return layers, problems


def product_files(root):
    found = []
    for top in PRODUCT_DIRS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    found.append(os.path.relpath(os.path.join(d, name), root))
    return [p.replace(os.sep, "/") for p in found]


def layer_of(path, layers):
    """(layer index, prefix) of the longest prefix matching path, or None."""
    best = None
    for idx, (_, prefixes) in enumerate(layers):
        for p in prefixes:
            hit = path.startswith(p) if p.endswith("/") else path == p
            if hit and (best is None or len(p) > len(best[1])):
                best = (idx, p)
    return best


def is_platform_file(path):
    parts = path.split("/")
    return bool(PLATFORM_FILE.search(parts[-1])) or bool(PLATFORM_DIRS & set(parts[:-1]))


def platform_in_body(path, blank):
    """Problems for the platform conditionals of blank (its lines) that
    stand inside braces.  Preprocessor lines (and their continuations)
    count no braces."""
    problems, depth, i = [], 0, 0
    while i < len(blank):
        first = i
        if DIRECTIVE.match(blank[i]):
            text = blank[i]
            while text.endswith("\\") and i + 1 < len(blank):
                i += 1
                text = text[:-1] + " " + blank[i]
            m = CONDITIONAL.match(text)
            macro = PLATFORM_MACROS.search(m.group(2)) if m else None
            if macro and depth > 0:
                problems.append((path, first + 1, "platform #%s in a function body" % m.group(1),
                                 "tests %s at brace depth %d; only platform files "
                                 "(*_linux.c, *_darwin.c, darwin/, linux/, compat/) may"
                                 % (macro.group(1), depth)))
        else:
            depth += blank[i].count("{") - blank[i].count("}")
        i += 1
    return problems


def strongly_connected(nodes, edges):
    """Tarjan's components of the graph (iterative), each a sorted list."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = 0
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(sorted(comp))
    return comps


def unit_of(path):
    return path.rsplit(".", 1)[0]


def private_include(f, target):
    """A subsystem of enforce/ (a folder enforce/D/) is known outside by
    its one header enforce/D/D.h: any other of its files included from
    outside the folder is its inside.  Return (folder, interface) then."""
    parts = target.split("/")
    if len(parts) != 3 or parts[0] != "enforce" or f.startswith("/".join(parts[:2]) + "/"):
        return None
    iface = "%s/%s/%s.h" % (parts[0], parts[1], parts[1])
    return None if target == iface else ("enforce/%s/" % parts[1], iface)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Check the layering of shim/ and enforce/.")
    ap.add_argument("--root", default=os.path.dirname(here))
    ap.add_argument("--layers")
    args = ap.parse_args()
    root = args.root
    if not os.path.isdir(root):
        fatal("no such folder: %s" % root)
    layers_path = args.layers or os.path.join(root, "scripts", "layers.txt")
    layers, problems = read_layers(layers_path, root)
    rel = os.path.relpath(layers_path, root)
    if not rel.startswith(".." + os.sep):
        layers_path = rel  # named as the files are, from the root
        problems = [(layers_path,) + p[1:] for p in problems]

    files = product_files(root)
    where, owned = {}, set()
    for f in files:
        hit = layer_of(f, layers)
        if hit is None:
            problems.append((f, 1, "in no layer", "no prefix of %s matches it" % layers_path))
        else:
            where[f] = hit
            owned.add(hit[1])
    for num, prefixes in layers:
        for p in prefixes:
            if p not in owned:
                problems.append((layers_path, num, "prefix owns no file",
                                 "%s matches no product file (or only ones a longer "
                                 "prefix takes)" % p))

    def name(f):
        idx, prefix = where[f]
        return "layer %d (%s)" % (idx + 1, prefix)

    edges, ties = {}, {}
    product = set(files)
    for f in files:
        try:
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError as e:
            fatal("cannot read %s: %s" % (f, e.strerror))
        keep, blank = strip(text)
        count = len(text.splitlines())
        if count > MAX_LINES:
            problems.append((f, MAX_LINES + 1, "file too long",
                             "%d lines, more than %d: split it" % (count, MAX_LINES)))
        if not is_platform_file(f):
            problems.extend(platform_in_body(f, blank))
        for num, line in enumerate(keep, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            if not os.path.isfile(os.path.join(root, target)):
                problems.append((f, num, "include names no file",
                                 '"%s" is not a file from the top of the tree' % target))
                continue
            if target not in product:
                continue
            if f in where and target in where and where[target][0] < where[f][0]:
                problems.append((f, num, "include runs back up",
                                 "%s is in %s, above this file's %s"
                                 % (target, name(target), name(f))))
            inside = private_include(f, target)
            if inside:
                problems.append((f, num, "include of another subsystem's inside",
                                 "%s is known outside %s by %s alone"
                                 % (target, inside[0], inside[1])))
            a, b = unit_of(f), unit_of(target)
            if a != b:
                edges.setdefault(a, set()).add(b)
                ties.setdefault((a, b), []).append((f, num, target))

    units = sorted({unit_of(f) for f in files})
    circles = [c for c in strongly_connected(units, edges) if len(c) > 1]
    for comp in circles:
        inside = set(comp)
        tie = sorted(t for (a, b), ts in ties.items() if a in inside and b in inside for t in ts)
        problems.append((tie[0][0], tie[0][1], "circle of %d units" % len(comp),
                         "%s; tied by %s" % (" <-> ".join(comp),
                                             ", ".join("%s:%d includes %s" % t for t in tie))))

    if problems:
        for f, num, what, why in sorted(problems):
            print("%s:%d: %s: %s" % (f, num, what, why))
        print("check-layers: %d problem%s" % (len(problems), "s"[:len(problems) > 1]),
              file=sys.stderr)
        return 1
    print("layers: %d files in %d layer%s, no circle, no include back up"
          % (len(files), len(layers), "s"[:len(layers) > 1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
