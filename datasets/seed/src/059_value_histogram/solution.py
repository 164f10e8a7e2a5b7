import sys
from collections import Counter


def main():
    numbers = [int(token) for token in sys.stdin.read().split()]
    if not numbers:
        print("empty")
        return
    counts = Counter(numbers)
    width = max(len(str(value)) for value in counts)
    for value in sorted(counts):
        print(f"{str(value).rjust(width)} | {'*' * counts[value]}")
    top = max(counts.values())
    modes = [str(value) for value in sorted(counts) if counts[value] == top]
    print("mode: " + ", ".join(modes))


main()
