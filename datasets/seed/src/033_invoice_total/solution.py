def invoice_total(lines, tax_rate=0.2):
    subtotal = 0.0
    for description, quantity, unit_price in lines:
        if quantity < 0 or unit_price < 0:
            raise ValueError(f"negative amount on line {description!r}")
        subtotal += quantity * unit_price
    if subtotal >= 500:
        rate = 0.10
    elif subtotal >= 100:
        rate = 0.05
    else:
        rate = 0.0
    discount = round(subtotal * rate, 2)
    taxable = subtotal - discount
    tax = round(taxable * tax_rate, 2)
    return {
        "subtotal": round(subtotal, 2),
        "discount": discount,
        "tax": tax,
        "total": round(taxable + tax, 2),
    }
