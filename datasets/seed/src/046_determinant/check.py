from fractions import Fraction


def check(candidate):
    assert candidate([[5]]) == 5
    assert candidate([[1, 2], [3, 4]]) == -2
    assert candidate([[6, 1, 1], [4, -2, 5], [2, 8, 7]]) == -306
    assert candidate([[0, 1], [1, 0]]) == -1
    assert candidate([[0, 0, 2], [0, 3, 0], [4, 0, 0]]) == -24
    assert candidate([[1, 2], [2, 4]]) == 0
    assert candidate([[2, 0, 0, 0], [0, 3, 0, 0], [0, 0, 4, 0], [0, 0, 0, 5]]) == 120
    result = candidate([[Fraction(1, 2), 0], [0, 1]])
    assert result == Fraction(1, 2) and isinstance(result, Fraction)
    assert type(candidate([[2, 1], [1, 1]])) is int
    assert candidate([]) == 1
    try:
        candidate([[1, 2, 3], [4, 5, 6]])
    except ValueError:
        pass
    else:
        raise AssertionError("a non-square matrix must raise ValueError")
