def rle_compress(text):
    if any(char.isdigit() for char in text):
        raise ValueError("digits cannot be run-length encoded")
    if not text:
        return ""
    pieces = []
    current = text[0]
    count = 1
    for char in text[1:]:
        if char == current:
            count += 1
            continue
        pieces.append(current + (str(count) if count > 1 else ""))
        current = char
        count = 1
    pieces.append(current + (str(count) if count > 1 else ""))
    return "".join(pieces)
