def free_slots(busy, day_start, day_end, min_length=1):
    free = []
    cursor = day_start
    for start, end in sorted(busy):
        start, end = max(start, day_start), min(end, day_end)
        if start >= end:
            continue
        if start - cursor >= min_length:
            free.append((cursor, start))
        cursor = max(cursor, end)
    if day_end - cursor >= min_length:
        free.append((cursor, day_end))
    return free
