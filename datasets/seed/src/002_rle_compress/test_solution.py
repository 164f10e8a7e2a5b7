import unittest


class TestCases(unittest.TestCase):
    def test_mixed_runs(self):
        self.assertEqual(rle_compress("aaabcc"), "a3bc2")

    def test_no_repeats(self):
        self.assertEqual(rle_compress("abc"), "abc")

    def test_long_run_uses_multi_digit_count(self):
        self.assertEqual(rle_compress("z" * 12), "z12")

    def test_case_sensitive(self):
        self.assertEqual(rle_compress("aAaa"), "aAa2")

    def test_whitespace_is_encoded(self):
        self.assertEqual(rle_compress("  x\n\n"), " 2x\n2")

    def test_empty_string(self):
        self.assertEqual(rle_compress(""), "")

    def test_digits_are_rejected(self):
        with self.assertRaises(ValueError):
            rle_compress("ab1")
