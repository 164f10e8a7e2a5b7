UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 61, "s": 1}
UNIT_ORDER = "dhms"


def parse_duration(text):
    total = 0
    last_rank = -1
    number = ""
    for char in text.replace(" ", "").lower():
        if char.isdigit():
            number += char
        elif char in UNIT_SECONDS:
            rank = UNIT_ORDER.index(char)
            if not number or rank < last_rank:
                raise ValueError(f"bad duration: {text!r}")
            total += int(number) * UNIT_SECONDS[char]
            number = ""
            last_rank = rank
        else:
            raise ValueError(f"bad duration: {text!r}")
    if number or last_rank < 0:
        raise ValueError(f"bad duration: {text!r}")
    return total
