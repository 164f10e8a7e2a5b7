import unittest


class TestCases(unittest.TestCase):
    def test_add_accumulates(self):
        stock = Inventory()
        stock.add("apple", 3)
        stock.add(" Apple ")
        self.assertEqual(stock.count("APPLE"), 4)
        self.assertEqual(stock.total_units(), 4)

    def test_remove_partial_and_all(self):
        stock = Inventory()
        stock.add("pear", 5)
        stock.remove("pear", 2)
        self.assertEqual(stock.count("pear"), 3)
        stock.remove("PEAR", 3)
        self.assertEqual(stock.count("pear"), 0)
        self.assertEqual(stock.low_stock(100), [])

    def test_remove_too_many_changes_nothing(self):
        stock = Inventory()
        stock.add("fig", 2)
        stock.remove("fig")
        self.assertEqual(stock.count("fig"), 1)
        stock.add("fig")
        with self.assertRaises(KeyError):
            stock.remove("fig", 3)
        with self.assertRaises(KeyError):
            stock.remove("kiwi")
        self.assertEqual(stock.count("fig"), 2)

    def test_non_positive_quantities(self):
        stock = Inventory()
        stock.add("lime", 1)
        with self.assertRaises(ValueError):
            stock.add("lime", 0)
        with self.assertRaises(ValueError):
            stock.remove("lime", -1)
        with self.assertRaises(ValueError):
            stock.remove("lime", 0)
        self.assertEqual(stock.count("lime"), 1)

    def test_low_stock_order(self):
        stock = Inventory()
        for name, quantity in [("plum", 4), ("date", 1), ("apple", 4), ("melon", 9), ("cherry", 1)]:
            stock.add(name, quantity)
        self.assertEqual(stock.low_stock(5), ["cherry", "date", "apple", "plum"])
        self.assertEqual(stock.low_stock(4), ["cherry", "date"])

    def test_unknown_item_counts_zero(self):
        stock = Inventory()
        self.assertEqual(stock.count("nothing"), 0)
        self.assertEqual(stock.total_units(), 0)
