import unittest


class TestCases(unittest.TestCase):
    def test_even_bins(self):
        self.assertEqual(bin_counts([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 0, 10, 5), [2, 2, 2, 2, 2])

    def test_upper_edge_goes_to_last_bin(self):
        self.assertEqual(bin_counts([10, 10, 0], 0, 10, 2), [1, 2])

    def test_bin_edges_belong_to_upper_bin(self):
        self.assertEqual(bin_counts([2.5, 5, 7.5], 0, 10, 4), [0, 1, 1, 1])

    def test_out_of_range_values_ignored(self):
        self.assertEqual(bin_counts([-1, 0, 3.9, 4, 4.01, 100], 0, 4, 1), [3])

    def test_negative_range(self):
        self.assertEqual(bin_counts([-10, -6, -5, -1, 0], -10, 0, 2), [2, 3])

    def test_invalid_arguments(self):
        with self.assertRaises(ValueError):
            bin_counts([1], 0, 10, 0)
        with self.assertRaises(ValueError):
            bin_counts([1], 5, 5, 3)
