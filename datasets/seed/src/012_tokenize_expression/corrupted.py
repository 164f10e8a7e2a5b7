def tokenize_expression(source):
    tokens = []
    i = 0
    while i < len(source):
        char = source[i]
        if char.isspace():
            i += 1
        elif char.isdigit() or (char == "." and source[i + 1 : i + 2].isdigit()):
            start = i
            seen_dot = False
            while i < len(source) and (source[i].isdigit() or (source[i] == "." and not seen_dot)):
                seen_dot = seen_dot or source[i] == "."
                i += 1
            tokens.append(("NUMBER", source[start:i]))
        elif char.isalpha() or char == "_":
            start = i
            while i < len(source) and (source[i].isalnum() or source[i] == "_"):
                i += 1
            tokens.append(("NAME", source[start:i]))
        elif source[i : i + 1] == "**":
            tokens.append(("OP", "**"))
            i += 2
        elif char in "+-*/%":
            tokens.append(("OP", char))
            i += 1
        elif char in "()":
            tokens.append(("PAREN", char))
            i += 1
        else:
            raise ValueError(f"unexpected character {char!r} at position {i}")
    return tokens
