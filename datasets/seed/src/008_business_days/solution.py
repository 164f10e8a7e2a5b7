from datetime import timedelta


def add_business_days(start, days, holidays=()):
    closed = set(holidays)
    step = 1 if days >= 0 else -1
    remaining = abs(days)
    current = start
    while remaining > 0:
        current += timedelta(days=step)
        if current.weekday() < 5 and current not in closed:
            remaining -= 1
    return current
