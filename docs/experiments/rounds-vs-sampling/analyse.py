"""The rounds-vs-sampling comparison of the method page, from the result files of run.sh.

usage: python3 analyse.py DIR[:ROUNDS] ...   (e.g. A B A:3: A's first 3 rounds)

Per folder: the between-round standard deviation of ln(time) per cell (median over cells, and over
Doublets and Redis cells apart), and per operation the ratio of the fastest Redis mode to the
fastest Doublets store in each round, with the median and range of those ratios (the range of 6
rounds is their 96.9% interval, of 3 rounds 75%)."""
import glob, math, re, statistics as st, sys

def load(folder, rounds):
    found = {}
    for path in sorted(glob.glob(folder + "/r*.txt")):
        round_, cells = None, {}
        for line in open(path):
            m = re.match(r"# round: (\d+)", line)
            if m:
                round_ = int(m.group(1))
            m = re.match(r"test (\S+) \.\.\. bench:\s+([\d,]+) ns/iter", line)
            if m:
                cells[m.group(1)] = float(m.group(2).replace(",", ""))
        if rounds is None or round_ <= rounds:
            found[round_] = cells
    return found

for arg in sys.argv[1:]:
    folder, _, limit = arg.partition(":")
    rounds = load(folder, int(limit) if limit else None)
    names = sorted(set.intersection(*[set(c) for c in rounds.values()]))
    sd = {n: st.stdev([math.log(rounds[r][n]) for r in rounds]) for n in names}
    part = lambda store: st.median([v for n, v in sd.items() if store in n])
    print(f"{arg}: {len(rounds)} rounds; between-round sd of ln(time), median over cells: "
          f"{st.median(sd.values()):.3f} (Doublets {part('Doublets'):.3f}, Redis {part('Redis'):.3f})")
    for op in sorted({n.split('/')[0] for n in names}):
        per = sorted(
            min(v for n, v in c.items() if n.startswith(op + "/Redis"))
            / min(v for n, v in c.items() if n.startswith(op + "/Doublets"))
            for c in rounds.values())
        middle = st.median(per)
        print(f"  {op}: {middle:.1f}× [{per[0]:.1f}–{per[-1]:.1f}×] ±{50 * (per[-1] - per[0]) / middle:.0f}%")
