def check(candidate):
    assert candidate([1, 3, 5, 7], 4) == 2
    assert candidate([1, 3, 5, 7], 0) == 0
    assert candidate([1, 3, 5, 7], 9) == 4
    assert candidate([], 5) == 0
    assert candidate([2, 2, 2], 2) == 0
    assert candidate([2, 2, 2], 2, side="right") == 3
    assert candidate(["apple", "kiwi", "pear"], "fig") == 1
    data = [1, 1, 2, 4, 4, 4, 9]
    for target in range(11):
        assert candidate(data, target) == sum(1 for x in data if x < target)
        assert candidate(data, target, side="right") == sum(1 for x in data if x <= target)
    try:
        candidate(data, 3, side="middle")
    except ValueError:
        pass
    else:
        raise AssertionError("an unknown side must raise ValueError")
