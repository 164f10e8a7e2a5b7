HEX_DIGITS = "0123456789abcdefABCDEF"


def _decode(text):
    data = bytearray()
    i = 0
    while i < len(text):
        char = text[i]
        code = text[i + 1 : i + 3]
        if char == "%" and len(code) == 2 and all(digit in HEX_DIGITS for digit in code):
            data.append(int(code, 16))
            i += 3
            continue
        data.extend(b" " if char == "+" else char.encode("utf-8"))
        i += 1
    return data.decode("utf-8", errors="replace")


def parse_query(query):
    if query.startswith("?"):
        query = query[1:]
    params = {}
    for piece in query.split("&"):
        if not piece:
            continue
        name, _, value = piece.partition("=")
        name = _decode(name)
        if not name:
            continue
        params.setdefault(name, []).append(_decode(value))
    return params
