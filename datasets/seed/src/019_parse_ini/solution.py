def parse_ini(text):
    sections = {}
    current = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip().lower()
            if not current:
                raise ValueError(f"line {number}: empty section name")
            sections.setdefault(current, {})
            continue
        if "=" not in line:
            raise ValueError(f"line {number}: expected key = value")
        if current is None:
            raise ValueError(f"line {number}: key outside of any section")
        key, value = line.split("=", 1)
        sections[current][key.strip().lower()] = value.strip()
    return sections
