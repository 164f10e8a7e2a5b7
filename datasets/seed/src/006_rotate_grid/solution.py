def rotate_grid(grid, turns=1):
    if any(len(row) != len(grid[0]) for row in grid):
        raise ValueError("all rows must have the same length")
    result = [list(row) for row in grid]
    for _ in range(turns % 4):
        height = len(result)
        width = len(result[0]) if result else 0
        result = [[result[height - 1 - r][c] for r in range(height)] for c in range(width)]
    return result
