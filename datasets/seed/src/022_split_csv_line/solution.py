def split_csv_line(line, delimiter=","):
    fields = []
    field = []
    in_quotes = False
    i = 0
    while i < len(line):
        char = line[i]
        if in_quotes:
            if char != '"':
                field.append(char)
            elif line[i + 1 : i + 2] == '"':
                field.append('"')
                i += 1
            else:
                in_quotes = False
        elif char == '"':
            in_quotes = True
        elif char == delimiter:
            fields.append("".join(field))
            field = []
        else:
            field.append(char)
        i += 1
    if in_quotes:
        raise ValueError("unterminated quoted field")
    fields.append("".join(field))
    return fields
