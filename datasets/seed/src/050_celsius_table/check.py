def check(candidate):
    assert candidate(0, 30) == [(0, 32.0), (10, 50.0), (20, 68.0), (30, 86.0)]
    assert candidate(0, 25) == [(0, 32.0), (10, 50.0), (20, 68.0)]
    assert candidate(-40, -40) == [(-40, -40.0)]
    assert candidate(100, 0, -50) == [(100, 212.0), (50, 122.0), (0, 32.0)]
    assert candidate(36, 38, 1) == [(36, 96.8), (37, 98.6), (38, 100.4)]
    assert candidate(0, 10, -5) == []
    try:
        candidate(0, 10, 0)
    except ValueError:
        pass
    else:
        raise AssertionError("step 0 must raise ValueError")
