import unittest


class TestCases(unittest.TestCase):
    def test_basic_title(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")

    def test_accents_are_folded(self):
        self.assertEqual(slugify("Crème Brûlée à la Française"), "creme-brulee-a-la-francaise")

    def test_punctuation_runs_collapse(self):
        self.assertEqual(slugify("  --Python 3.11:  what's new?--  "), "python-3-11-what-s-new")

    def test_truncates_at_word_boundary(self):
        self.assertEqual(slugify("one two three four", max_length=13), "one-two-three")
        self.assertEqual(slugify("one two three four", max_length=12), "one-two")

    def test_default_limit_is_fifty(self):
        self.assertEqual(slugify("a" * 24 + " " + "b" * 25), "a" * 24 + "-" + "b" * 25)
        self.assertEqual(slugify("a" * 25 + " " + "b" * 25), "a" * 25)

    def test_first_word_too_long(self):
        self.assertEqual(slugify("Supercalifragilistic day", max_length=5), "super")

    def test_no_words(self):
        self.assertEqual(slugify("!!! ???"), "")
        self.assertEqual(slugify("日本語"), "")
