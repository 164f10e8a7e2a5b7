def check(candidate):
    assert candidate("4111 1111 1111 1234") == "**** **** **** 1234"
    assert candidate("4111-1111-1111-1234") == "**** **** **** 1234"
    assert candidate("378282246310005") == "**** **** ***0 005"
    assert candidate("5555555555554444", visible=6) == "**** **** **55 4444"
    assert candidate("5555555555554444", visible=0) == "**** **** **** ****"
    assert candidate("1234567890123") == "**** **** *012 3"
    assert candidate("123456789012") == "**** **** 9012"
    assert candidate("1234567890123456789") == "**** **** **** ***6 789"
    assert candidate("123456789012", visible=20) == "1234 5678 9012"
    for bad in ("4111 1111 111", "1" * 20, "abcd"):
        try:
            candidate(bad)
        except ValueError:
            pass
        else:
            raise AssertionError(f"{bad!r} must raise ValueError")
