import unittest
from datetime import date


class TestCases(unittest.TestCase):
    def test_before_birthday_in_year(self):
        self.assertEqual(age_on(date(1990, 6, 15), date(2024, 6, 14)), 33)

    def test_on_birthday(self):
        self.assertEqual(age_on(date(1990, 6, 15), date(2024, 6, 15)), 34)

    def test_after_birthday(self):
        self.assertEqual(age_on(date(1990, 6, 15), date(2024, 12, 31)), 34)

    def test_leap_day_birthday(self):
        born = date(2000, 2, 29)
        self.assertEqual(age_on(born, date(2023, 2, 28)), 22)
        self.assertEqual(age_on(born, date(2023, 3, 1)), 23)
        self.assertEqual(age_on(born, date(2024, 2, 29)), 24)

    def test_newborn(self):
        self.assertEqual(age_on(date(2024, 5, 1), date(2024, 5, 1)), 0)
        self.assertEqual(age_on(date(2023, 12, 31), date(2024, 12, 30)), 0)

    def test_date_before_birthday(self):
        with self.assertRaises(ValueError):
            age_on(date(2000, 1, 2), date(2000, 1, 1))
