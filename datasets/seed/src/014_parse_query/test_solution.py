import unittest


class TestCases(unittest.TestCase):
    def test_repeated_names_keep_order(self):
        self.assertEqual(parse_query("a=1&b=2&a=3"), {"a": ["1", "3"], "b": ["2"]})

    def test_leading_question_mark(self):
        self.assertEqual(parse_query("?page=2"), {"page": ["2"]})

    def test_missing_values_and_empty_pieces(self):
        self.assertEqual(parse_query("flag&&x=&=5&y=a=b"), {"flag": [""], "x": [""], "y": ["a=b"]})

    def test_plus_and_percent_decoding(self):
        self.assertEqual(parse_query("q=hello+world%21&sum=1%2B1"), {"q": ["hello world!"], "sum": ["1+1"]})

    def test_utf8_bytes(self):
        expected = {"name": ["été"], "city": ["Köln"]}
        self.assertEqual(parse_query("name=%C3%A9t%C3%A9&city=K%C3%B6ln"), expected)

    def test_invalid_escape_kept(self):
        self.assertEqual(parse_query("rate=100%&code=%zz1"), {"rate": ["100%"], "code": ["%zz1"]})
        self.assertEqual(parse_query("half=%4g&tail=%4"), {"half": ["%4g"], "tail": ["%4"]})

    def test_empty_query(self):
        self.assertEqual(parse_query(""), {})
        self.assertEqual(parse_query("?"), {})
