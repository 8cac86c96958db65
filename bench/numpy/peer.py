"""NumPy as a peer of the overlap checkers of memverify.

Reads view pairs as JSON (written by the Go benchmarks from the generators
their own benchmarks use) and either times NumPy on them, printing Go
benchmark lines that `verify bench` merges into its rounds, or prints
NumPy's answers, which the Go side checks against its own.

    peer.py version              numpy's version; exit 3 without numpy
    peer.py bench VIEWS [--seconds S | --calls N] [--procs P]
    peer.py answers VIEWS

Each view is built with numpy.lib.stride_tricks.as_strided over one byte
buffer per family, large enough for every view of the family: element i
of a view is the ElemSize bytes at Offset + sum(i[d] * Strides[d]), an
element of a void dtype of that size, so that NumPy sees exactly the bytes
the Go view touches.

Three lines per family, each the mean over the family's pairs visited in
turn, as the Go benchmarks visit them:

    impl=NumPy          np.shares_memory(a, b): the exact answer
    impl=NumPyMayShare  np.may_share_memory(a, b): the same call through
                        the same entry point (argument parsing, dispatch,
                        the bounds of both arrays) with no solver: NumPy's
                        cost of a call that does not solve
    impl=NumPyNet       the first less the second, timed in alternating
                        stretches: the cost of NumPy's solver net of its
                        call overhead (and of its bounds test, which the Go
                        solver pays too, so this is a lower bound on the
                        solver's cost). Left out for a family whose pairs
                        all have disjoint bounds: NumPy solves none of them.

A family marked per_pair (the corpus) also gets, on its NumPy line, the
median and 99th percentile of each pair's own cost (p50-ns/pair,
p99-ns/pair), measured as the Go corpus benchmark measures its checkers'.

Only the standard library and numpy are used.
"""

import gc
import json
import sys
import time

try:
    import numpy as np
    from numpy.lib.stride_tricks import as_strided
except ImportError:  # said in one line; the Go side turns it into a skip
    np = None

# NumPy and MayShare are timed in this many alternating stretches within
# a family's time, so that a change of the host's speed falls on both.
STRETCHES = 8


def usage():
    sys.stderr.write(__doc__)
    sys.exit(2)


def load(path):
    with open(path) as f:
        doc = json.load(f)
    return doc["families"]


def span(v):
    """The lowest and one past the highest byte of a view, or None if it
    is empty."""
    if any(n == 0 for n in v["shape"]):
        return None
    lo = hi = v["offset"]
    for n, s in zip(v["shape"], v["strides"]):
        if n > 1:
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
    return lo, hi + v["elem"]


def arrays(fam):
    """The family's pairs as NumPy arrays over one buffer."""
    size = 1
    for pair in fam["pairs"]:
        for v in pair:
            size = max(size, v["offset"] + v["elem"])
            s = span(v)
            if s is not None:
                if s[0] < 0:
                    raise ValueError("%s: view below the buffer: %r" % (fam["name"], v))
                size = max(size, s[1])
    buf = np.zeros(size, dtype=np.uint8)

    def view(v):
        dt = np.dtype((np.void, v["elem"]))
        # One element at the view's offset, then its shape and strides:
        # span() above made the buffer hold every byte the view touches.
        base = buf[v["offset"]:v["offset"] + v["elem"]].view(dt)
        return as_strided(base, shape=tuple(v["shape"]), strides=tuple(v["strides"]), writeable=False)

    return [(view(a), view(b)) for a, b in fam["pairs"]]


def answer(a, b):
    try:
        return "yes" if np.shares_memory(a, b) else "no"
    except np.TooHardError:
        return "too-hard"
    except OverflowError:
        return "overflow"


def passes(fn, pairs, k):
    """Calls fn on every pair, k times over; returns the nanoseconds."""
    t0 = time.perf_counter_ns()
    for _ in range(k):
        for a, b in pairs:
            fn(a, b)
    return time.perf_counter_ns() - t0


