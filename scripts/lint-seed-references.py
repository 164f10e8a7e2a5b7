#!/usr/bin/env python3
"""Python reference solutions of the C++/Java lint seed problems (datasets/lint/{cpp,java}/NN_slug/).

The expected outputs in every tests.json were computed by these references, independently of the C++ and
Java solutions, which must agree with them (tests/runners/compiled.test.ts runs every solution on its
cases in the sandbox, and runs this script).

Usage: python3 scripts/lint-seed-references.py [--write]
  (default)  check: every problem.json and tests.json of both languages matches the reference (same id
             and statement; every expected output equals the reference's output on that input); exit 1
             on a mismatch
  --write    (re)write problem.json and tests.json of both languages from the references and the inputs
             below (the C++/Java solutions are written by hand and never touched)
"""

import heapq
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "datasets" / "lint"
MOD = 10**9 + 7
PROBLEMS = []


def problem(slug, statement, inputs):
    def wrap(fn):
        PROBLEMS.append((slug, statement, fn, inputs))
        return fn

    return wrap


def ints(text):
    return [int(t) for t in text.split()]


rng = random.Random(20240611)


def rand_array(n, lo, hi):
    return [rng.randint(lo, hi) for _ in range(n)]


def fmt(values):
    return " ".join(str(v) for v in values)


# 01 -------------------------------------------------------------------------------------------------------
def _prefix_inputs():
    big = rand_array(300, -1000, 1000)
    queries = []
    for _ in range(40):
        l = rng.randint(1, 300)
        r = rng.randint(l, 300)
        queries.append(f"{l} {r}")
    return [
        "5 3\n1 2 3 4 5\n1 5\n2 3\n4 4\n",
        "1 1\n-7\n1 1\n",
        "4 2\n1000000000 1000000000 1000000000 1000000000\n1 4\n2 3\n",
        f"300 40\n{fmt(big)}\n" + "\n".join(queries) + "\n",
    ]


@problem(
    "prefix_sums",
    "Read n and q, then n integers a_1..a_n (|a_i| <= 10^9), then q queries, each two integers l and r "
    "(1 <= l <= r <= n). For every query print the sum a_l + ... + a_r on its own line.",
    _prefix_inputs(),
)
def prefix_sums(text):
    v = ints(text)
    n, q = v[0], v[1]
    a = v[2 : 2 + n]
    pre = [0]
    for x in a:
        pre.append(pre[-1] + x)
    out = []
    pos = 2 + n
    for _ in range(q):
        l, r = v[pos], v[pos + 1]
        pos += 2
        out.append(str(pre[r] - pre[l - 1]))
    return "\n".join(out) + "\n"


# 02 -------------------------------------------------------------------------------------------------------
@problem(
    "max_subarray",
    "Read n (1 <= n <= 10^5) and n integers (|a_i| <= 10^9). Print the largest sum of a non-empty "
    "contiguous subarray.",
    [
        "9\n-2 1 -3 4 -1 2 1 -5 4\n",
        "3\n-5 -2 -9\n",
        "1\n7\n",
        "5\n1000000000 1000000000 -1 1000000000 1000000000\n",
        f"500\n{fmt(rand_array(500, -100, 100))}\n",
    ],
)
def max_subarray(text):
    v = ints(text)
    a = v[1 : 1 + v[0]]
    best = cur = a[0]
    for x in a[1:]:
        cur = max(x, cur + x)
        best = max(best, cur)
    return f"{best}\n"


# 03 -------------------------------------------------------------------------------------------------------
@problem(
    "gcd_lcm",
    "Read t, then t lines with two positive integers a and b (up to 10^9). For each line print gcd(a, b) "
    "and lcm(a, b) separated by a space.",
    [
        "3\n12 18\n7 13\n100 10\n",
        "1\n1 1\n",
        "2\n1000000000 999999999\n123456789 987654321\n",
        "4\n6 6\n1 1000000000\n48 180\n17 289\n",
    ],
)
def gcd_lcm(text):
    from math import gcd

    v = ints(text)
    out = []
    for i in range(v[0]):
        a, b = v[1 + 2 * i], v[2 + 2 * i]
        g = gcd(a, b)
        out.append(f"{g} {a // g * b}")
    return "\n".join(out) + "\n"


