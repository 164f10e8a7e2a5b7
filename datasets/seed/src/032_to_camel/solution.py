def to_camel(name, upper_first=False):
    stripped = name.lstrip("_")
    prefix = name[: len(name) - len(stripped)]
    words = [word for word in stripped.split("_") if word]
    if not words:
        return name
    parts = []
    for index, word in enumerate(words):
        if index == 0 and not upper_first:
            parts.append(word.lower())
        else:
            parts.append(word[0].upper() + word[1:].lower())
    return prefix + "".join(parts)
