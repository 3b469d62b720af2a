#!/usr/bin/env python3
"""The environment table (src/common/env_table.h) is the one home of every environment variable
cannon reads. Checks:

1. README.md's configuration tables are exactly what `cannon-info --env-markdown` prints from the
   table (--fix rewrites them);
2. the C libraries and tools call getenv only in src/common/env.c (everything else goes through
   cannon_env_get, which asserts in debug builds that the name is in the table);
3. every variable the Python package (python/cannon) reads is in the table.

usage: check_env_table.py CANNON_INFO SOURCE_DIR [--fix]
"""
import ast
import os
import re
import subprocess
import sys

BEGIN = "<!-- env-table:begin"
END = "<!-- env-table:end -->"


def generated(cannon_info):
    r = subprocess.run([cannon_info, "--env-markdown"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit(f"check_env_table: {cannon_info} --env-markdown failed: {r.stderr}")
    return r.stdout


def table_names(md):
    return {m.group(1) for m in re.finditer(r"^\| `([^`]+)` \|", md, re.M)}


def check_readme(readme, md, fix):
    text = open(readme, encoding="utf-8").read()
    b = text.find(BEGIN)
    e = text.find(END)
    if b < 0 or e < b:
        return [f"{readme}: no '{BEGIN} ... {END}' block"]
    b = text.index("\n", b) + 1
    if text[b:e] == md:
        return []
    if fix:
        with open(readme, "w", encoding="utf-8") as f:
            f.write(text[:b] + md + text[e:])
        print(f"check_env_table: rewrote the tables in {readme}")
        return []
    return [f"{readme}: the configuration tables differ from `cannon-info --env-markdown` "
            f"(run tests/consistency/check_env_table.py build/bin/cannon-info . --fix)"]


def check_getenv(src):
    errors = []
    allowed = {os.path.join("src", "common", "env.c")}
    for top in ("src", "tools"):
        for dirpath, _, files in os.walk(os.path.join(src, top)):
            rel_dir = os.path.relpath(dirpath, src)
            if rel_dir.startswith(os.path.join("tools", "cannonrun", "tests")):
                continue  # test programs print their own environment
            for fn in files:
                if not fn.endswith((".c", ".h")):
                    continue
                rel = os.path.join(rel_dir, fn)
                if rel in allowed:
                    continue
                for no, line in enumerate(open(os.path.join(src, rel), encoding="utf-8"), 1):
                    if line.lstrip().startswith(("*", "/*", "//")):
                        continue  # comments
                    if re.search(r"\b(secure_)?getenv\s*\(", line):
                        errors.append(f"{rel}:{no}: getenv outside src/common/env.c; use cannon_env_get")
    return errors


ENV_NAMES = {"env", "env_", "environ", "e"}


def _is_env(node):
    """os.environ, a variable named like an environment mapping, or `env if ... else os.environ`."""
    if isinstance(node, ast.Attribute) and node.attr == "environ":
        return True
    if isinstance(node, ast.Name) and node.id in ENV_NAMES:
        return True
    if isinstance(node, ast.IfExp):
        return _is_env(node.body) or _is_env(node.orelse)
    return False


def _str(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def python_env_names(pkg):
    """Names the package reads: keys of env.get/pop/setdefault, env[...], `"X" in env`, a helper
    called with (env, "X"), and any all-caps string constant with an underscore."""
    found = {}
    for dirpath, _, files in os.walk(pkg):
        for fn in files:
            if not fn.endswith(".py"):
                continue
            path = os.path.join(dirpath, fn)
            tree = ast.parse(open(path, encoding="utf-8").read(), path)
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Call):
                    f = node.func
                    if isinstance(f, ast.Attribute) and f.attr in ("get", "pop", "setdefault") and _is_env(f.value):
                        names.append(_str(node.args[0]) if node.args else None)
                    for a, b in zip(node.args, node.args[1:]):
                        if _is_env(a):
                            names.append(_str(b))
                elif isinstance(node, ast.Subscript) and _is_env(node.value):
                    names.append(_str(node.slice))
                elif isinstance(node, ast.Compare) and any(isinstance(o, (ast.In, ast.NotIn)) for o in node.ops):
                    if any(_is_env(c) for c in node.comparators):
                        names.append(_str(node.left))
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    if re.fullmatch(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)+", node.value):
                        names.append(node.value)
                for n in names:
                    if n:
                        found.setdefault(n, f"{os.path.relpath(path)}:{node.lineno}")
    return found


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    fix = "--fix" in argv
    if len(args) != 2:
        sys.exit(__doc__)
    cannon_info, src = args
    md = generated(cannon_info)
    names = table_names(md)
    errors = []
    if len(names) < 30:
        errors.append(f"cannon-info --env-markdown lists only {len(names)} variables")
    errors += check_readme(os.path.join(src, "README.md"), md, fix)
    errors += check_getenv(src)
    for n, where in sorted(python_env_names(os.path.join(src, "python", "cannon")).items()):
        if n not in names:
            errors.append(f"{where}: the Python package reads {n}, which src/common/env_table.h does not list")
    for e in errors:
        print("check_env_table: FAIL:", e)
    if errors:
        return 1
    print(f"check_env_table: ok ({len(names)} variables; README tables, getenv sites, Python reads)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
