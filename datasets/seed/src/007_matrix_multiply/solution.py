def matrix_multiply(left, right):
    if not left or not right:
        raise ValueError("matrices must not be empty")
    inner = len(left[0])
    if any(len(row) != inner for row in left):
        raise ValueError("left matrix is ragged")
    if len(right) != inner:
        raise ValueError("incompatible shapes")
    width = len(right[0])
    if any(len(row) != width for row in right):
        raise ValueError("right matrix is ragged")
    product = []
    for row in left:
        out_row = []
        for col in range(width):
            total = 0
            for k in range(inner):
                total += row[k] * right[k][col]
            out_row.append(total)
        product.append(out_row)
    return product
