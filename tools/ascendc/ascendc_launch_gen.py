#!/usr/bin/env python3
"""Launch stubs for Ascend C kernel sources compiled for cannon's devices.

    ascendc_launch_gen.py --source K.cpp --include-dir DIR --stub STUB.cpp

reads the kernel entries of K.cpp (functions marked `__global__`, usually
`extern "C" __global__ __aicore__ void k(GM_ADDR x, ..., Tiling t)`) and writes

* DIR/aclrtlaunch_<k>.h for every entry k: CANN's host declaration
  `extern "C" uint32_t aclrtlaunch_<k>(uint32_t blockDim, aclrtStream stream, ...)`
  and `ACLRT_LAUNCH_KERNEL(k)`. A pointer parameter (GM_ADDR, `__gm__ T*`) becomes
  `void*`, an arithmetic scalar keeps its type, anything else (a tiling struct passed by
  value or by reference) becomes a pointer to it, which the stub dereferences when it
  launches;
* STUB.cpp: the kernel source itself (after `#line 1 "K.cpp"`, so messages name the
  original file and line), with every `k<<<blockDim, l2ctrl, stream>>>(args)` turned into
  a cannon launch, followed by the definitions of the aclrtlaunch_<k> functions. Each
  enqueues the kernel on the stream through cannon_ascendc::LaunchCores and returns 0
  or the error code at once; aclrtSynchronizeStream waits for the blocks.

Compile STUB.cpp as C++17 with the kernel source's folder first on the include path
(its quoted includes), then <prefix>/include/ascendc and <prefix>/include. Files whose
content would not change are not rewritten, so builds stay incremental.

--list prints the entries' names, one a line, and writes nothing. --rewrite OUT.cpp writes the
stub translation unit alone, for a source that may have no entry (ccec uses it for sources with
<<<>>> calls). Exit status 0 on
success, 1 with a message on stderr when the source cannot be read or has no entry.
Standard library only.
"""

import argparse
import os
import re
import sys

# Types a kernel may take by value that the host passes by value too.
SCALARS = {
    "bool", "char", "signed char", "unsigned char", "short", "short int", "unsigned short",
    "unsigned short int", "int", "signed", "signed int", "unsigned", "unsigned int", "long",
    "long int", "unsigned long", "unsigned long int", "long long", "long long int",
    "unsigned long long", "unsigned long long int", "float", "double", "size_t", "int8_t",
    "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t",
    "uintptr_t", "ptrdiff_t",
}

# Qualifiers of a kernel entry: __global__ marks it; the others may surround it.
ENTRY_QUALIFIERS = r"(?:__global__|__aicore__|__vector__|__cube__|__mix__\s*\([^)]*\)|inline|static)"
ENTRY_RE = re.compile(
    r"(?:\bextern\s+\"C\"\s+)?((?:" + ENTRY_QUALIFIERS + r"\s+)+)void\s+([A-Za-z_]\w*)\s*\(([^()]*)\)\s*\{")
CHEVRON_RE = re.compile(r"\b([A-Za-z_]\w*)\s*<<<(.*?)>>>", re.S)


