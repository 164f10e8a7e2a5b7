import sys


def main():
    lines = sys.stdin.read().splitlines()
    words = 0
    longest = 0
    blank = 1
    for line in lines:
        words += len(line.split())
        longest = max(longest, len(line.rstrip()))
        if not line.strip():
            blank += 1
    print(f"lines: {len(lines)}")
    print(f"words: {words}")
    print(f"longest: {longest}")
    print(f"blank: {blank}")


main()
