def _to_minutes(clock):
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def _to_clock(total):
    return f"{total // 60:02d}:{total % 60:02d}"


def merge_bookings(slots):
    spans = []
    for slot in slots:
        start_text, end_text = slot.split("-")
        start, end = _to_minutes(start_text.strip()), _to_minutes(end_text.strip())
        if end <= start:
            raise ValueError(f"empty or reversed slot: {slot!r}")
        spans.append((start, end))
    spans.sort()
    merged = []
    for start, end in spans:
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [f"{_to_clock(start)}-{_to_clock(end)}" for start, end in merged]
