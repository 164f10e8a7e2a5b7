import unittest


class TestCases(unittest.TestCase):
    def test_revenue_is_summed_per_product(self):
        orders = [("tea", 2, 3.5), ("mug", 1, 12.0), ("tea", 4, 3.5), ("jam", 3, 4.0), ("oat", 1, 2.0)]
        self.assertEqual(best_sellers(orders), [("tea", 21.0), ("jam", 12.0), ("mug", 12.0)])

    def test_top_k(self):
        orders = [("a", 1, 1), ("b", 1, 5), ("c", 1, 3), ("d", 1, 4)]
        self.assertEqual(best_sellers(orders, k=2), [("b", 5), ("d", 4)])

    def test_k_larger_than_products(self):
        self.assertEqual(best_sellers([("pen", 10, 0.99)], k=5), [("pen", 9.9)])
        orders = [("gum", 3, 0.333), ("tea", 1, 0.5), ("pen", 5, 1.99)]
        self.assertEqual(best_sellers(orders), [("pen", 9.95), ("gum", 1.0), ("tea", 0.5)])

    def test_non_positive_quantities_ignored(self):
        orders = [("x", 0, 100), ("y", -2, 50), ("z", 1, 1)]
        self.assertEqual(best_sellers(orders), [("z", 1)])

    def test_ties_are_alphabetical(self):
        orders = [("pear", 2, 2), ("fig", 1, 4), ("apple", 4, 1), ("lime", 1, 9)]
        self.assertEqual(best_sellers(orders, k=4), [("lime", 9), ("apple", 4), ("fig", 4), ("pear", 4)])

    def test_no_orders(self):
        self.assertEqual(best_sellers([]), [])
