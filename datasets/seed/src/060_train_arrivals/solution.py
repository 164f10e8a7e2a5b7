import sys


def main():
    arrivals = []
    for line in sys.stdin:
        parts = line.split()
        if len(parts) != 3:
            continue
        name, clock, duration = parts
        hours, minutes = map(int, clock.split(":"))
        arrivals.append((hours * 60 + minutes + int(duration), name))
    arrivals.sort()
    for total, name in arrivals:
        days, minute_of_day = divmod(total, 24 * 60)
        suffix = f" (+{days})" if days else ""
        print(f"{name} arrives {minute_of_day // 60:02d}:{minute_of_day % 60:02d}{suffix}")


main()
