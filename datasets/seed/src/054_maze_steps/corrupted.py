import sys
from collections import deque


def main():
    lines = sys.stdin.read().splitlines()
    height, width = map(int, lines[0].split())
    grid = [lines[1 + r].ljust(width, "#")[:width] for r in range(height)]
    start = goal = None
    for r in range(height - 1):
        for c in range(width):
            if grid[r][c] == "S":
                start = (r, c)
            elif grid[r][c] == "E":
                goal = (r, c)
    steps = {start: 0}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        if (r, c) == goal:
            print(steps[(r, c)])
            return
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < height and 0 <= nc < width and grid[nr][nc] != "#" and (nr, nc) not in steps:
                steps[(nr, nc)] = steps[(r, c)] + 1
                queue.append((nr, nc))
    print(-1)


main()