# 04 -------------------------------------------------------------------------------------------------------
@problem(
    "prime_sieve",
    "Read n (0 <= n <= 10^6). Print the number of primes not greater than n and, on the next line, their sum.",
    ["10\n", "1\n", "2\n", "100\n", "1000000\n"],
)
def prime_sieve(text):
    n = int(text.split()[0])
    if n < 2:
        return "0\n0\n"
    sieve = bytearray([1]) * (n + 1)
    sieve[0] = sieve[1] = 0
    for i in range(2, int(n**0.5) + 1):
        if sieve[i]:
            sieve[i * i :: i] = bytearray(len(sieve[i * i :: i]))
    primes = [i for i in range(n + 1) if sieve[i]]
    return f"{len(primes)}\n{sum(primes)}\n"


# 05 -------------------------------------------------------------------------------------------------------
def _lb_inputs():
    a = sorted(rand_array(200, 0, 1000))
    xs = rand_array(30, -10, 1010)
    return [
        "5\n1 3 3 7 9\n4\n3 4 10 0\n",
        "1\n5\n2\n5 6\n",
        "6\n2 2 2 2 2 2\n3\n1 2 3\n",
        f"200\n{fmt(a)}\n30\n{fmt(xs)}\n",
    ]


@problem(
    "lower_bound_queries",
    "Read n and a non-decreasing sequence of n integers, then q and q integers x. For each x print the "
    "1-based position of the first element that is >= x, or -1 if there is none, one per line.",
    _lb_inputs(),
)
def lower_bound_queries(text):
    import bisect

    v = ints(text)
    n = v[0]
    a = v[1 : 1 + n]
    q = v[1 + n]
    out = []
    for x in v[2 + n : 2 + n + q]:
        i = bisect.bisect_left(a, x)
        out.append(str(i + 1 if i < n else -1))
    return "\n".join(out) + "\n"


# 06 -------------------------------------------------------------------------------------------------------
def _grid_inputs():
    rows = []
    for r in range(15):
        rows.append("".join("#" if rng.random() < 0.25 else "." for _ in range(20)))
    rows[0] = "S" + rows[0][1:]
    rows[14] = rows[14][:19] + "E"
    return [
        "3 4\nS..#\n.#..\n...E\n",
        "2 2\nS#\n#E\n",
        "1 2\nSE\n",
        "5 5\nS....\n####.\n.....\n.####\n....E\n",
        "15 20\n" + "\n".join(rows) + "\n",
    ]


@problem(
    "grid_shortest_path",
    "Read R and C, then R lines of C characters: '.' free, '#' wall, 'S' start, 'E' exit (exactly one of "
    "each). Moving up, down, left or right between free cells costs one step. Print the fewest steps from "
    "S to E, or -1 if E cannot be reached.",
    _grid_inputs(),
)
def grid_shortest_path(text):
    from collections import deque

    lines = text.split("\n")
    r, c = map(int, lines[0].split())
    grid = lines[1 : 1 + r]
    start = next((i, j) for i in range(r) for j in range(c) if grid[i][j] == "S")
    dist = {start: 0}
    dq = deque([start])
    while dq:
        i, j = dq.popleft()
        if grid[i][j] == "E":
            return f"{dist[(i, j)]}\n"
        for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            ni, nj = i + di, j + dj
            if 0 <= ni < r and 0 <= nj < c and grid[ni][nj] != "#" and (ni, nj) not in dist:
                dist[(ni, nj)] = dist[(i, j)] + 1
                dq.append((ni, nj))
    return "-1\n"


# 07 -------------------------------------------------------------------------------------------------------
def _dijkstra_inputs():
    n, edges = 40, []
    for _ in range(90):
        u, v = rng.randint(1, n), rng.randint(1, n)
        edges.append(f"{u} {v} {rng.randint(1, 1000000)}")
    return [
        "4 4\n1 2 1\n2 3 2\n1 3 5\n3 4 1\n",
        "3 1\n1 2 7\n",
        "1 0\n",
        "5 6\n1 2 1000000000\n2 3 1000000000\n3 4 1000000000\n4 5 1000000000\n1 5 4000000001\n2 2 3\n",
        f"{n} {len(edges)}\n" + "\n".join(edges) + "\n",
    ]


