def life_step(alive):
    neighbour_counts = {}
    for row, col in alive:
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr == 0 and dc == 0:
                    continue
                cell = (row + dr, col + dc)
                neighbour_counts[cell] = neighbour_counts.get(cell, 0) + 1
    return {
        cell
        for cell, count in neighbour_counts.items()
        if count == 3 or (count == 2 and cell in alive)
    }
