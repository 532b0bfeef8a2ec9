#!/usr/bin/env python3
# docs/stats-schema.md lists the statistics' keys in the order the JSON has
# them (issue 30): each table of the document, read here, against a checked
# run's JSON.  For each object, the keys the document names (in the table's
# key column, or for the objects described in a row, in its meaning
# column), duplicates and names of other objects dropped, must be exactly
# the object's keys in order: a key out of place, missing from the
# document, or documented but not written fails.
#   stats_schema_order.py TLBSIM DOC
import json, re, subprocess, sys, tempfile, os

tlbsim, doc = sys.argv[1], sys.argv[2]
text = open(doc).read()
failures = 0


def tables():
    """Each table as (heading above it, [rows of cells])."""
    heading, rows, out = None, None, []
    for line in text.splitlines():
        if line.startswith('#'):
            heading = line.lstrip('#').strip()
        if line.startswith('|'):
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            if rows is None:
                rows = []
                out.append((heading, rows))
            if not set(''.join(cells)) <= set('- '):
                rows.append(cells)
        else:
            rows = None
    # the header row of each table goes
    return [(h, r[1:]) for h, r in out]


def names(cell):
    """The backticked names of a cell, in order; `tlb_l1i_*` with the
    `(hits, misses)` that follows expanded."""
    out = []
    suffixes = re.search(r'\*`\)?\s*\(([^)]*)\)', cell)
    suffixes = re.findall(r'`([a-z_0-9]+)`', suffixes.group(1)) if suffixes else []
    for tok in re.findall(r'`([^`]+)`', re.sub(r'\*`\)?\s*\([^)]*\)', '*`', cell)):
        if tok.endswith('*'):
            out += [tok[:-1] + s for s in suffixes]
        elif re.fullmatch(r'[a-z_0-9]+', tok):
            out.append(tok)
    return out


def check(what, documented, obj):
    global failures
    keys = list(obj.keys())
    seen, doc_order = set(), []
    for n in documented:
        if n in obj and n not in seen:
            seen.add(n)
            doc_order.append(n)
    if doc_order != keys:
        failures += 1
        missing = [k for k in keys if k not in seen]
        print(f'FAIL: {what}: the JSON has {keys}')
        print(f'      the document, in order: {doc_order}'
              + (f'; not documented: {missing}' if missing else ''))
    else:
        print(f'ok: {what}: {len(keys)} keys in the document\'s order')


TABLES = tables()


def table(heading_prefix, nth=0):
    """The @nth table under the heading that starts with @heading_prefix."""
    found = [r for h, r in TABLES if h and h.startswith(heading_prefix)]
    return found[nth]


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, 'st.json')
    subprocess.run([tlbsim, 'run', '--machine', 'x86-16', '--policy', 'x86-stock', '--check',
                    '--gen', 'madvise-threads', '--param', 'loops=2', '--quiet', '--json', out],
                   check=True)
    st = json.load(open(out))

top = table('Statistics JSON')
root = []
for row in top:
    root += names(row[0])
# The kernel-replay keys are documented at the end; this is an OS-model run.
check('the top-level object', root, st)
for row in top:
    keys = names(row[0])
    if len(keys) == 1 and isinstance(st.get(keys[0]), dict) and keys[0] in (
            'fabric', 'os', 'memory'):
        check(keys[0], names(row[2]), st[keys[0]])
    if keys == ['address_spaces']:
        check('address_spaces[0]', names(row[2]), st['address_spaces'][0])
        for lock in ('page_table_lock', 'mmap_lock'):
            check(f'address_spaces[0].{lock}', names(row[2]), st['address_spaces'][0][lock])
    if keys == ['os']:
        check('os.lruvec_locks[0]', names(row[2]), st['os']['lruvec_locks'][0])

# The per-cpu table ("Per cpu (`per_cpu[i]`):") is the second under the
# document's title.
per_cpu = []
for row in table('Statistics JSON', 1):
    per_cpu += names(row[0])
check('per_cpu[0]', per_cpu, st['per_cpu'][0])
check('totals', per_cpu, st['totals'])

check('coherence', [n for row in table('`coherence`') for n in names(row[0])], st['coherence'])
kinds = [n for row in table('`lines`') for n in names(row[0])]
check('lines (kinds)', kinds, st['lines'])
check('per_cpu[0].lines (kinds)', kinds, st['per_cpu'][0]['lines'])
each = re.search(r'Each kind:(.*?)\n\n', text, re.S).group(1)
check('lines.mm_cpumask', names(each), st['lines']['mm_cpumask'])

hz = table('`hazards`')
check('hazards', [n for row in hz for n in names(row[0])], st['hazards'])
for row in hz:
    if names(row[0]) == ['by_kind']:
        check('hazards.by_kind', names(row[2]), st['hazards']['by_kind'])
sys.exit(1 if failures else 0)
