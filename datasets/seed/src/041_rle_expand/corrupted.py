def rle_expand(encoded):
    pieces = []
    i = 0
    while i < len(encoded):
        char = encoded[i]
        j = i + 1
        while j < len(encoded) and encoded[j].isdigit():
            j += 1
        count = int(encoded[i + 1 : j]) if j > i + 1 else 1
        pieces.append(char * count)
        i = j
    return "".join(pieces)
