import unittest


class TestCases(unittest.TestCase):
    def test_scaled_bars(self):
        chart = text_histogram({"fig": 2, "apples": 10, "kiwi": 5}, width=10)
        self.assertEqual(chart, "apples | ########## 10\nkiwi   | ##### 5\nfig    | ## 2")

    def test_ties_sorted_by_label(self):
        chart = text_histogram({"b": 3, "a": 3, "c": 6}, width=4)
        self.assertEqual(chart.splitlines(), ["c | #### 6", "a | ## 3", "b | ## 3"])

    def test_zero_count_has_no_bar(self):
        self.assertEqual(text_histogram({"x": 0, "yy": 4}, width=2), "yy | ## 4\nx  | 0")

    def test_default_width_is_twenty(self):
        self.assertEqual(text_histogram({"a": 4, "b": 1}), "a | " + "#" * 20 + " 4\nb | ##### 1")

    def test_all_zero(self):
        self.assertEqual(text_histogram({"a": 0}), "a | 0")

    def test_custom_bar(self):
        self.assertEqual(text_histogram({"ok": 1, "err": 3}, width=3, bar="*"), "err | *** 3\nok  | * 1")

    def test_empty_and_negative(self):
        self.assertEqual(text_histogram({}), "")
        with self.assertRaises(ValueError):
            text_histogram({"a": 1, "b": -1})
