import unittest


class TestCases(unittest.TestCase):
    def test_two_lines(self):
        self.assertEqual(wrap_words("the quick brown fox", 10), ["the quick", "brown fox"])

    def test_exact_fit(self):
        self.assertEqual(wrap_words("aa bb cc", 5), ["aa bb", "cc"])
        self.assertEqual(wrap_words("aa bb cc", 7), ["aa bb", "cc"])
        self.assertEqual(wrap_words("aa bb cc", 8), ["aa bb cc"])

    def test_long_word_gets_own_line(self):
        self.assertEqual(wrap_words("a verylongword b", 4), ["a", "verylongword", "b"])

    def test_whitespace_is_collapsed(self):
        self.assertEqual(wrap_words("  hello \n\t world  ", 20), ["hello world"])

    def test_width_one(self):
        self.assertEqual(wrap_words("a b c", 1), ["a", "b", "c"])

    def test_no_words(self):
        self.assertEqual(wrap_words("   ", 5), [])

    def test_invalid_width(self):
        with self.assertRaises(ValueError):
            wrap_words("text", 0)
