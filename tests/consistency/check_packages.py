#!/usr/bin/env python3
"""tools/debian-packages.txt is the one list of the Debian packages cannon needs. Checks that
README.md's dependency table is generated from it (--fix rewrites the table), and that the
Makefile and .ci/run install through tools/install-deps.sh instead of naming packages themselves.

usage: check_packages.py SOURCE_DIR [--fix]
"""
import os
import re
import sys

BEGIN = "<!-- packages:begin"
END = "<!-- packages:end -->"
GROUPS = ("build", "test", "ci", "bench")


def read_list(path):
    rows = []
    for no, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) != 3 or parts[1] not in GROUPS:
            sys.exit(f"check_packages: {path}:{no}: expected 'PACKAGE GROUP WHAT-FOR' with GROUP in {GROUPS}")
        rows.append(parts)
    return rows


def markdown(rows):
    out = ["| package | group | needed for |", "|---|---|---|"]
    for group in GROUPS:
        out += [f"| `{p}` | {g} | {what} |" for p, g, what in rows if g == group]
    return "\n".join(out) + "\n"


def main(argv):
    fix = "--fix" in argv
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        sys.exit(__doc__)
    src = args[0]
    rows = read_list(os.path.join(src, "tools", "debian-packages.txt"))
    errors = []
    names = [p for p, _, _ in rows]
    if len(set(names)) != len(names):
        errors.append("tools/debian-packages.txt names a package twice")

    readme = os.path.join(src, "README.md")
    text = open(readme, encoding="utf-8").read()
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < b:
        errors.append(f"README.md: no '{BEGIN} ... {END}' block")
    else:
        b = text.index("\n", b) + 1
        md = markdown(rows)
        if text[b:e] != md:
            if fix:
                with open(readme, "w", encoding="utf-8") as f:
                    f.write(text[:b] + md + text[e:])
                print("check_packages: rewrote the table in README.md")
            else:
                errors.append("README.md: the dependency table differs from tools/debian-packages.txt "
                              "(run tests/consistency/check_packages.py . --fix)")

    for rel in ("Makefile", os.path.join(".ci", "run")):
        body = open(os.path.join(src, rel), encoding="utf-8").read()
        if "tools/install-deps.sh" not in body:
            errors.append(f"{rel} does not run tools/install-deps.sh")
        if re.search(r"apt-get\s+install", body):
            errors.append(f"{rel} installs packages itself; tools/install-deps.sh does that from the list")

    for err in errors:
        print("check_packages: FAIL:", err)
    if errors:
        return 1
    print(f"check_packages: ok ({len(rows)} packages)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
