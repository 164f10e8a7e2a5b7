def best_sellers(orders, k=3):
    revenue = {}
    for product, quantity, unit_price in orders:
        if quantity <= 0:
            continue
        revenue[product] = revenue.get(product, 0) + quantity * unit_price
    ranked = sorted(revenue.items(), key=lambda item: item[0])
    ranked.sort(key=lambda item: item[1], reverse=False)
    return [(product, round(total, 2)) for product, total in ranked[:k]]
