import unittest


class TestCases(unittest.TestCase):
    def test_plain_fields(self):
        self.assertEqual(split_csv_line("a,b,c"), ["a", "b", "c"])

    def test_empty_fields(self):
        self.assertEqual(split_csv_line("a,,c"), ["a", "", "c"])
        self.assertEqual(split_csv_line("a,"), ["a", ""])
        self.assertEqual(split_csv_line(""), [""])

    def test_quoted_delimiter(self):
        self.assertEqual(split_csv_line('"Smith, Jo",42'), ["Smith, Jo", "42"])

    def test_escaped_quotes(self):
        self.assertEqual(split_csv_line('"say ""hi""",2'), ['say "hi"', "2"])
        self.assertEqual(split_csv_line('""""'), ['"'])

    def test_other_delimiter(self):
        self.assertEqual(split_csv_line('x;"1;2";y', delimiter=";"), ["x", "1;2", "y"])
        self.assertEqual(split_csv_line("x,y;z", delimiter=";"), ["x,y", "z"])

    def test_unterminated_quote(self):
        with self.assertRaises(ValueError):
            split_csv_line('a,"open')
