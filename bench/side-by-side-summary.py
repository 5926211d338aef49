#!/usr/bin/env python3
"""Summarises bench/side-by-side.sh output (JSON lines on stdin): per pass and deflate mode, each shape's p50 / p99
for strfry and meshnode (the median over rounds) and the ratio meshnode / strfry; then ingest, memory and disk."""
import json
import statistics
import sys
from collections import defaultdict

lat = defaultdict(list)   # (pass, deflate, shape, relay) -> [(p50, p99)]
ingest = defaultdict(list)
shapes = []
for line in sys.stdin:
    line = line.strip()
    if not line.startswith('{'):
        continue
    r = json.loads(line)
    if 'shape' in r:
        if r['shape'] not in shapes:
            shapes.append(r['shape'])
        lat[(r.get('pass', 'first'), r.get('deflate', 0), r['shape'], r['relay'])].append((r['p50_ms'], r['p99_ms']))
    elif 'relay' in r and 'driver_out' in r:
        ingest[r['relay']].append(r)


def med(xs):
    return statistics.median(xs) if xs else float('nan')


for p in sorted({k[0] for k in lat}, key=lambda x: ['first', 'warm'].index(x) if x in ('first', 'warm') else 9):
    for d in sorted({k[1] for k in lat if k[0] == p}):
        print(f'\n## pass {p}, deflate {"offered" if str(d) == "1" else "not offered"}')
        print('| shape | strfry p50 / p99 | meshnode p50 / p99 | ratio p50 / p99 |')
        print('|---|---|---|---|')
        for s in shapes:
            a = lat.get((p, d, s, 'strfry'), [])
            b = lat.get((p, d, s, 'meshnode'), [])
            if not a or not b:
                continue
            a50, a99 = med([x[0] for x in a]), med([x[1] for x in a])
            b50, b99 = med([x[0] for x in b]), med([x[1] for x in b])
            print(f'| {s} | {a50:.3f} / {a99:.3f} | {b50:.3f} / {b99:.3f} | {b50 / a50:.2f} / {b99 / a99:.2f} |')
for relay, runs in ingest.items():
    print(f'\n{relay} ingest: events/s {[(r.get("driver_out") or {}).get("rate") for r in runs]}, disk MiB '
          f'{[r.get("disk_mib") for r in runs]}, memory after {[r.get("mem_after") for r in runs]}')
