def diff_config(old, new, prefix=""):
    added, removed, changed = [], [], []
    for key in sorted(set(old) | set(new)):
        path = f"{prefix}{key}"
        if key not in old:
            added.append(path)
        elif key not in new:
            removed.append(path)
        elif isinstance(old[key], dict) and isinstance(new[key], dict):
            inner = diff_config(old[key], new[key], prefix=path + ".")
            added.extend(inner["added"])
            removed.extend(inner["removed"])
            changed.extend(inner["changed"])
        elif old[key] != new[key]:
            changed.append(path)
    return {"added": added, "removed": removed, "changed": changed}
