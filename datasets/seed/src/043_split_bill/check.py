def check(candidate):
    assert candidate(1000, [1, 1, 1]) == [334, 333, 333]
    assert candidate(100, [1, 3]) == [25, 75]
    assert candidate(10, [1, 1, 1, 1]) == [3, 3, 2, 2]
    assert candidate(7, [2, 1]) == [5, 2]
    assert candidate(7, [1, 2]) == [2, 5]
    assert candidate(50, [0, 1]) == [0, 50]
    assert candidate(0, [2, 5]) == [0, 0]
    shares = candidate(12345, [3, 7, 11, 13])
    assert sum(shares) == 12345 and shares == [1089, 2542, 3994, 4720]
    for bad in ([], [0, 0], [2, -1]):
        try:
            candidate(100, bad)
        except ValueError:
            pass
        else:
            raise AssertionError(f"weights {bad} must raise ValueError")
