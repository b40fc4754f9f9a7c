"""dlx's advanced indexing (t[idx], t[mask], t[idx] = v; dlx_gather / dlx_scatter) against NumPy and
PyTorch on the CPU.

    PYTHONPATH=<dir with the built dlx package> python bench/bench_index.py [--quick] [--reps N]

Cases (float32; the index arrays are made once, as each framework's own array, outside the timing):
  - rows:     t[idx] of a (rows, 16) tensor, idx = as many random int64 row numbers as there are rows
  - elements: t[idx] of a 1-D tensor, idx random int64, a quarter of its length
  - pairs:    t[i, j] of a square tensor, i and j random int64 of the same length (two index arrays)
  - mask:     t[mask] of a 1-D tensor, mask a random bool array (half true)
  - mask_out: the same into a preallocated out: np.compress(mask, a, out=o), torch.masked_select(t, m,
              out=o), dlx.compress(m, t, out=o)
  - scatter:  t[idx] = v, the elements case written back (v as long as idx)
  - fill:     t[idx] = 1.0, a Python scalar
The last column divides by the faster peer (the figure issue 30 asks to keep at most 1.0).
Every repetition runs every case and every peer, in an order rotated per repetition, so that all see the
same machine load; each figure is the best of the repetitions. Ratios: dlx time / peer time (below 1: dlx
is faster). dlx and torch run on their default thread counts; NumPy's indexing is single-threaded. Nothing
here asserts: timings depend on the machine, and this is a program, not a test.
"""

import argparse
import os
import time


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="a quarter of the sizes, 3 repetitions")
    p.add_argument("--reps", type=int)
    return p.parse_args()


def cases(np, dlx, torch, scale):
    """(label, bytes moved, {peer: fn}) for every case."""
    rng = np.random.default_rng(0)
    rows, n, side = (1 << 20) // scale, (1 << 24) // scale, 4096 // (2 if scale > 1 else 1)
    a2 = rng.standard_normal((rows, 16), dtype=np.float32)
    a1 = rng.standard_normal(n, dtype=np.float32)
    sq = rng.standard_normal((side, side), dtype=np.float32)
    idx_rows = rng.integers(0, rows, rows)
    idx_el = rng.integers(0, n, n // 4)
    pi, pj = rng.integers(0, side, n // 4), rng.integers(0, side, n // 4)
    mask = rng.random(n) < 0.5
    vals = rng.standard_normal(n // 4, dtype=np.float32)

    peers = {"numpy": lambda x: x, "dlx": dlx.asarray}
    if torch is not None:
        peers["torch"] = torch.from_numpy
    count = int(mask.sum())
    # each peer's mask gather into a preallocated out
    into = {"numpy": lambda t, m, o: np.compress(m, t, out=o), "dlx": lambda t, m, o: dlx.compress(m, t, out=o),
            "torch": lambda t, m, o: torch.masked_select(t, m, out=o)}
    out = []
    for label, nbytes in (("rows", idx_rows.size * 16 * 4), ("elements", idx_el.size * 4), ("pairs", pi.size * 4),
                          ("mask", count * 4), ("mask_out", count * 4), ("scatter", idx_el.size * 4),
                          ("fill", idx_el.size * 4)):
        fns = {}
        for peer, conv in peers.items():
            # copies, so that the writes of one peer do not change what another reads
            t2, t1, ts = conv(a2.copy()), conv(a1.copy()), conv(sq.copy())
            ir, ie, ii, ij, m, v = (conv(x) for x in (idx_rows, idx_el, pi, pj, mask, vals))
            o = conv(np.empty(count, np.float32)) if label == "mask_out" else None
            fns[peer] = {
                "rows": lambda t2=t2, ir=ir: t2[ir],
                "elements": lambda t1=t1, ie=ie: t1[ie],
                "pairs": lambda ts=ts, ii=ii, ij=ij: ts[ii, ij],
                "mask": lambda t1=t1, m=m: t1[m],
                "mask_out": lambda t1=t1, m=m, o=o, f=into[peer]: f(t1, m, o),
                "scatter": lambda t1=t1, ie=ie, v=v: t1.__setitem__(ie, v),
                "fill": lambda t1=t1, ie=ie: t1.__setitem__(ie, 1.0),
            }[label]
        out.append((label, nbytes, fns))
    return out


def main():
    args = parse()
    import numpy as np

    import dlx

    try:
        # PyTorch's OpenMP threads spin after each call; interleaved with dlx's calls they took the second
        # core from dlx's worker (dlx ran at one thread's speed in about half the repetitions). Asleep
        # between calls, they cost PyTorch nothing measurable here. A value the caller set is kept.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import torch
    except Exception as e:  # noqa: BLE001 - not installed, or a broken install: say which
        print(f"torch: not available ({type(e).__name__}: {e}); its column is left out")
        torch = None
    scale = 4 if args.quick else 1
    reps = args.reps or (3 if args.quick else 7)
    all_cases = cases(np, dlx, torch, scale)
    peers = list(all_cases[0][2])
    best = {}
    for r in range(reps):
        for k in range(len(all_cases)):
            label, _, fns = all_cases[(k + r) % len(all_cases)]
            order = peers[r % len(peers):] + peers[:r % len(peers)]
            for peer in order:
                t0 = time.perf_counter()
                fns[peer]()
                dt = time.perf_counter() - t0
                best[label, peer] = min(dt, best.get((label, peer), dt))
    print(f"advanced indexing, float32, best of {reps} (ms; GB/s of elements moved; ratio = dlx / peer)")
    head = f"{'case':10}" + "".join(f"{p + ' ms':>12}" for p in peers) + f"{'dlx GB/s':>10}"
    others = [p for p in peers if p != "dlx"]
    head += "".join(f"{'/' + p:>10}" for p in others) + f"{'/best':>10}"
    print(head)
    for label, nbytes, _ in all_cases:
        have = [p for p in peers if (label, p) in best]
        line = f"{label:10}" + "".join(f"{best[label, p] * 1e3:12.2f}" if p in have else f"{'-':>12}" for p in peers)
        line += f"{nbytes / best[label, 'dlx'] / 1e9:10.2f}"
        line += "".join(f"{best[label, 'dlx'] / best[label, p]:10.2f}" if p in have else f"{'-':>10}" for p in others)
        fastest = min(best[label, p] for p in others if p in have)
        line += f"{best[label, 'dlx'] / fastest:10.2f}"
        print(line)


if __name__ == "__main__":
    main()
