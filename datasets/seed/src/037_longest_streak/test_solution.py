import unittest
from datetime import date, timedelta


class TestCases(unittest.TestCase):
    def test_single_run(self):
        days = [date(2024, 1, 3), date(2024, 1, 1), date(2024, 1, 2)]
        self.assertEqual(longest_streak(days), (3, date(2024, 1, 1)))

    def test_longest_of_several_runs(self):
        days = [date(2024, 5, d) for d in (1, 2, 5, 6, 7, 8, 20)]
        self.assertEqual(longest_streak(days), (4, date(2024, 5, 5)))

    def test_tie_reports_earliest(self):
        days = [date(2024, 2, 10), date(2024, 2, 11), date(2024, 2, 1), date(2024, 2, 2)]
        self.assertEqual(longest_streak(days), (2, date(2024, 2, 1)))

    def test_duplicates_ignored(self):
        days = [date(2024, 3, 1)] * 3 + [date(2024, 3, 2)]
        self.assertEqual(longest_streak(days), (2, date(2024, 3, 1)))

    def test_run_across_month_and_year(self):
        start = date(2023, 12, 30)
        days = [start + timedelta(days=i) for i in range(5)] + [date(2024, 3, 1)]
        self.assertEqual(longest_streak(days), (5, start))

    def test_isolated_days_and_empty(self):
        self.assertEqual(longest_streak([date(2024, 7, 9), date(2024, 7, 1)]), (1, date(2024, 7, 1)))
        self.assertEqual(longest_streak([]), (0, None))
