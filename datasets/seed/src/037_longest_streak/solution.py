from datetime import timedelta


def longest_streak(days):
    unique = sorted(set(days))
    if not unique:
        return (0, None)
    best_length, best_start = 1, unique[0]
    run_length, run_start = 1, unique[0]
    for previous, current in zip(unique, unique[1:]):
        if current - previous == timedelta(days=1):
            run_length += 1
        else:
            run_length, run_start = 1, current
        if run_length > best_length:
            best_length, best_start = run_length, run_start
    return (best_length, best_start)
