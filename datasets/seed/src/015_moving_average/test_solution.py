import unittest


class TestCases(unittest.TestCase):
    def test_window_of_two(self):
        self.assertEqual(moving_average([1, 2, 3, 4, 5], 2), [1.5, 2.5, 3.5, 4.5])

    def test_window_of_three(self):
        self.assertEqual(moving_average([3, 1, 2, 10, 0, 5], 3), [2.0, 4.333, 4.0, 5.0])
        self.assertEqual(moving_average([1, 2, 2, 5], 3), [1.667, 3.0])

    def test_window_equal_to_length(self):
        self.assertEqual(moving_average([4, 8, 6], 3), [6.0])

    def test_window_of_one(self):
        self.assertEqual(moving_average([7, -1, 2], 1), [7.0, -1.0, 2.0])

    def test_window_too_large(self):
        self.assertEqual(moving_average([1, 2], 3), [])

    def test_invalid_window(self):
        with self.assertRaises(ValueError):
            moving_average([1, 2, 3], 0)
