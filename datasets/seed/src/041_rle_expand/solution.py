def rle_expand(encoded):
    pieces = []
    i = 0
    while i < len(encoded):
        char = encoded[i]
        if char.isdigit():
            raise ValueError(f"count without a character at position {i}")
        j = i + 1
        while j < len(encoded) and encoded[j].isdigit():
            j += 1
        count = int(encoded[i + 1 : j]) if j > i + 1 else 1
        pieces.append(char * count)
        i = j
    return "".join(pieces)
