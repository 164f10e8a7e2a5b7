_SYMBOLS = [
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
]


def to_roman(number):
    if not isinstance(number, int) or isinstance(number, bool):
        raise TypeError("number must be an int")
    if number < 1 or number > 3999:
        raise ValueError("number must be between 1 and 3999")
    parts = []
    remaining = number
    for value, symbol in _SYMBOLS:
        count, remaining = divmod(remaining, value)
        parts.append(symbol * count)
    return "".join(parts)
