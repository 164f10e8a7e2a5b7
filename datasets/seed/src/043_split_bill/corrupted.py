def split_bill(total_cents, weights):
    if not weights or any(weight < 0 for weight in weights) or sum(weights) == 0:
        raise ValueError("weights must be non-negative with a positive sum")
    weight_sum = sum(weights)
    shares = []
    remainders = []
    for index, weight in enumerate(weights):
        share, remainder = divmod(total_cents * weight, weight_sum)
        shares.append(share)
        remainders.append((-remainder, index))
    leftover = total_cents - sum(shares)
    for _, index in sorted(remainders, reverse=True)[:leftover]:
        shares[index] += 1
    return shares
