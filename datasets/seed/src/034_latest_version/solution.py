def latest_version(tags):
    best = None
    best_key = None
    for tag in tags:
        text = tag.strip()
        core = text[1:] if text[:1] in ("v", "V") else text
        parts = core.split(".")
        if len(parts) != 3 or not all(part.isdigit() for part in parts):
            continue
        key = tuple(int(part) for part in parts)
        if best_key is None or key > best_key:
            best, best_key = text, key
    return best
