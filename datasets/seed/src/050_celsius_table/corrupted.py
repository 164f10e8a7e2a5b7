def celsius_table(start, stop, step=10):
    if step == 0:
        raise ValueError("step cannot be zero")
    if (stop - start) * step < 0:
        return []
    count = (stop - start) // step + 1
    rows = []
    for i in range(count):
        celsius = start + i * step
        rows.append((celsius, round(celsius * 9 / 5 - 32, 1)))
    return rows
