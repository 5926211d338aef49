#!/usr/bin/env python3
"""Reconcile two generated sets through two negentropy test-harness processes (the reference's stdio
protocol) and report bytes each way, round trips, wall time from `initiate` to `done`, and each side's CPU time
during reconciliation (from /proc, after each process has read and sorted its items).

usage: bench/negentropy-compare.py --harness "CMD" [--items 1000000] [--diff 0.002] [--clustered]
                                   [--frame 0|60000] [--seed 1]
CMD is any harness speaking the protocol, e.g. "./meshnode negentropy-harness" or a reference C++
build (test/cpp/harness, built beside the project, never committed). Both sides run CMD.
"""
import argparse, os, random, resource, shlex, subprocess, sys, time

def items(n, diff, clustered, seed):
    r = random.Random(seed)
    base = [(r.randrange(1_000_000), r.getrandbits(256)) for _ in range(n)]
    k = int(n * diff)
    if clustered:  # the missing items sit together in time
        start = r.randrange(max(1, n - k))
        order = sorted(range(n), key=lambda i: base[i][0])
        a_missing = set(order[start:start + k // 2]); b_missing = set(order[start + k // 2:start + k])
    else:
        idx = r.sample(range(n), min(n, k))
        a_missing = set(idx[:len(idx) // 2]); b_missing = set(idx[len(idx) // 2:])
    a = [base[i] for i in range(n) if i not in a_missing]
    b = [base[i] for i in range(n) if i not in b_missing]
    return a, b, len(a_missing), len(b_missing)

def start(cmd, frame, its):
    env = dict(os.environ, FRAMESIZELIMIT=str(frame))
    p = subprocess.Popen(shlex.split(cmd), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True, bufsize=1 << 20)
    for ts, i in its:
        p.stdin.write("item,%d,%064x\n" % (ts, i))
    p.stdin.write("seal\n"); p.stdin.flush()
    return p

def cpu_seconds(p):
    """utime + stime of a harness process so far (Linux /proc), in seconds."""
    with open("/proc/%d/stat" % p.pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

def settle(p):
    """Waits until a process stops using CPU (it has read and sorted its items), returns its CPU so far."""
    last = -1.0
    while True:
        time.sleep(0.3)
        now = cpu_seconds(p)
        if now - last <= 0.02:  # idle but for housekeeping ticks
            return now
        last = now

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--harness", required=True); ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--diff", type=float, default=0.002); ap.add_argument("--clustered", action="store_true")
    ap.add_argument("--frame", type=int, default=0); ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    a_items, b_items, a_lacks, b_lacks = items(args.items, args.diff, args.clustered, args.seed)
    a = start(args.harness, args.frame, a_items); b = start(args.harness, args.frame, b_items)
    a0, b0 = settle(a), settle(b)  # reconciliation CPU excludes reading and sorting the items
    t0 = time.time()
    a.stdin.write("initiate\n"); a.stdin.flush()
    up = down = rounds = 0; have = need = 0
    while True:
        line = a.stdout.readline().strip()
        if line.startswith("have,"): have += 1; continue
        if line.startswith("need,"): need += 1; continue
        if line == "done" or not line: break
        assert line.startswith("msg,"), line
        up += (len(line) - 4) // 2; rounds += 1
        b.stdin.write(line + "\n"); b.stdin.flush()
        reply = b.stdout.readline().strip()
        assert reply.startswith("msg,"), reply
        down += (len(reply) - 4) // 2
        a.stdin.write(reply + "\n"); a.stdin.flush()
    wall = time.time() - t0
    a_cpu, b_cpu = cpu_seconds(a) - a0, cpu_seconds(b) - b0
    for p in (a, b):
        p.stdin.close(); p.wait()
    print('{"items":%d,"diff":%s,"clustered":%s,"frame":%d,"rounds":%d,"bytes_up":%d,"bytes_down":%d,'
          '"have":%d,"need":%d,"expected_have":%d,"expected_need":%d,"wall_s":%.2f,'
          '"cpu_initiator_s":%.2f,"cpu_responder_s":%.2f}'
          % (args.items, args.diff, str(args.clustered).lower(), args.frame, rounds, up, down, have, need,
             b_lacks, a_lacks, wall, a_cpu, b_cpu))
    sys.exit(0 if (have, need) == (b_lacks, a_lacks) else 1)

if __name__ == "__main__":
    main()
