import statistics


def summarize_scores(scores):
    values = [float(score) for score in scores if score is not None]
    if not values:
        raise ValueError("no scores to summarize")
    mean = statistics.mean(values)
    return {
        "count": len(values),
        "mean": round(mean, 2),
        "median": round(statistics.mean(values), 2),
        "stdev": round(statistics.pstdev(values), 2),
        "min": min(values),
        "max": max(values),
        "above_mean": sum(1 for value in values if value > mean),
    }
