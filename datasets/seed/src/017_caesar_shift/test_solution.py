import unittest


class TestCases(unittest.TestCase):
    def test_lowercase(self):
        self.assertEqual(caesar_shift("abc", 1), "bcd")

    def test_wraps_and_keeps_case(self):
        self.assertEqual(caesar_shift("xYz", 3), "aBc")
        self.assertEqual(caesar_shift("AZaz09", 1), "BAba10")

    def test_digits_wrap_within_ten(self):
        self.assertEqual(caesar_shift("Room 908", 3), "Urrp 231")

    def test_negative_shift(self):
        self.assertEqual(caesar_shift("Bad 1", -2), "Zyb 9")

    def test_large_shift(self):
        self.assertEqual(caesar_shift("Hello", 52 + 13), "Uryyb")

    def test_other_characters_unchanged(self):
        self.assertEqual(caesar_shift("é-ß! ?", 5), "é-ß! ?")
        self.assertEqual(caesar_shift("", 4), "")

    def test_round_trip(self):
        message = "Meet at 10:45, gate B7"
        self.assertEqual(caesar_shift(caesar_shift(message, 11), -11), message)
        self.assertNotEqual(caesar_shift(message, 11), message)
