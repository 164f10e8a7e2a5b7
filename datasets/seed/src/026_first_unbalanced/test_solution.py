import unittest


class TestCases(unittest.TestCase):
    def test_balanced(self):
        self.assertEqual(first_unbalanced("f(a[b]{c}) + {[()]}"), -1)
        self.assertEqual(first_unbalanced(""), -1)

    def test_wrong_kind_of_closer(self):
        self.assertEqual(first_unbalanced("(]"), 1)
        self.assertEqual(first_unbalanced("{[}]"), 2)

    def test_closer_with_nothing_open(self):
        self.assertEqual(first_unbalanced("a)"), 1)
        self.assertEqual(first_unbalanced("()())"), 4)

    def test_unclosed_reports_earliest_open(self):
        self.assertEqual(first_unbalanced("((x)"), 0)
        self.assertEqual(first_unbalanced("x = [1, (2"), 4)

    def test_closer_error_wins_over_unclosed(self):
        self.assertEqual(first_unbalanced("((]"), 2)

    def test_other_characters_ignored(self):
        self.assertEqual(first_unbalanced("<tag> 'quote' \"(\""), 15)