@problem(
    "dijkstra",
    "Read n and m, then m undirected edges 'u v w' (1 <= u, v <= n, 1 <= w <= 10^9). Print, on one line, "
    "the length of the shortest path from vertex 1 to each vertex 1..n, or -1 for a vertex that cannot be "
    "reached.",
    _dijkstra_inputs(),
)
def dijkstra(text):
    v = ints(text)
    n, m = v[0], v[1]
    adj = [[] for _ in range(n + 1)]
    for i in range(m):
        a, b, w = v[2 + 3 * i : 5 + 3 * i]
        adj[a].append((b, w))
        adj[b].append((a, w))
    dist = [-1] * (n + 1)
    heap = [(0, 1)]
    best = {1: 0}
    while heap:
        d, u = heapq.heappop(heap)
        if dist[u] != -1:
            continue
        dist[u] = d
        for b, w in adj[u]:
            if dist[b] == -1 and (b not in best or d + w < best[b]):
                best[b] = d + w
                heapq.heappush(heap, (d + w, b))
    return fmt(dist[1:]) + "\n"


# 08 -------------------------------------------------------------------------------------------------------
def _components_inputs():
    n = 100
    edges = [f"{rng.randint(1, n)} {rng.randint(1, n)}" for _ in range(60)]
    return [
        "5 3\n1 2\n2 3\n4 5\n",
        "4 0\n",
        "3 3\n1 2\n2 3\n3 1\n",
        "6 2\n1 1\n6 5\n",
        f"{n} {len(edges)}\n" + "\n".join(edges) + "\n",
    ]


@problem(
    "count_components",
    "Read n and m, then m edges 'u v' of an undirected graph on vertices 1..n (self-loops and repeated "
    "edges may occur). Print the number of connected components.",
    _components_inputs(),
)
def count_components(text):
    v = ints(text)
    n, m = v[0], v[1]
    parent = list(range(n + 1))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    comps = n
    for i in range(m):
        a, b = find(v[2 + 2 * i]), find(v[3 + 2 * i])
        if a != b:
            parent[a] = b
            comps -= 1
    return f"{comps}\n"


# 09 -------------------------------------------------------------------------------------------------------
@problem(
    "word_frequency",
    "The first line holds k. The rest of the input is text. A word is a maximal run of ASCII letters, "
    "compared case-insensitively. Print the k most frequent words (fewer if there are not k distinct "
    "words), one per line as 'word count' in lower case, by decreasing count and, for equal counts, in "
    "alphabetical order.",
    [
        "3\nThe cat and the hat. The END, the end!\n",
        "5\nhello\n",
        "2\nA b a B c C c\nc\n",
        "4\nIt was the best of times, it was the worst of times;\nit was the age of wisdom, it was the age "
        "of foolishness...\n",
        "1\n123 456 !!!\n",
    ],
)
def word_frequency(text):
    first, _, rest = text.partition("\n")
    k = int(first)
    counts = Counter(w.lower() for w in re.findall(r"[A-Za-z]+", rest))
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return "".join(f"{w} {c}\n" for w, c in items)


# 10 -------------------------------------------------------------------------------------------------------
def _matrix_inputs():
    n, m, p = 6, 5, 7
    a = [fmt(rand_array(m, -50, 50)) for _ in range(n)]
    b = [fmt(rand_array(p, -50, 50)) for _ in range(m)]
    return [
        "2 2 2\n1 2\n3 4\n5 6\n7 8\n",
        "1 3 1\n1 2 3\n4\n5\n6\n",
        "2 1 3\n2\n-1\n1 0 3\n",
        f"{n} {m} {p}\n" + "\n".join(a + b) + "\n",
    ]


@problem(
    "matrix_multiply",
    "Read n, m and p, then an n x m integer matrix A and an m x p integer matrix B (row by row, entries up "
    "to 10^4 in absolute value). Print the n x p product A*B, one row per line, entries separated by spaces.",
    _matrix_inputs(),
)
def matrix_multiply(text):
    v = ints(text)
    n, m, p = v[0], v[1], v[2]
    a = [v[3 + i * m : 3 + (i + 1) * m] for i in range(n)]
    off = 3 + n * m
    b = [v[off + i * p : off + (i + 1) * p] for i in range(m)]
    rows = []
    for i in range(n):
        rows.append(fmt(sum(a[i][k] * b[k][j] for k in range(m)) for j in range(p)))
    return "\n".join(rows) + "\n"


