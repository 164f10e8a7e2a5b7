def moving_average(values, window):
    if window < 1:
        raise ValueError("window must be at least 1")
    if window > len(values):
        return []
    total = sum(values[:window])
    averages = [round(total / window, 3)]
    for i in range(window, len(values) - 1):
        total += values[i] - values[i - window]
        averages.append(round(total / window, 3))
    return averages
