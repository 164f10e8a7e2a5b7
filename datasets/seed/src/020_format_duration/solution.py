UNITS = [("d", 86400), ("h", 3600), ("m", 60), ("s", 1)]


def format_duration(seconds):
    if seconds < 0:
        raise ValueError("duration cannot be negative")
    remaining = int(seconds)
    parts = []
    for suffix, size in UNITS:
        amount, remaining = divmod(remaining, size)
        if amount > 0:
            parts.append(f"{amount}{suffix}")
    return " ".join(parts) if parts else "0s"
