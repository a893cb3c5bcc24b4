"""What the docs-and-tree checks of `make lint` share (tools/lint-*.py): the tree's C and
assembly sources, their #include lines resolved to files, the numeric #defines of headers
evaluated, and C integer expressions. Python 3 standard library only."""
import os
import re
import subprocess

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SOURCE_EXTS = (".c", ".h", ".S")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
DEFINE_RE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)[ \t]+((?:[^\n\\]|\\\n)*)", re.M)
COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        return f.read()


def tracked(*patterns):
    """The tracked files matching git pathspecs (the tree as committed or staged)."""
    out = subprocess.run(["git", "ls-files", "--", *patterns], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return [p for p in out.splitlines() if os.path.exists(os.path.join(ROOT, p))]


def sources():
    return [p for p in tracked() if p.endswith(SOURCE_EXTS)]


def includes(path):
    """(kind, name, resolved) for each #include of a file: kind '<' or '"'; resolved is the
    tree path a quoted include names (the file's folder, then include/, then the top, as
    the Makefile's -Iinclude -I. give it), or None."""
    out = []
    for kind, name in INCLUDE_RE.findall(read(path)):
        resolved = None
        if kind == '"':
            for base in (os.path.dirname(path), "include", ""):
                cand = os.path.normpath(os.path.join(base, name))
                if os.path.exists(os.path.join(ROOT, cand)):
                    resolved = cand
                    break
        out.append((kind, name, resolved))
    return out


def c_int(expr, defines):
    """The value of a C integer expression made of numbers, defined names and + - * / << >>
    ( ), or None."""
    expr = COMMENT_RE.sub(" ", expr).replace("\\\n", " ").strip()
    known = {"UINT64_MAX": 2**64 - 1, "UINT32_MAX": 2**32 - 1, "UINT16_MAX": 2**16 - 1,
             "UINT8_MAX": 255, "INT32_MAX": 2**31 - 1, "INT64_MAX": 2**63 - 1}

    def name(m):
        n = m.group(0)
        if n in known:
            return str(known[n])
        if n in defines and defines[n] is not None:
            return str(defines[n])
        raise ValueError(n)

    try:
        e = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b", lambda m: str(int(m.group(1), 0)), expr)
        e = re.sub(r"\(\s*(?:u?int(?:8|16|32|64)_t|unsigned(?: long)*|size_t)\s*\)", "", e)
        e = re.sub(r"[A-Za-z_]\w*", name, e)
        if not re.fullmatch(r"[\d\s+\-*/()<>]*", e) or not e.strip():
            return None
        return int(eval(e.replace("/", "//"), {"__builtins__": {}}))  # digits and operators only
    except (ValueError, SyntaxError, ZeroDivisionError, TypeError):
        return None


def defines(paths):
    """Every numeric #define of the given files, evaluated (names defined in terms of other
    names are resolved across all of them)."""
    raw = {}
    for p in paths:
        for n, v in DEFINE_RE.findall(read(p)):
            raw.setdefault(n, v)
    vals = {}
    for _ in range(4):  # names defined through other names: a few rounds settle them
        for n, v in raw.items():
            if vals.get(n) is None:
                vals[n] = c_int(v, vals)
    return vals


def header_defines():
    """The numeric #defines of the tree (the names docs may cite): every tracked header's,
    then those of .c files for names no header defines."""
    src = sources()
    return defines([p for p in src if p.endswith(".h")] + [p for p in src if p.endswith(".c")])


DOC_CONST_RE = re.compile(r"`([A-Z][A-Z0-9_]+)` = (0x[0-9a-fA-F]+|[0-9][0-9,]*)")


def doc_constants(doc, defs, tag):
    """Lines for each "`NAME` = value" a doc states that the headers do not: the convention
    by which a doc cites a limit so that `make lint` can keep it true."""
    out = []
    for name, val in DOC_CONST_RE.findall(read(doc)):
        said = int(val.replace(",", ""), 0)
        have = defs.get(name)
        if have is None:
            out.append(f"{tag}: {doc} says `{name}` = {val}, but the tree defines no number "
                       f"{name}")
        elif have != said:
            out.append(f"{tag}: {doc} says `{name}` = {val}, the tree {have}")
    return out


def doc_number(text):
    """A number as docs write it: 1000, 1,000, 0x3F8, 10^9, 2^64-1; None otherwise."""
    m = re.fullmatch(r"\s*(0x[0-9a-fA-F]+|[0-9][0-9,]*)(?:\^([0-9]+))?(?:-([0-9]+))?\s*", text)
    if not m:
        return None
    v = int(m.group(1).replace(",", ""), 0)
    if m.group(2):
        v **= int(m.group(2))
    return v - int(m.group(3) or 0)


def report(lines):
    """Prints a check's lines, one per drift; its exit status: 1 when there are any."""
    for line in lines:
        print(line)
    return 1 if lines else 0
