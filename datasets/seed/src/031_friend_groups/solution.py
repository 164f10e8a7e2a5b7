def friend_groups(pairs):
    neighbours = {}
    for a, b in pairs:
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    seen = set()
    groups = []
    for person in sorted(neighbours):
        if person in seen:
            continue
        seen.add(person)
        stack = [person]
        group = []
        while stack:
            current = stack.pop()
            group.append(current)
            for other in neighbours[current]:
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        groups.append(sorted(group))
    groups.sort(key=lambda group: (-len(group), group[0]))
    return groups