# 11 -------------------------------------------------------------------------------------------------------
@problem(
    "balanced_brackets",
    "Read t, then t lines, each a non-empty string of the characters ()[]{}. For each print YES if the "
    "brackets are balanced and properly nested, otherwise NO.",
    [
        "4\n()\n([]{})\n(]\n((\n",
        "1\n{[()()]}\n",
        "3\n)(\n[[[]]]\n{[}]\n",
        "2\n" + "([{" * 50 + "}])" * 50 + "\n" + "()" * 100 + ")\n",
    ],
)
def balanced_brackets(text):
    lines = text.split("\n")
    t = int(lines[0])
    pairs = {")": "(", "]": "[", "}": "{"}
    out = []
    for s in lines[1 : 1 + t]:
        stack = []
        ok = True
        for ch in s.strip():
            if ch in "([{":
                stack.append(ch)
            elif not stack or stack.pop() != pairs[ch]:
                ok = False
                break
        out.append("YES" if ok and not stack else "NO")
    return "\n".join(out) + "\n"


# 12 -------------------------------------------------------------------------------------------------------
@problem(
    "lis_length",
    "Read n (1 <= n <= 2*10^5) and n integers. Print the length of the longest strictly increasing "
    "subsequence.",
    [
        "8\n10 9 2 5 3 7 101 18\n",
        "5\n5 4 3 2 1\n",
        "6\n1 1 1 1 1 1\n",
        "7\n-3 -2 -1 0 1 2 3\n",
        f"400\n{fmt(rand_array(400, 0, 1000))}\n",
    ],
)
def lis_length(text):
    import bisect

    v = ints(text)
    tails = []
    for x in v[1 : 1 + v[0]]:
        i = bisect.bisect_left(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    return f"{len(tails)}\n"


# 13 -------------------------------------------------------------------------------------------------------
def _knapsack_inputs():
    items = [f"{rng.randint(1, 60)} {rng.randint(1, 1000)}" for _ in range(30)]
    return [
        "3 50\n10 60\n20 100\n30 120\n",
        "1 5\n6 10\n",
        "4 10\n5 10\n4 40\n6 30\n3 50\n",
        "2 0\n1 1\n2 2\n",
        "30 300\n" + "\n".join(items) + "\n",
    ]


@problem(
    "knapsack",
    "Read n (n <= 100) and a capacity W (W <= 10^4), then n items 'weight value' (weight >= 1). Each item can be "
    "taken at most once. Print the largest total value of items whose total weight is at most W.",
    _knapsack_inputs(),
)
def knapsack(text):
    v = ints(text)
    n, cap = v[0], v[1]
    best = [0] * (cap + 1)
    for i in range(n):
        w, val = v[2 + 2 * i], v[3 + 2 * i]
        for c in range(cap, w - 1, -1):
            best[c] = max(best[c], best[c - w] + val)
    return f"{best[cap]}\n"


# 14 -------------------------------------------------------------------------------------------------------
@problem(
    "reverse_words",
    "For every line of the input, print its words (maximal runs of non-space characters) in reverse "
    "order, separated by single spaces. A line without words gives an empty line.",
    [
        "hello world\n",
        "the quick  brown fox\njumps over\n\nthe lazy dog\n",
        "   single   \n",
        "a b c d e f g\n1 2 3\n",
    ],
)
def reverse_words(text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return "".join(" ".join(reversed(line.split())) + "\n" for line in lines)


# 15 -------------------------------------------------------------------------------------------------------
@problem(
    "caesar_cipher",
    "The first line holds an integer shift k (|k| <= 10^9). Every following line is text: shift each ASCII "
    "letter k places forward in the alphabet (wrapping around, keeping its case) and print the lines; "
    "other characters are unchanged.",
    [
        "3\nHello, World!\n",
        "-1\nabc XYZ\n",
        "26\nNothing changes.\n",
        "1000000001\nZebra crossing 42\nsecond line\n",
    ],
)
def caesar_cipher(text):
    lines = text.split("\n")
    k = int(lines[0]) % 26
    body = lines[1:]
    if body and body[-1] == "":
        body.pop()
    out = []
    for line in body:
        chars = []
        for ch in line:
            if "a" <= ch <= "z":
                chars.append(chr((ord(ch) - 97 + k) % 26 + 97))
            elif "A" <= ch <= "Z":
                chars.append(chr((ord(ch) - 65 + k) % 26 + 65))
            else:
                chars.append(ch)
        out.append("".join(chars))
    return "".join(line + "\n" for line in out)


# 16 -------------------------------------------------------------------------------------------------------
@problem(
    "fibonacci_mod",
    "Read t, then t integers n (0 <= n <= 10^18). For each print F(n) modulo 1000000007, where F(0) = 0, "
    "F(1) = 1 and F(n) = F(n-1) + F(n-2).",
    [
        "5\n0\n1\n2\n10\n50\n",
        "1\n1000000000000000000\n",
        "3\n90\n1000\n123456789012\n",
    ],
)
def fibonacci_mod(text):
    v = ints(text)

    def fib(n):
        if n == 0:
            return (0, 1)
        a, b = fib(n >> 1)
        c = a * ((2 * b - a) % MOD) % MOD
        d = (a * a + b * b) % MOD
        return (d, (c + d) % MOD) if n & 1 else (c, d)

    return "".join(f"{fib(n)[0]}\n" for n in v[1 : 1 + v[0]])


# 17 -------------------------------------------------------------------------------------------------------
@problem(
    "coin_change_ways",
    "Read n and an amount A (0 <= A <= 10^5), then n distinct positive coin values. Print the number of "
    "ways to pay exactly A with any number of coins of each value (order does not matter), modulo "
    "1000000007.",
    [
        "3 5\n1 2 5\n",
        "1 3\n2\n",
        "2 0\n3 7\n",
        "4 1000\n1 5 10 25\n",
        "5 100000\n1 2 5 10 20\n",
    ],
)
def coin_change_ways(text):
    v = ints(text)
    n, amount = v[0], v[1]
    ways = [0] * (amount + 1)
    ways[0] = 1
    for c in v[2 : 2 + n]:
        for s in range(c, amount + 1):
            ways[s] = (ways[s] + ways[s - c]) % MOD
    return f"{ways[amount]}\n"


# 18 -------------------------------------------------------------------------------------------------------
@problem(
    "topological_order",
    "Read n and m, then m pairs 'u v' meaning task u must come before task v (tasks 1..n). Print the "
    "lexicographically smallest order of all tasks that respects every pair, space-separated, or "
    "IMPOSSIBLE if there is none.",
    [
        "4 3\n1 2\n1 3\n3 2\n",
        "3 3\n1 2\n2 3\n3 1\n",
        "5 0\n",
        "6 5\n6 1\n5 1\n4 2\n3 2\n2 1\n",
        "2 2\n1 2\n1 2\n",
    ],
)
def topological_order(text):
    v = ints(text)
    n, m = v[0], v[1]
    adj = [[] for _ in range(n + 1)]
    indeg = [0] * (n + 1)
    for i in range(m):
        a, b = v[2 + 2 * i], v[3 + 2 * i]
        adj[a].append(b)
        indeg[b] += 1
    heap = [i for i in range(1, n + 1) if indeg[i] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        u = heapq.heappop(heap)
        order.append(u)
        for b in adj[u]:
            indeg[b] -= 1
            if indeg[b] == 0:
                heapq.heappush(heap, b)
    return (fmt(order) if len(order) == n else "IMPOSSIBLE") + "\n"


# 19 -------------------------------------------------------------------------------------------------------
@problem(
    "merge_intervals",
    "Read n, then n intervals 'l r' (l <= r, integers). Merge intervals that overlap or touch ([1, 3] and "
    "[3, 5] become [1, 5]). Print the number of merged intervals, then each as 'l r' in increasing order.",
    [
        "4\n1 3\n2 6\n8 10\n15 18\n",
        "2\n1 4\n4 5\n",
        "1\n-5 -5\n",
        "5\n10 12\n1 2\n3 4\n2 3\n11 20\n",
    ],
)
def merge_intervals(text):
    v = ints(text)
    iv = sorted((v[1 + 2 * i], v[2 + 2 * i]) for i in range(v[0]))
    merged = []
    for l, r in iv:
        if merged and l <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], r)
        else:
            merged.append([l, r])
    return f"{len(merged)}\n" + "".join(f"{l} {r}\n" for l, r in merged)


# 20 -------------------------------------------------------------------------------------------------------
@problem(
    "run_length_encoding",
    "For every line of the input print its run-length encoding: each maximal run of one character as the "
    "character followed by the run's length (\"aaab\" becomes \"a3b1\"). An empty line stays empty.",
    [
        "aaabccdddd\n",
        "abc\n\nzzzzzzzzzzzz\n",
        "  xx\n",
        "a\n" + "b" * 120 + "\n",
    ],
)
def run_length_encoding(text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = []
    for line in lines:
        parts = []
        i = 0
        while i < len(line):
            j = i
            while j < len(line) and line[j] == line[i]:
                j += 1
            parts.append(f"{line[i]}{j - i}")
            i = j
        out.append("".join(parts))
    return "".join(line + "\n" for line in out)


# 21 -------------------------------------------------------------------------------------------------------
@problem(
    "two_sum_pairs",
    "Read n and k, then n integers (|a_i| <= 10^9). Print the number of pairs of positions i < j with "
    "a_i + a_j = k.",
    [
        "5 6\n1 5 7 -1 5\n",
        "4 2\n1 1 1 1\n",
        "3 100\n1 2 3\n",
        "1 0\n0\n",
        f"300 10\n{fmt(rand_array(300, -10, 20))}\n",
    ],
)
def two_sum_pairs(text):
    v = ints(text)
    n, k = v[0], v[1]
    seen = Counter()
    pairs = 0
    for x in v[2 : 2 + n]:
        pairs += seen[k - x]
        seen[x] += 1
    return f"{pairs}\n"


# 22 -------------------------------------------------------------------------------------------------------
@problem(
    "temperature_stats",
    "Read n (n >= 1), then n temperatures (decimal numbers). Print the minimum, the maximum and the mean, "
    "each rounded to two decimals, separated by spaces.",
    [
        "3\n20.5 22.1 19.8\n",
        "1\n-3.25\n",
        "4\n0 0 10 10.4\n",
        "5\n-10.111 35.777 12.333 0.5 7.7\n",
    ],
)
def temperature_stats(text):
    v = [float(t) for t in text.split()[1:]]
    n = len(v)
    return f"{min(v):.2f} {max(v):.2f} {sum(v) / n:.2f}\n"


def main():
    write = "--write" in sys.argv[1:]
    problems = 0
    mismatches = []
    for index, (slug, statement, fn, inputs) in enumerate(PROBLEMS, start=1):
        for lang in ("cpp", "java"):
            d = ROOT / lang / f"{index:02d}_{slug}"
            pid = f"lint/{lang}/{index:02d}-{slug.replace('_', '-')}"
            if write:
                d.mkdir(parents=True, exist_ok=True)
                (d / "problem.json").write_text(
                    json.dumps({"id": pid, "statement": statement}, indent=2, ensure_ascii=False) + "\n"
                )
                cases = [{"input": i, "output": fn(i)} for i in inputs]
                (d / "tests.json").write_text(json.dumps(cases, indent=2, ensure_ascii=False) + "\n")
                continue
            problem = json.loads((d / "problem.json").read_text())
            if problem != {"id": pid, "statement": statement}:
                mismatches.append(f"{d}/problem.json differs from the reference's id and statement")
            for number, case in enumerate(json.loads((d / "tests.json").read_text()), start=1):
                expected = fn(case["input"])
                if case["output"] != expected:
                    mismatches.append(f"{d}/tests.json case {number}: {case['output']!r} != {expected!r}")
        problems += 1
    for line in mismatches:
        print(line, file=sys.stderr)
    verb = "wrote" if write else "checked"
    print(f"lint-seed-references: {verb} {problems} problems x 2 languages", file=sys.stderr)
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
