def check(candidate):
    assert candidate(["ada", "bob", "ada"]) == ("Ada", 2)
    assert candidate(["  Grace Hopper", "grace hopper ", "ALAN TURING"]) == ("Grace Hopper", 2)
    assert candidate(["zed", "amy", "zed", "amy"]) == ("Amy", 2)
    assert candidate(["", "   ", "kim"]) == ("Kim", 1)
    assert candidate(["b", "c", "c", "a", "b", "c"]) == ("C", 3)
    assert candidate([]) is None
    assert candidate(["", " \t"]) is None
