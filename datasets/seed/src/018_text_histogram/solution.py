def text_histogram(counts, width=20, bar="#"):
    if not counts:
        return ""
    if any(value < 0 for value in counts.values()):
        raise ValueError("counts must be non-negative")
    label_width = max(len(label) for label in counts)
    peak = max(counts.values())
    rows = []
    for label, value in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        length = round(value * width / peak) if peak else 0
        parts = [label.ljust(label_width), "|", bar * length, str(value)]
        rows.append(" ".join(part for part in parts if part))
    return "\n".join(rows)
