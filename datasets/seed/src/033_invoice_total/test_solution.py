import unittest


class TestCases(unittest.TestCase):
    def test_small_invoice_has_no_discount(self):
        self.assertEqual(
            invoice_total([("pen", 2, 1.5), ("pad", 1, 4.0)]),
            {"subtotal": 7.0, "discount": 0.0, "tax": 1.4, "total": 8.4},
        )

    def test_five_percent_from_one_hundred(self):
        self.assertEqual(
            invoice_total([("desk", 1, 100)]),
            {"subtotal": 100.0, "discount": 5.0, "tax": 19.0, "total": 114.0},
        )

    def test_just_below_thresholds(self):
        self.assertEqual(invoice_total([("lamp", 1, 99.5)], tax_rate=0)["discount"], 0.0)
        self.assertEqual(
            invoice_total([("shelf", 1, 499)]),
            {"subtotal": 499.0, "discount": 24.95, "tax": 94.81, "total": 568.86},
        )

    def test_amounts_are_rounded_to_cents(self):
        self.assertEqual(
            invoice_total([("screw", 7, 0.333), ("desk", 1, 121.12)]),
            {"subtotal": 123.45, "discount": 6.17, "tax": 23.46, "total": 140.74},
        )

    def test_ten_percent_from_five_hundred(self):
        self.assertEqual(
            invoice_total([("chair", 5, 100)]),
            {"subtotal": 500.0, "discount": 50.0, "tax": 90.0, "total": 540.0},
        )

    def test_custom_tax_rate(self):
        self.assertEqual(invoice_total([("book", 4, 30)], tax_rate=0.1)["total"], 125.4)

    def test_negative_amounts(self):
        with self.assertRaises(ValueError):
            invoice_total([("refund", -1, 10)])
        with self.assertRaises(ValueError):
            invoice_total([("odd", 1, -0.5)])

    def test_empty_and_zero_lines(self):
        zero = {"subtotal": 0.0, "discount": 0.0, "tax": 0.0, "total": 0.0}
        self.assertEqual(invoice_total([]), zero)
        self.assertEqual(invoice_total([("sample", 0, 5.0), ("flyer", 10, 0)]), zero)
