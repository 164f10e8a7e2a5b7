import sys
from datetime import date

WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def main():
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        try:
            first, second = (date.fromisoformat(part) for part in parts)
        except ValueError:
            print("invalid")
            continue
        gap = abs((second - first).days)
        later = max(first, second)
        unit = "day" if gap == 1 else "days"
        print(f"{gap} {unit}, later is {WEEKDAYS[later.weekday()]}")


main()