def blank_comments_and_strings(text):
    """The text with comments and string/char literals replaced by spaces (newlines kept), so
    that offsets and line numbers still match the original. `extern "C"` is kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            lit = text[i:j]
            out.append(lit if lit == '"C"' else c + " " * (len(lit) - 2) + c if len(lit) >= 2 else lit)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_params(params):
    """Top-level comma split (template arguments may hold commas)."""
    parts, depth, cur = [], 0, []
    for ch in params:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    parts = [" ".join(p.split()) for p in parts]
    if parts == [""] or parts == ["void"]:
        return []
    return parts


class Param:
    """One kernel parameter: its host declaration and the expression the stub passes on."""

    def __init__(self, text, index):
        text = re.sub(r"\s*=.*$", "", text)  # default arguments
        m = re.match(r"^(.*?)([A-Za-z_]\w*)\s*((?:\[[^\]]*\])*)$", text)
        if m and m.group(1).strip() and not m.group(3):
            ctype, self.name = m.group(1).strip(), m.group(2)
        else:
            ctype, self.name = text, "arg%d" % index
        self.kernel_type = ctype
        bare = re.sub(r"\b(?:const|volatile|__gm__|__ubuf__|__restrict__|restrict)\b", " ", ctype)
        bare = " ".join(bare.split())
        if "*" in bare or bare in ("GM_ADDR", "AscendC::GM_ADDR"):
            self.kind = "pointer"
            self.host = "void* %s" % self.name
            self.arg = self.name
        elif bare in SCALARS or bare.startswith("std::") and bare[5:] in SCALARS:
            self.kind = "scalar"
            self.host = "%s %s" % (bare, self.name)
            self.arg = self.name
        else:
            self.kind = "struct"
            struct = bare.rstrip("&").strip()
            self.host = "%s* %s" % (struct, self.name)
            self.arg = "*%s" % self.name


class Entry:
    def __init__(self, name, params, line):
        self.name = name
        self.params = [Param(p, i) for i, p in enumerate(split_params(params))]
        self.line = line

    def prototype(self):
        args = ["uint32_t blockDim", "aclrtStream stream"] + [p.host for p in self.params]
        return "extern \"C\" uint32_t aclrtlaunch_%s(%s)" % (self.name, ", ".join(args))


def find_entries(text):
    clean = blank_comments_and_strings(text)
    entries, seen = [], set()
    for m in ENTRY_RE.finditer(clean):
        if "__global__" not in m.group(1):
            continue
        name = m.group(2)
        if name in seen:  # the same entry under alternative #if branches
            continue
        seen.add(name)
        entries.append(Entry(name, m.group(3), clean.count("\n", 0, m.start()) + 1))
    return entries


def rewrite_chevrons(text):
    """`k<<<blockDim, l2ctrl, stream>>>(args)` -> a launch of k on stream (comments and strings
    are left alone)."""
    clean = blank_comments_and_strings(text)
    out, last = [], 0
    for m in CHEVRON_RE.finditer(clean):
        config = text[m.start(2):m.end(2)]
        out.append(text[last:m.start()])
        # Same number of newlines as the original, so that #line stays right.
        out.append("::cannon_ascendc::ChevronLaunch<::cannon_ascendc::SubBlocks<CANNON_ASCENDC_MIX_KERNEL_V>()>"
                   "(\"%s\", %s, %s)" % (m.group(1), m.group(1), config))
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def header_text(entry):
    guard = "HEADER_ACLRTLAUNCH_%s_H" % re.sub(r"\W", "_", entry.name.upper())
    return (
        "#ifndef {g}\n#define {g}\n"
        "/* Generated by cannon's ascendc_launch_gen.py from the kernel entry {k}: launches it\n"
        " * on a cannon stream as blockDim blocks and returns 0 or the error code at once. */\n"
        "#include \"acl/acl_base.h\"\n\n"
        "#ifndef ACLRT_LAUNCH_KERNEL\n"
        "#define ACLRT_LAUNCH_KERNEL(kernel_func) aclrtlaunch_##kernel_func\n"
        "#endif\n\n"
        "{proto};\n"
        "#endif\n").format(g=guard, k=entry.name, proto=entry.prototype())


def stub_text(source_path, source_text, entries):
    src = os.path.abspath(source_path).replace("\\", "\\\\").replace("\"", "\\\"")
    lines = [
        "/* Generated by cannon's ascendc_launch_gen.py: the kernel source, then its launch stubs. */",
        "#include \"cannon_ascendc/launch.h\"",
        "#line 1 \"%s\"" % src,
    ]
    body = rewrite_chevrons(source_text)
    if not body.endswith("\n"):
        body += "\n"
    tail = ["#line 1 \"aclrtlaunch stubs of %s\"" % src]
    for e in entries:
        tail.append("")
        tail.append("%s;" % e.prototype())
        tail.append("extern \"C\" uint32_t aclrtlaunch_%s(%s)" % (
            e.name, ", ".join(["uint32_t blockDim", "aclrtStream stream"] + [p.host for p in e.params])))
        tail.append("{")
        for p in e.params:
            if p.kind == "struct":
                tail.append("    if (%s == nullptr)" % p.name)
                tail.append("        return static_cast<uint32_t>(cannonReportError(ACL_ERROR_INVALID_PARAM, "
                            "\"aclrtlaunch_%s: %s is NULL\"));" % (e.name, p.name))
        args = ", ".join(["\"%s\"" % e.name, e.name, "blockDim", "stream"] + [p.arg for p in e.params])
        tail.append("    return static_cast<uint32_t>(::cannon_ascendc::LaunchCores<"
                    "::cannon_ascendc::SubBlocks<CANNON_ASCENDC_MIX_KERNEL_V>()>(%s));" % args)
        tail.append("}")
    return "\n".join(lines) + "\n" + body + "\n".join(tail) + "\n"


def write_if_changed(path, text):
    try:
        with open(path, "r", encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    ap = argparse.ArgumentParser(description="aclrtlaunch_<kernel>.h headers and launch stubs for Ascend C "
                                             "kernel sources on cannon")
    ap.add_argument("--source", required=True, help="the kernel source")
    ap.add_argument("--include-dir", help="where aclrtlaunch_<kernel>.h go")
    ap.add_argument("--stub", help="the stub translation unit to write")
    ap.add_argument("--list", action="store_true", help="print the kernel entries and write nothing")
    ap.add_argument("--rewrite", help="write only the stub translation unit (entries optional)")
    a = ap.parse_args(argv)
    try:
        with open(a.source, "r", encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    except OSError as e:
        print("ascendc_launch_gen: cannot read %s: %s" % (a.source, e.strerror), file=sys.stderr)
        return 1
    entries = find_entries(text)
    if a.rewrite:
        write_if_changed(a.rewrite, stub_text(a.source, text, entries))
        return 0
    if not entries:
        print("ascendc_launch_gen: %s: no kernel entry (a function declared __global__ void ...(...) { ... })"
              % a.source, file=sys.stderr)
        return 1
    if a.list:
        for e in entries:
            print(e.name)
        return 0
    if not a.include_dir or not a.stub:
        print("ascendc_launch_gen: --include-dir and --stub are required without --list", file=sys.stderr)
        return 1
    for e in entries:
        write_if_changed(os.path.join(a.include_dir, "aclrtlaunch_%s.h" % e.name), header_text(e))
    write_if_changed(a.stub, stub_text(a.source, text, entries))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
