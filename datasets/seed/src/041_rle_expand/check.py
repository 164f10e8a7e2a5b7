def check(candidate):
    assert candidate("a3bc2") == "aaabcc"
    assert candidate("xyz") == "xyz"
    assert candidate("z12") == "z" * 12
    assert candidate("a10b") == "aaaaaaaaaab"
    assert candidate(" 2x\n2") == "  x\n\n"
    assert candidate("q1") == "q"
    assert candidate("") == ""
    for bad in ("3a", "7"):
        try:
            candidate(bad)
        except ValueError:
            pass
        else:
            raise AssertionError(f"{bad!r} must raise ValueError")
