def check(candidate):
    assert candidate("45s") == 45
    assert candidate("1h30m") == 5400
    assert candidate("2d 4h") == 2 * 86400 + 4 * 3600
    assert candidate("1H 5m 10S") == 3600 + 300 + 10
    assert candidate("90m") == 5400
    assert candidate("0s") == 0
    assert candidate("1d1s") == 86401
    assert candidate("2d") == 172800
    for bad in ["", "   ", "10", "h", "5m3h", "1h2h", "3x", "1.5h", "2m 30"]:
        try:
            candidate(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} should be rejected")
