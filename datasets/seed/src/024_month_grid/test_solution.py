import unittest


class TestCases(unittest.TestCase):
    def test_month_starting_on_monday(self):
        grid = month_grid(2021, 2)
        self.assertEqual(len(grid), 4)
        self.assertEqual(grid[0], [1, 2, 3, 4, 5, 6, 7])
        self.assertEqual(grid[-1], [22, 23, 24, 25, 26, 27, 28])

    def test_month_starting_on_friday(self):
        self.assertEqual(
            month_grid(2024, 3),
            [
                [0, 0, 0, 0, 1, 2, 3],
                [4, 5, 6, 7, 8, 9, 10],
                [11, 12, 13, 14, 15, 16, 17],
                [18, 19, 20, 21, 22, 23, 24],
                [25, 26, 27, 28, 29, 30, 31],
            ],
        )

    def test_six_week_december(self):
        grid = month_grid(2024, 12)
        self.assertEqual(len(grid), 6)
        self.assertEqual(grid[0], [0, 0, 0, 0, 0, 0, 1])
        self.assertEqual(grid[-1], [30, 31, 0, 0, 0, 0, 0])

    def test_leap_february(self):
        grid = month_grid(2024, 2)
        self.assertEqual(grid[0], [0, 0, 0, 1, 2, 3, 4])
        self.assertEqual(grid[-1], [26, 27, 28, 29, 0, 0, 0])

    def test_every_week_has_seven_days(self):
        lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        for month in range(1, 13):
            grid = month_grid(2023, month)
            self.assertTrue(all(len(week) == 7 for week in grid))
            self.assertEqual(max(max(week) for week in grid), lengths[month - 1])

    def test_invalid_month(self):
        with self.assertRaises(ValueError):
            month_grid(2024, 13)
