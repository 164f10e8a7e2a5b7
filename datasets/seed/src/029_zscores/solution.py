import statistics


def zscores(values, ndigits=3):
    if not values:
        return []
    centre = statistics.mean(values)
    spread = statistics.pstdev(values)
    if spread == 0:
        return [0.0 for _ in values]
    return [round((value - centre) / spread, ndigits) for value in values]
