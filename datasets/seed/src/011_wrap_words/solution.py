def wrap_words(text, width):
    if width < 1:
        raise ValueError("width must be positive")
    lines = []
    current = []
    length = 0
    for word in text.split():
        needed = length + 1 + len(word) if current else len(word)
        if current and needed > width:
            lines.append(" ".join(current))
            current = [word]
            length = len(word)
        else:
            current.append(word)
            length = needed
    if current:
        lines.append(" ".join(current))
    return lines
