def to_snake(name):
    words = []
    current = ""
    for index, char in enumerate(name):
        if char in "_- ":
            if current:
                words.append(current)
            current = ""
            continue
        prev = name[index - 1] if index > 0 else ""
        nxt = name[index + 1] if index + 1 < len(name) else ""
        boundary = prev.islower() or prev.isdigit() or nxt.islower()
        if char.isupper() and current and boundary:
            words.append(current)
            current = ""
        current += char
    if current:
        words.append(current)
    return "_".join(word.lower() for word in words)
