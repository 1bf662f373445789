#!/usr/bin/env python3
"""Edges between the explorer's modules (src/tui/**), and the cycles among them.
A module is a file; an edge A -> B means A's code names B by path
(crate::tui::B, super::B, super::super::B, or a child module by bare name).
Test modules (from the first #[cfg(test)]) are left out.
usage: scripts/tui-module-graph.py [--top] ROOT  (--top: tui's direct children only)"""
import os, re, sys
top = '--top' in sys.argv
root = [a for a in sys.argv[1:] if a != '--top'][0]
base = os.path.join(root, 'src/tui')
mods = {}
for d, _, fs in os.walk(base):
    for f in fs:
        if not f.endswith('.rs'): continue
        rel = os.path.relpath(os.path.join(d, f), base)[:-3].split('/')
        if rel[-1] == 'mod': rel = rel[:-1]
        mods[tuple(rel)] = os.path.join(d, f)
def name(m): return 'tui' if not m else 'tui::' + '::'.join(m)
def resolve(parts):
    # longest prefix that is a module
    for i in range(len(parts), -1, -1):
        if tuple(parts[:i]) in mods: return tuple(parts[:i])
    return None
edges = {}
for m, path in mods.items():
    src = open(path).read()
    src = src.split('#[cfg(test)]')[0]
    src = re.sub(r'//[^\n]*', '', src)
    is_dir = path.endswith('mod.rs')
    out = set()
    def add(t):
        if t is not None and t != m: out.add(t)
    # use groups expanded one level: use a::{b, c::d} -> a::b, a::c::d
    for mm in re.finditer(r'((?:crate|super)(?:::(?:super|\w+))*)::\{([^}]*)\}', src):
        for item in mm.group(2).split(','):
            item = item.strip().split(' as ')[0]
            if item:
                src += '\n' + mm.group(1) + '::' + item + ';'
    for mm in re.finditer(r'\b(crate|super)((?:::\w+)+)', src):
        parts = mm.group(2).strip(':').split('::')
        if mm.group(1) == 'crate':
            if parts[0] != 'tui': continue
            add(resolve(parts[1:]))
        else:
            cur = list(m[:-1])  # `super` of this module
            while parts and parts[0] == 'super':
                cur = cur[:-1]; parts = parts[1:]
            add(resolve(cur + parts))
    if is_dir:
        kids = [k for k in mods if len(k) == len(m) + 1 and k[:len(m)] == m]
        for k in kids:
            if re.search(r'(?<![:\w])' + k[-1] + r'::', src): add(k)
    edges[m] = out
if top:
    te = {}
    for a, bs in edges.items():
        ta = a[:1]
        for b in bs:
            tb = b[:1]
            if ta != tb and ta and tb: te.setdefault(ta, set()).add(tb)
        te.setdefault(ta, set())
    edges = {k: v for k, v in te.items() if k}
# Tarjan SCC
idx, low, st, on, sccs, c = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in edges: continue
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        sccs.append(comp)
for v in sorted(edges): 
    if v not in idx: sc(v)
for a in sorted(edges):
    for b in sorted(edges[a]): print('edge', name(a), '->', name(b))
cyc = [s for s in sccs if len(s) > 1]
print('cycles (strongly connected groups):', len(cyc))
for s in cyc: print('  %d modules: %s' % (len(s), ', '.join(sorted(name(x) for x in s))))
