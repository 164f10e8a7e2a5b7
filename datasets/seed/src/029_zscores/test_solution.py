import unittest


class TestCases(unittest.TestCase):
    def test_textbook_values(self):
        self.assertEqual(zscores([2, 4, 4, 4, 5, 5, 7, 9]), [-1.5, -0.5, -0.5, -0.5, 0.0, 0.0, 1.0, 2.0])

    def test_two_values(self):
        self.assertEqual(zscores([10, 20]), [-1.0, 1.0])

    def test_rounding(self):
        self.assertEqual(zscores([1, 2, 3]), [-1.225, 0.0, 1.225])
        self.assertEqual(zscores([1, 2, 3], ndigits=1), [-1.2, 0.0, 1.2])

    def test_constant_values(self):
        self.assertEqual(zscores([3, 3, 3]), [0.0, 0.0, 0.0])

    def test_empty(self):
        self.assertEqual(zscores([]), [])
