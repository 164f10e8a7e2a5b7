def mask_card(number, visible=4):
    digits = [char for char in number if char.isdigit()]
    if len(digits) < 12 or len(digits) > 19:
        raise ValueError("card numbers have 12 to 19 digits")
    hidden = max(len(digits) - visible, 0)
    masked = ["*"] * hidden + digits[hidden:]
    groups = []
    for start in range(0, len(masked), 3):
        groups.append("".join(masked[start : start + 4]))
    return " ".join(groups)
