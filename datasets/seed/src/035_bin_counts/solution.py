def bin_counts(values, low, high, bins):
    if bins < 1:
        raise ValueError("need at least one bin")
    if high <= low:
        raise ValueError("high must be greater than low")
    width = (high - low) / bins
    counts = [0] * bins
    for value in values:
        if value < low or value > high:
            continue
        index = int((value - low) / width)
        if index == bins:
            index -= 1
        counts[index] += 1
    return counts
