def insert_position(items, target, side="left"):
    if side not in ("left", "right"):
        raise ValueError("side must be 'left' or 'right'")
    low, high = 0, len(items)
    while low < high:
        mid = (low + high) // 2
        if items[mid] <= target or (side == "right" and items[mid] == target):
            low = mid + 1
        else:
            high = mid
    return low
