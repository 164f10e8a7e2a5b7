import unittest
from datetime import date


class TestCases(unittest.TestCase):
    def test_friday_plus_one_is_monday(self):
        self.assertEqual(add_business_days(date(2024, 3, 1), 1), date(2024, 3, 4))

    def test_full_week(self):
        self.assertEqual(add_business_days(date(2024, 3, 6), 5), date(2024, 3, 13))

    def test_zero_days_keeps_weekend_start(self):
        self.assertEqual(add_business_days(date(2024, 3, 2), 0), date(2024, 3, 2))

    def test_weekend_start(self):
        self.assertEqual(add_business_days(date(2024, 3, 2), 1), date(2024, 3, 4))

    def test_holidays_are_skipped(self):
        holidays = [date(2024, 12, 25), date(2024, 12, 26)]
        self.assertEqual(add_business_days(date(2024, 12, 24), 1, holidays), date(2024, 12, 27))
        self.assertEqual(add_business_days(date(2024, 12, 24), 2, holidays), date(2024, 12, 30))

    def test_backwards(self):
        self.assertEqual(add_business_days(date(2024, 3, 4), -1), date(2024, 3, 1))
        self.assertEqual(add_business_days(date(2024, 3, 13), -5), date(2024, 3, 6))

    def test_crossing_a_year(self):
        self.assertEqual(add_business_days(date(2024, 12, 31), 3, [date(2025, 1, 1)]), date(2025, 1, 6))