def measure(exact, bounds, pairs, seconds, calls):
    """Times exact and bounds over the same passes of pairs and returns
    (calls of each, ns of exact, ns of bounds). The passes are sized as go
    test sizes b.N: growing trials until one takes a tenth of the time
    asked (or 10 ms), so that neither a cold first call nor the clock's
    resolution sizes the run; then the time asked, in alternating
    stretches. A trial that already took the whole time asked is the
    measurement: on NumPy's hard families one pass lasts seconds."""
    if calls:
        k = max(1, -(-calls // len(pairs)))
    else:
        k = 1
        while True:
            te, tb = passes(exact, pairs, k), passes(bounds, pairs, k)
            if te + tb >= seconds * 1e9:
                return k * len(pairs), te, tb
            if te + tb >= min(seconds * 1e8, 1e7) or k >= 1 << 30:
                break
            k *= 10 if te + tb < 1e6 else 2
        k = max(1, int(k * seconds * 1e9 / max(te + tb, 1)))
    stretches = min(STRETCHES, k)
    per = -(-k // stretches)
    te = tb = 0
    for _ in range(stretches):
        te += passes(exact, pairs, per)
        tb += passes(bounds, pairs, per)
    return stretches * per * len(pairs), te, tb


def pair_costs(fn, pairs, mean_ns):
    """The median and 99th percentile over pairs of each pair's own cost,
    as the Go corpus benchmark measures its checkers': each pair called k
    times between two clock reads (k chosen so that a batch lasts about
    2 us, at most 64), the least of three passes over the pairs."""
    k = max(1, min(64, int(2000 / mean_ns))) if mean_ns > 0 else 64
    clock = time.perf_counter_ns
    costs = [float("inf")] * len(pairs)
    for _ in range(3):
        for i, (a, b) in enumerate(pairs):
            t0 = clock()
            for _ in range(k):
                fn(a, b)
            costs[i] = min(costs[i], (clock() - t0) / k)
    costs.sort()
    n = len(costs)
    return costs[n // 2], costs[min(n - 1, n * 99 // 100)]  # the ranks the Go benchmark takes


def bench_family(fam, seconds, calls, suffix, out):
    pairs = arrays(fam)
    if not pairs:
        return
    solves = any(np.may_share_memory(a, b) for a, b in pairs)
    gc.disable()  # as timeit does: a collection is no part of either call
    try:
        try:
            n, t_exact, t_bounds = measure(np.shares_memory, np.may_share_memory, pairs, seconds, calls)
        except (np.TooHardError, OverflowError):
            # Rare enough to be looked for only when met: time the pairs
            # NumPy can answer.
            ok = [p for p in pairs if answer(*p) in ("yes", "no")]
            sys.stderr.write("numpy peer: %s: %d pairs NumPy cannot answer left out of the timing\n"
                             % (fam["name"], len(pairs) - len(ok)))
            if not ok:
                return
            n, t_exact, t_bounds = measure(np.shares_memory, np.may_share_memory, ok, seconds, calls)
    finally:
        gc.enable()
    name = "Benchmark" + fam["name"]
    line = "%s/impl=%s%s\t%d\t%.2f ns/op\n"
    if fam.get("per_pair"):
        p50, p99 = pair_costs(np.shares_memory, pairs, t_exact / n)
        out.write("%s/impl=NumPy%s\t%d\t%.2f ns/op\t%.2f p50-ns/pair\t%.2f p99-ns/pair\n"
                  % (name, suffix, n, t_exact / n, p50, p99))
    else:
        out.write(line % (name, "NumPy", suffix, n, t_exact / n))
    out.write(line % (name, "NumPyMayShare", suffix, n, t_bounds / n))
    net = (t_exact - t_bounds) / n
    if not solves:
        return
    if net <= 0:
        # Noise larger than the solver: no figure to give this round.
        sys.stderr.write("numpy peer: %s: shares_memory measured no slower than may_share_memory (%.2f ns): NumPyNet left out of this round\n"
                         % (fam["name"], net))
        return
    out.write(line % (name, "NumPyNet", suffix, n, net))


def cmd_bench(args):
    if not args:
        usage()
    path, seconds, calls, procs = args[0], 0.1, 0, 1
    rest = args[1:]
    while rest:
        if len(rest) < 2:
            usage()
        flag, val = rest[0], rest[1]
        if flag == "--seconds":
            seconds = float(val)
        elif flag == "--calls":
            calls = int(val)
        elif flag == "--procs":
            procs = int(val)
        else:
            usage()
        rest = rest[2:]
    # Go's benchmarks print the GOMAXPROCS they ran at as a -N suffix (none
    # for 1); the peer's lines carry the same, so that they group with them.
    suffix = "-%d" % procs if procs > 1 else ""
    for fam in load(path):
        bench_family(fam, seconds, calls, suffix, sys.stdout)
        sys.stdout.flush()


def cmd_answers(args):
    if len(args) != 1:
        usage()
    out = {"python": sys.executable, "numpy": np.__version__, "families": []}
    for fam in load(args[0]):
        pairs = arrays(fam)
        out["families"].append({
            "name": fam["name"],
            "shares": [answer(a, b) for a, b in pairs],
            "may_share": [bool(np.may_share_memory(a, b)) for a, b in pairs],
        })
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


def main():
    if len(sys.argv) < 2:
        usage()
    if np is None:
        sys.stderr.write("%s has no numpy\n" % sys.executable)
        sys.exit(3)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "version":
        print(np.__version__)
    elif cmd == "bench":
        cmd_bench(args)
    elif cmd == "answers":
        cmd_answers(args)
    else:
        usage()


if __name__ == "__main__":
    main()
