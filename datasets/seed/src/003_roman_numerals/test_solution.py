import unittest


class TestCases(unittest.TestCase):
    def test_small_numbers(self):
        expected = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"]
        self.assertEqual([to_roman(n) for n in range(1, 11)], expected)

    def test_subtractive_pairs(self):
        self.assertEqual(to_roman(14), "XIV")
        self.assertEqual(to_roman(40), "XL")
        self.assertEqual(to_roman(90), "XC")
        self.assertEqual(to_roman(400), "CD")
        self.assertEqual(to_roman(944), "CMXLIV")

    def test_years(self):
        self.assertEqual(to_roman(1994), "MCMXCIV")
        self.assertEqual(to_roman(2024), "MMXXIV")

    def test_every_symbol(self):
        self.assertEqual(to_roman(1666), "MDCLXVI")
        self.assertEqual(to_roman(3888), "MMMDCCCLXXXVIII")
        self.assertEqual(to_roman(99), "XCIX")
        self.assertEqual(to_roman(500), "D")

    def test_upper_limit(self):
        self.assertEqual(to_roman(3999), "MMMCMXCIX")
        with self.assertRaises(ValueError):
            to_roman(4000)

    def test_lower_limit(self):
        self.assertEqual(to_roman(1), "I")
        with self.assertRaises(ValueError):
            to_roman(0)
        with self.assertRaises(ValueError):
            to_roman(-7)

    def test_non_integers_rejected(self):
        with self.assertRaises(TypeError):
            to_roman("12")
        with self.assertRaises(TypeError):
            to_roman(True)
        with self.assertRaises(TypeError):
            to_roman(3.0)
