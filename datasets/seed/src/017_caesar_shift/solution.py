def caesar_shift(text, shift):
    result = []
    for char in text:
        if "a" <= char <= "z":
            base, size = ord("a"), 26
        elif "A" <= char <= "Z":
            base, size = ord("A"), 26
        elif "0" <= char <= "9":
            base, size = ord("0"), 10
        else:
            result.append(char)
            continue
        result.append(chr(base + (ord(char) - base + shift) % size))
    return "".join(result)
