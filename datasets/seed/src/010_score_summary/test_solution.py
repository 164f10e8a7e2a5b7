import unittest


class TestCases(unittest.TestCase):
    def test_even_count(self):
        self.assertEqual(
            summarize_scores([1, 2, 3, 4]),
            {"count": 4, "mean": 2.5, "median": 2.5, "stdev": 1.12, "min": 1.0, "max": 4.0, "above_mean": 2},
        )

    def test_skewed_scores_separate_mean_and_median(self):
        summary = summarize_scores([1, 2, 10])
        self.assertEqual(summary["mean"], 4.33)
        self.assertEqual(summary["median"], 2.0)
        self.assertEqual(summary["above_mean"], 1)

    def test_odd_count_median(self):
        self.assertEqual(summarize_scores([50, 90, 70])["median"], 70.0)
        self.assertEqual(summarize_scores([1.111, 2.226, 3.0, 9.5])["median"], 2.61)

    def test_single_score(self):
        summary = summarize_scores([7])
        self.assertEqual((summary["stdev"], summary["min"], summary["max"]), (0.0, 7.0, 7.0))
        self.assertEqual(summary["above_mean"], 0)

    def test_missing_scores_are_ignored(self):
        summary = summarize_scores([None, 80, None, 60])
        self.assertEqual((summary["count"], summary["mean"], summary["stdev"]), (2, 70.0, 10.0))

    def test_no_scores(self):
        with self.assertRaises(ValueError):
            summarize_scores([])
        with self.assertRaises(ValueError):
            summarize_scores([None, None])
