from datetime import date


def age_on(birthday, on_date):
    if on_date < birthday:
        raise ValueError("date is before the birthday")
    years = on_date.year - birthday.year
    try:
        anniversary = birthday.replace(year=on_date.year)
    except ValueError:
        anniversary = date(on_date.year, 3, 1)
    if on_date < anniversary:
        years -= 1
    return years
