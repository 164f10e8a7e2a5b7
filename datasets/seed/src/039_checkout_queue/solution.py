def simulate_checkout(arrivals, service_times):
    if len(arrivals) != len(service_times):
        raise ValueError("need exactly one service time per customer")
    free_at = 0
    finishes = []
    longest_wait = 0
    for arrival, service in sorted(zip(arrivals, service_times)):
        start = max(free_at, arrival)
        longest_wait = max(longest_wait, start - arrival)
        free_at = start + service
        finishes.append(free_at)
    return finishes, longest_wait
