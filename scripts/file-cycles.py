#!/usr/bin/env python3
"""Lists import cycles between the files of each crate's `src/`: parses `use crate::`/`super::`/
`self::` paths, `crate::`/`super::` paths in code and `use child::` re-exports of declared child
modules (inline `mod tests` left out; a test module in a sibling file, `render/tests.rs`, is a
file like any other, and no cycle can pass through it since nothing imports it), then reports
strongly connected components and mutual pairs. Exits 1 when any directory has a cycle, so
`scripts/test` fails on a new one.
Usage: scripts/file-cycles.py [CRATE_SRC_DIR...]   (default: every crates/*/src, and tests/support/src)"""
import glob, os, re, sys

def cycles_in(root):
  files = {}
  for d, _, fs in os.walk(root):
      for f in fs:
          if f.endswith(".rs"):
              p = os.path.join(d, f)
              rel = os.path.relpath(p, root)[:-3]
              parts = rel.split(os.sep)
              if parts[-1] in ("mod", "lib", "main"):
                  parts = parts[:-1]
              files[tuple(parts)] = p
  def resolve(mod, path):
      # longest prefix of path that is a file
      for i in range(len(path), 0, -1):
          if tuple(path[:i]) in files:
              return tuple(path[:i])
      return None
  def is_dir_mod(mod):
      p = files[mod]
      return os.path.basename(p) in ("mod.rs", "lib.rs", "main.rs")
  edges = {m: set() for m in files}
  def strip_tests(src):
      # drop an inline #[cfg(test)] mod tests { ... } block (approx: from marker to end if at end);
      # a `mod tests;` declaration stays, its file is read as any other
      i = src.find("#[cfg(test)]\nmod tests {")
      return src if i < 0 else src[:i]
  tok = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
  usegroup = re.compile(r"use\s+(crate|super|self)::([^;]*);", re.S)
  for m, p in files.items():
      src = strip_tests(open(p).read())
      src = re.sub(r"//[^\n]*", "", src)
      paths = []
      for g in usegroup.finditer(src):
          base, rest = g.group(1), g.group(2)
          # expand braces one level
          def expand(prefix, s):
              s = s.strip()
              mm = re.match(r"^([\w:]*?)\{(.*)\}$", s, re.S)
              if not mm:
                  return [prefix + [x for x in s.split("::") if x and x not in ("*",) and not x.startswith(" as")]]
              head = [x for x in mm.group(1).split("::") if x]
              inner = mm.group(2)
              depth, cur, items = 0, "", []
              for ch in inner:
                  if ch == "{": depth += 1
                  if ch == "}": depth -= 1
                  if ch == "," and depth == 0:
                      items.append(cur); cur = ""
                  else: cur += ch
              items.append(cur)
              out = []
              for it in items:
                  if it.strip():
                      out += expand(prefix + head, it)
              return out
          for e in expand([], rest):
              e = [x.split(" as ")[0].strip() for x in e]
              paths.append((base, e))
      children = set(re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", src, re.M))
      for g in re.finditer(r"use\s+(\w+)::([^;]*);", src):
          if g.group(1) in children:
              paths.append(("self", [g.group(1)] + [x for x in re.split(r"[:{},\s]+", g.group(2)) if x][:1]))
      for t in tok.finditer(src):
          paths.append((t.group(1), t.group(2).split("::")[1:]))
      for base, e in paths:
          if base == "crate":
              full = list(e)
          else:
              cur = list(m)
              if base == "super":
                  cur = cur[:-1] if is_dir_mod(m) else cur
                  if is_dir_mod(m): pass
                  # super of file module a/b.rs (mod a::b) is a; of dir mod a/mod.rs (a) is root
                  cur = list(m[:-1])
              full = cur + list(e)
              # handle super::super
              while "super" in full:
                  i = full.index("super"); full = full[:i-1] + full[i+1:]
          t = resolve(m, full)
          if t is not None and t != m:
              edges[m].add(t)
  # drop edges from a parent mod.rs to its children (declarations/re-exports) only if child->parent exists? keep all.
  sys.setrecursionlimit(10000)
  index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]
  def sc(v):
      index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
      for w in edges[v]:
          if w not in index: sc(w); low[v] = min(low[v], low[w])
          elif w in on: low[v] = min(low[v], index[w])
      if low[v] == index[v]:
          c = []
          while True:
              w = stack.pop(); on.discard(w); c.append(w)
              if w == v: break
          if len(c) > 1: sccs.append(c)
  for v in edges:
      if v not in index: sc(v)
  name = lambda m: "/".join(m) or "lib"
  # count 2-cycles (mutual pairs) and report SCCs
  pairs = sorted({tuple(sorted((name(a), name(b)))) for a in edges for b in edges[a] if a in edges[b]})
  print(f"{os.path.relpath(root, repo)}: strongly connected components with a cycle: {len(sccs)}")
  for c in sccs:
      print("  SCC:", ", ".join(sorted(name(x) for x in c)))
  print(f"mutual (2-file) cycles: {len(pairs)}")
  for a, b in pairs: print("  ", a, "<->", b)
  return len(sccs)

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
roots = sys.argv[1:] or sorted(glob.glob(os.path.join(repo, "crates", "*", "src"))) + [
    os.path.join(repo, "tests", "support", "src")]
found = sum(cycles_in(r) for r in roots)
sys.exit(1 if found else 0)
