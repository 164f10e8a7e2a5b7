def flatten(nested, max_depth=None):
    result = []

    def walk(items, depth):
        for item in items:
            can_open = max_depth is None or depth < max_depth
            if isinstance(item, (list, tuple)) and can_open:
                walk(item, depth + 1)
            else:
                result.append(item)

    walk(nested, 0)
    return result
