def group_by_initial(names):
    groups = {}
    for raw in names:
        name = raw.strip()
        if not name or not name[0].isalpha():
            continue
        groups.setdefault(name[0].upper(), set()).add(name)
    index = {}
    for letter in sorted(groups):
        index[letter] = sorted(groups[letter], key=lambda name: (name.lower(), name))
    return index
