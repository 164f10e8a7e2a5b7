import unittest


class TestCases(unittest.TestCase):
    def test_no_waiting(self):
        self.assertEqual(simulate_checkout([0, 10, 20], [5, 5, 5]), ([5, 15, 25], 0))

    def test_queue_builds_up(self):
        self.assertEqual(simulate_checkout([0, 1, 2], [4, 4, 4]), ([4, 8, 12], 6))

    def test_unsorted_arrivals(self):
        self.assertEqual(simulate_checkout([7, 0, 3], [2, 5, 1]), ([5, 6, 9], 2))

    def test_idle_gap_resets(self):
        self.assertEqual(simulate_checkout([0, 2, 30, 31], [10, 3, 2, 2]), ([10, 13, 32, 34], 8))

    def test_same_arrival_time(self):
        self.assertEqual(simulate_checkout([5, 5], [4, 2]), ([7, 11], 2))

    def test_empty_and_mismatched(self):
        self.assertEqual(simulate_checkout([], []), ([], 0))
        with self.assertRaises(ValueError):
            simulate_checkout([1, 2], [3])
