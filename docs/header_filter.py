#!/usr/bin/env python3
"""Doxygen input filter for Sweep's headers.

Every public header opens with a plain `//` comment that says what it offers,
its semantics, errors and cost. Doxygen ignores plain comments, so this filter
hands that opening comment to Doxygen as the file's documentation (`@file`)
without the headers having to carry it twice. Runs of indented lines (the
signature and table layouts in those comments) stay preformatted. Everything
after the opening comment passes through unchanged.

`header_filter.py --check HEADER...` fails (exit 1, naming each file) when a
header has no opening comment, so no public header reaches the reference
without its page.
"""
import sys


def opening_comment(lines):
    n = 0
    while n < len(lines) and lines[n].lstrip().startswith("//"):
        n += 1
    return n


def strip(line):
    text = line.lstrip()[2:]
    return text[1:] if text.startswith(" ") else text


def escape(text):
    """Plain prose: characters Doxygen would read as commands, HTML or links
    are escaped outside `code spans`."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        part = parts[i]
        for ch in "\\@<>&$#":
            part = part.replace(ch, "\\" + ch)
        part = part.replace("::", "\\::")
        parts[i] = part
    return "`".join(parts)


def convert(comment):
    out = ["/** @file"]
    in_block = False
    for raw in comment:
        text = strip(raw).rstrip("\n").replace("*/", "*&#47;")
        indented = text.startswith("  ")
        if indented and not in_block:
            out.append("@verbatim")
            in_block = True
        elif not indented and in_block:
            out.append("@endverbatim")
            in_block = False
        out.append(text if in_block else escape(text))
    if in_block:
        out.append("@endverbatim")
    out.append("*/")
    return "\n".join(out) + "\n"


def main(path):
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    n = opening_comment(lines)
    if n == 0:
        sys.stdout.write("".join(lines))
        return
    sys.stdout.write(convert(lines[:n]))
    sys.stdout.write("".join(lines[n:]))


def check(paths):
    missing = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            if opening_comment(f.readlines()) == 0:
                missing.append(path)
    for path in missing:
        print(f"{path}: no opening comment (what it offers, semantics, errors, cost)",
              file=sys.stderr)
    print(f"{len(paths) - len(missing)} of {len(paths)} headers have an opening comment")
    return 1 if missing or not paths else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2:]))
    main(sys.argv[1])
